import crypto from 'node:crypto';
import dns from 'node:dns';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import { urlToHttpOptions } from 'node:url';
import ipaddr from 'ipaddr.js';
import { cidrList } from '../../config';
import { ValidationError } from '../../domain/errors';
import { listenerDir, runningListener } from '../../listener/registry';

export const RESPONSE_TIMEOUT_MS = 10_000;
const EXCERPT_BYTES = 2048;

export interface TransportOptions {
  /** CIDRs that may be reached although private, loopback or link-local (PAYPLANE_WEBHOOK_ALLOW_CIDRS) */
  allowCidrs: string[];
  /** extra CA certificates to trust (PAYPLANE_WEBHOOK_CA_FILE) */
  caFile?: string;
  timeoutMs?: number;
  /**
   * The home whose running `payplane webhooks listen` processes may be reached (<home>/webhook-listener/running):
   * the loopback URL of the endpoint such a listener registered, on its port, with its certificate pinned.
   */
  listenerHome?: string;
  /** how a host name is resolved to every one of its addresses (default: the system resolver, dns.lookup) */
  resolve?: Resolver;
}

/** Every address of a host name, as dns.lookup with `all: true` gives them. */
export type Resolver = (hostname: string, family?: number) => Promise<dns.LookupAddress[]>;

export const systemResolver: Resolver = (hostname, family) => dns.promises.lookup(hostname, { all: true, family: family ?? 0 });

/** A URL as the transport uses it: refused (why), or the request's options and what decides where it may go. */
interface Destination {
  refused?: string;
  request?: https.RequestOptions;
  port?: number;
  /** localhost or a loopback address: a running local listener's endpoint may be reached there */
  loopback?: boolean;
  /** a literal address that is not allowed: why */
  literalRefused?: string;
}

/** What is being delivered: the endpoint (a running local listener's own endpoint may be on loopback). */
export interface SendTarget {
  endpointId: string;
}

export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  excerpt: string;
  durationMs: number;
}

/** The dispatcher's options from the environment; with `home`, it also reaches this machine's local listener. */
export function transportOptionsFromEnv(env: NodeJS.ProcessEnv = process.env, home?: string): TransportOptions {
  return {
    allowCidrs: cidrList(env.PAYPLANE_WEBHOOK_ALLOW_CIDRS),
    caFile: env.PAYPLANE_WEBHOOK_CA_FILE || undefined,
    timeoutMs: env.PAYPLANE_WEBHOOK_TIMEOUT_MS ? Number(env.PAYPLANE_WEBHOOK_TIMEOUT_MS) : undefined,
    listenerHome: home,
  };
}

/** `localhost` (and its subdomains, RFC 6761) or a literal loopback address. */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  if (isLocalhostName(name)) return true;
  if (!net.isIP(name)) return false;
  try {
    return ipaddr.process(name).range() === 'loopback';
  } catch {
    return false;
  }
}

/**
 * The IPv4 addresses an IPv6 address carries, by the ranges that embed one: IPv4-compatible (::/96), IPv4-mapped
 * (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96), NAT64 (64:ff9b::/96), 6to4 (2002::/16: bits 16-48) and Teredo
 * (2001::/32: the server in bits 32-64, the client in the last 32 bits, inverted). `opaque` for the local-use NAT64
 * prefix 64:ff9b:1::/48, whose operator chooses where the IPv4 address sits; an empty list for other addresses.
 */
export function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4[] | 'opaque' {
  const p = ip.parts;
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  switch (ip.range()) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return [v4(p[6], p[7])];
    case 'rfc6052':
      return p[2] === 1 ? 'opaque' : [v4(p[6], p[7])];
    case '6to4':
      return [v4(p[1], p[2])];
    case 'teredo':
      return [v4(p[2], p[3]), v4(p[6] ^ 0xffff, p[7] ^ 0xffff)];
    case 'unicast':
      // IPv4-compatible (deprecated, RFC 4291): :: and ::1 fall in ranges of their own
      return p.slice(0, 6).every((part) => part === 0) ? [v4(p[6], p[7])] : [];
    default:
      return [];
  }
}

/**
 * Whether an address may be connected to: the one decision of the endpoint save (a literal address) and of the
 * dispatcher's connect-time lookup (every address a name resolves to). Allowed: an address inside an allowed CIDR;
 * else public unicast IPv4; else IPv6 that is public unicast, or a form that carries IPv4 addresses (mapped, NAT64,
 * 6to4, Teredo, IPv4-compatible) every one of which is allowed. Anything unparsable is refused.
 */
export function addressAllowed(address: string, allowCidrs: string[]): boolean {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.process(address);
  } catch {
    return false;
  }
  for (const cidr of allowCidrs) {
    try {
      const [range, bits] = ipaddr.parseCIDR(cidr);
      if (range.kind() === ip.kind() && ip.match(range, bits)) return true;
    } catch {
      // an invalid allowlist entry allows nothing
    }
  }
  if (ip.kind() === 'ipv4') return ip.range() === 'unicast';
  const carried = embeddedIPv4(ip as ipaddr.IPv6);
  if (carried === 'opaque') return false;
  if (carried.length > 0) return carried.every((v4) => addressAllowed(v4.toString(), allowCidrs));
  return ip.range() === 'unicast';
}

/** Why a host may not be reached, or undefined when it may: a literal address, or every address a name resolves to. */
export function hostRefusal(host: string, addresses: readonly string[], allowCidrs: string[]): string | undefined {
  if (net.isIP(host)) return addressAllowed(host, allowCidrs) ? undefined : `${host} is a private, loopback or reserved address`;
  const refused = addresses.find((address) => !addressAllowed(address, allowCidrs));
  return refused === undefined ? undefined : `${host} resolves to ${refused}, a private, loopback or reserved address`;
}

/** `localhost` and its subdomains (RFC 6761): loopback whatever a resolver says of them. */
function isLocalhostName(name: string): boolean {
  return name === 'localhost' || name.endsWith('.localhost');
}

/** How long the save waits for a name's addresses: a name not resolved by then is saved (the delivery checks it). */
export const SAVE_RESOLVE_TIMEOUT_MS = 3_000;

export interface DestinationCheckOptions {
  /** CIDRs that may be reached although private (PAYPLANE_WEBHOOK_ALLOW_CIDRS, as the dispatcher reads it) */
  allowCidrs: string[];
  /** how a name is resolved (default: the system resolver, as the dispatcher's) */
  resolve?: Resolver;
  /** the endpoint of `payplane webhooks listen` (src/listener/): a localhost URL of this machine is what it registers */
  localListener?: boolean;
}

/**
 * Checks an endpoint URL when it is saved: HTTPS, no credentials in it, and a host that may be reached — the same
 * decision the dispatcher makes at connect time (hostRefusal, addressAllowed). The host is the URL parser's
 * (IDNA and fullwidth forms folded, IPv4 in decimal, octal or hex written out, IPv6 compressed); a literal address
 * is checked as it is, `localhost` names as loopback, any other name by every address it resolves to now (a name
 * that does not resolve is saved: DNS changes, and the dispatcher checks again before each connection).
 */
export async function checkDestination(url: string, field: string, options: DestinationCheckOptions): Promise<void> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw ValidationError.field(field, 'must be a URL');
  }
  if (parsed.protocol !== 'https:') throw ValidationError.field(field, 'must be an https URL', 'WEBHOOK_URL_NOT_HTTPS');
  if (parsed.username || parsed.password) throw ValidationError.field(field, 'must not contain credentials');
  const host = parsed.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (options.localListener) {
    if (!isLoopbackHost(host)) throw ValidationError.field(field, "must be a loopback URL (the local listener's own)");
    return;
  }
  const addresses = net.isIP(host) ? [] : await addressesAtSave(host, options.resolve ?? systemResolver);
  const refused = hostRefusal(host, addresses, options.allowCidrs);
  if (refused) throw ValidationError.field(field, refused, 'WEBHOOK_URL_NOT_ALLOWED');
}

async function addressesAtSave(host: string, resolve: Resolver): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((done) => {
    timer = setTimeout(() => done(undefined), SAVE_RESOLVE_TIMEOUT_MS);
  });
  const resolved = await Promise.race([resolve(host).catch(() => undefined), timeout]).finally(() => clearTimeout(timer));
  const addresses = (resolved ?? []).map((a) => a.address);
  // localhost names are loopback (RFC 6761) even where the resolver does not know them; where it does, its addresses
  // are the ones the dispatcher will connect to, and so the ones checked
  return isLocalhostName(host) && addresses.length === 0 ? ['127.0.0.1', '::1'] : addresses;
}

/**
 * Posts webhook deliveries: HTTPS only, redirects not followed, the whole exchange bounded by a timeout, and
 * every address checked at connect time (after DNS resolution, so a name cannot rebind to a private address).
 */
export class WebhookTransport {
  private readonly agent: https.Agent;
  private readonly timeoutMs: number;

  constructor(private readonly options: TransportOptions) {
    // One TLS context made here for every connection: a `ca` list in the agent's options would be joined into the
    // connection-pool key and turned into a new context on every request.
    const secureContext = options.caFile
      ? tls.createSecureContext({ ca: [...tls.rootCertificates, fs.readFileSync(options.caFile, 'utf8')] })
      : undefined;
    this.agent = new https.Agent({ keepAlive: true, maxSockets: 64, secureContext });
    this.timeoutMs = options.timeoutMs ?? RESPONSE_TIMEOUT_MS;
  }

  private resolve: Resolver = (hostname, family) => (this.options.resolve ?? systemResolver)(hostname, family);

  private lookup = checkedLookup(
    this.resolve,
    (hostname, list) =>
      hostRefusal(
        hostname,
        list.map((a) => a.address),
        this.options.allowCidrs,
      ) ?? list,
  );

  /** For the local listener: loopback addresses only, whatever a name resolves to; IPv4 first (it binds 127.0.0.1). */
  private loopbackOnlyLookup = checkedLookup(this.resolve, (hostname, addresses) => {
    const list = addresses.filter((a) => isLoopbackHost(a.address)).sort((a, b) => a.family - b.family);
    return list.length > 0 ? list : `${hostname} does not resolve to a loopback address`;
  });

  /** What a URL says of where it leads, worked out once per URL (an endpoint's deliveries all go to the same). */
  private destination(url: string): Destination {
    let known = this.destinations.get(url);
    if (known) return known;
    let target: URL | undefined;
    try {
      target = new URL(url);
    } catch {
      target = undefined;
    }
    if (!target) known = { refused: 'invalid URL' };
    else if (target.protocol !== 'https:') known = { refused: 'the URL is not HTTPS' };
    else {
      const host = target.hostname.replace(/^\[|\]$/g, '');
      known = {
        request: urlToHttpOptions(target),
        port: Number(target.port || 443),
        loopback: isLoopbackHost(host),
        literalRefused: net.isIP(host) ? hostRefusal(host, [], this.options.allowCidrs) : undefined,
      };
    }
    if (this.destinations.size >= 1_000) this.destinations.clear();
    this.destinations.set(url, known);
    return known;
  }

  private readonly destinations = new Map<string, Destination>();

  async post(url: string, headers: Record<string, string>, body: string, to?: SendTarget): Promise<SendResult> {
    const started = process.hrtime.bigint();
    const elapsed = () => Math.round(Number(process.hrtime.bigint() - started) / 1e6);
    const fail = (error: string, statusCode: number | null = null, excerpt = ''): SendResult => ({
      ok: false,
      statusCode,
      error,
      excerpt,
      durationMs: elapsed(),
    });
    const target = this.destination(url);
    if (!target.request) return fail(target.refused!);
    // the endpoint of a running `payplane webhooks listen` of this home, on its port: that listener alone (pinned);
    // any other loopback URL is refused before a connection, as every private address is
    const listener = to && target.loopback ? this.listenerAgent(to.endpointId, target.port!) : undefined;
    if (!listener && target.literalRefused) return fail(target.literalRefused);
    return new Promise<SendResult>((resolve) => {
      let settled = false;
      const finish = (result: SendResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const request = https.request(
        {
          ...target.request,
          method: 'POST',
          agent: listener ?? this.agent,
          lookup: listener ? this.loopbackOnlyLookup : this.lookup,
          headers: { ...headers, 'content-length': Buffer.byteLength(body).toString() },
        },
        (response) => {
          const chunks: Buffer[] = [];
          let kept = 0;
          response.on('data', (chunk: Buffer) => {
            if (kept < EXCERPT_BYTES) {
              chunks.push(chunk);
              kept += chunk.length;
            }
          });
          response.on('end', () => {
            const status = response.statusCode ?? 0;
            const excerpt = Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8');
            if (status >= 200 && status < 300) finish({ ok: true, statusCode: status, error: null, excerpt, durationMs: elapsed() });
            else if (status >= 300 && status < 400) finish(fail(`redirect (${status}) not followed`, status, excerpt));
            else finish(fail(`HTTP ${status}`, status, excerpt));
          });
          response.on('error', (e) => finish(fail(`response error: ${e.message}`, response.statusCode ?? null)));
        },
      );
      const timer = setTimeout(() => {
        finish(fail(`no answer within ${this.timeoutMs / 1000} s`));
        request.destroy();
      }, this.timeoutMs);
      request.on('error', (e: NodeJS.ErrnoException) =>
        finish(fail(e.code === 'EADDRNOTALLOWED' ? e.message : `${e.code ?? 'error'}: ${e.message}`)),
      );
      request.end(body);
    });
  }

  /**
   * The agent for a running local listener's endpoint: it trusts the certificate that listener presents and nothing
   * else, and checks its SHA-256 fingerprint too; undefined when no listener of this home runs for the endpoint on
   * that port. One agent a certificate (a listener renewed later gets its own; the old one's sockets finish).
   */
  private listenerAgent(endpointId: string, port: number): https.Agent | undefined {
    const home = this.options.listenerHome;
    if (home === undefined) return undefined;
    // most loopback deliveries have no listener of their own: one stat (no read, no exception thrown and caught) says so
    if (
      !fs.statSync(path.join(listenerDir(home), 'running', `${endpointId.replace(/[^0-9a-zA-Z-]/g, '')}.json`), { throwIfNoEntry: false })
    )
      return undefined;
    const running = runningListener(home, endpointId);
    if (!running || running.port !== port) return undefined;
    let agent = this.listenerAgents.get(running.cert);
    if (!agent) {
      let fingerprint: string;
      try {
        fingerprint = new crypto.X509Certificate(running.cert).fingerprint256;
      } catch {
        return undefined;
      }
      agent = new https.Agent({
        keepAlive: true,
        maxSockets: 16,
        secureContext: tls.createSecureContext({ ca: [running.cert] }),
        checkServerIdentity: (_host, cert) =>
          cert.fingerprint256 === fingerprint
            ? undefined
            : new Error('the receiver is not the `payplane webhooks listen` of this endpoint (certificate differs)'),
      });
      this.listenerAgents.set(running.cert, agent);
    }
    return agent;
  }

  /** the local listeners' agents, by the PEM certificate they pin */
  private readonly listenerAgents = new Map<string, https.Agent>();

  close(): void {
    this.agent.destroy();
    for (const agent of this.listenerAgents.values()) agent.destroy();
  }
}

/**
 * A lookup that resolves every address of a name and lets `choose` keep some of them (an array) or refuse the name
 * (a message: the connection fails with EADDRNOTALLOWED before it is made).
 */
export function checkedLookup(
  resolve: Resolver,
  choose: (hostname: string, addresses: dns.LookupAddress[]) => dns.LookupAddress[] | string,
): net.LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, (options as dns.LookupOptions).family as number | undefined).then(
      (addresses) => {
        const list = addresses.length ? choose(hostname, addresses) : `${hostname} has no address`;
        if (typeof list === 'string') return callback(Object.assign(new Error(list), { code: 'EADDRNOTALLOWED' }), '', 0);
        if ((options as dns.LookupAllOptions).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
        return callback(null, list[0].address, list[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}
