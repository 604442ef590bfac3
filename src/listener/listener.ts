import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { Webhook } from 'standardwebhooks';
import type { CallerContext } from '../domain/context';
import { listenRefusal } from '../domain/listen';
import { scoped } from '../db/scoped';
import { writePrivateFile } from '../util/paths';
import { createEndpoint, signingSecrets, toEndpoint, updateEndpoint, type WebhookEndpoint } from '../services/webhooks/endpoints';
import { validateSubscription } from '../services/webhooks/catalog';
import { identityFile } from './registry';

/**
 * `payplane webhooks listen`: a receiver on this machine for a developer's sandbox. It keeps one endpoint per
 * level and port (found again by its URL and this description, so its signing secret survives restarts), receives
 * its deliveries over HTTPS with a certificate of its own that the dispatcher pins (see WebhookTransport), verifies
 * every signature with the Standard Webhooks library, and may forward each delivery to the developer's app.
 */
export const LISTENER_DESCRIPTION = 'payplane webhooks listen';
const RENEW_BEFORE_MS = 7 * 86_400_000;
/** shorter than the dispatcher's 10 s: the app's answer reaches the dispatcher before it gives up */
const FORWARD_TIMEOUT_MS = 8_000;
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface ListenerCertificate {
  cert: string;
  key: string;
  fingerprint256: string;
  validTo: Date;
}

/**
 * This home's listener identity (<home>/webhook-listener/identity.pem, 0600: the key and the certificate in one file,
 * replaced whole, so that two listeners starting at once never leave a key with the other's certificate): an EC
 * P-256 key, a certificate for localhost, 127.0.0.1 and ::1, valid a year; made once, renewed when it ends within a
 * week. A running listener keeps presenting the certificate it started with (and announces that one).
 */
export async function ensureListenerCertificate(home: string, now: Date): Promise<ListenerCertificate> {
  const file = identityFile(home);
  try {
    const pem = fs.readFileSync(file, 'utf8');
    const key = /-----BEGIN PRIVATE KEY-----[\s\S]+?-----END PRIVATE KEY-----\n?/.exec(pem)?.[0];
    const cert = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/.exec(pem)?.[0];
    if (key && cert) {
      const x509 = new crypto.X509Certificate(cert);
      const validTo = new Date(x509.validTo);
      if (validTo.getTime() - now.getTime() > RENEW_BEFORE_MS && x509.checkPrivateKey(crypto.createPrivateKey(key))) {
        return { cert, key, fingerprint256: x509.fingerprint256, validTo };
      }
    }
  } catch {
    // none yet, unreadable or not a pair: make a new one
  }
  const selfsigned = await import('selfsigned');
  const pems = await selfsigned.generate([{ name: 'commonName', value: 'payplane webhooks listen' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now.getTime() - 60_000),
    notAfterDate: new Date(now.getTime() + 365 * 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  writePrivateFile(file, `${pems.private.trim()}\n${pems.cert.trim()}\n`);
  const x509 = new crypto.X509Certificate(pems.cert);
  return { cert: pems.cert, key: pems.private, fingerprint256: x509.fingerprint256, validTo: new Date(x509.validTo) };
}

/** The URL the listener's endpoint is registered with. */
export function listenerUrl(port: number): string {
  return `https://localhost:${port}/`;
}

export interface OpenedListenerEndpoint {
  endpoint: WebhookEndpoint;
  /** the secrets its deliveries are signed with (the current one first) */
  secrets: string[];
  created: boolean;
}

/**
 * The listener's endpoint at the caller's level: the one this listener registered before (same URL and
 * description; enabled again, its events set), else a new one. Its signing secret stays the same across runs.
 */
export async function openListenerEndpoint(ctx: CallerContext, input: { port: number; events: string[] }): Promise<OpenedListenerEndpoint> {
  const url = listenerUrl(input.port);
  const events = validateSubscription(ctx.level, input.events, '--event');
  const existing = await scoped(ctx, ctx.db.models.WebhookEndpoint).findOne({ level: ctx.level, url, description: LISTENER_DESCRIPTION });
  if (!existing) {
    const created = await createEndpoint(ctx, { url, events, description: LISTENER_DESCRIPTION }, { localListener: true });
    const { secret, ...endpoint } = created;
    return { endpoint, secrets: [secret], created: true };
  }
  const sameEvents = existing.events.length === events.length && existing.events.every((e, i) => e === events[i]);
  const endpoint =
    existing.status === 'enabled' && sameEvents
      ? toEndpoint(existing)
      : await updateEndpoint(ctx, existing.id, { status: 'enabled', events });
  return { endpoint, secrets: signingSecrets(ctx, existing, ctx.clock.now()), created: false };
}

/** Disables the listener's endpoint when it stops: no deliveries queue up for a receiver that is gone. */
export async function closeListenerEndpoint(ctx: CallerContext, id: string): Promise<WebhookEndpoint> {
  return updateEndpoint(ctx, id, { status: 'disabled' });
}

export interface ReceivedDelivery {
  at: Date;
  webhookId: string;
  /** the events of the delivery ({ events: [event] }) */
  events: Array<{ id: string; type: string; livemode?: boolean }>;
  verified: boolean;
  /** why the signature was refused */
  error?: string;
  /** what the listener answered the dispatcher with */
  status: number;
  /** the app's answer when forwarding (status, or the failure) */
  forwarded?: { status: number | null; error?: string };
}

export interface LocalListenerOptions {
  port: number;
  certificate: ListenerCertificate;
  /** the endpoint's signing secrets, asked for each delivery (a rotation while listening is followed) */
  secrets: () => Promise<string[]>;
  /** an http(s) URL of the developer's app: each verified delivery is posted to it with its headers */
  forwardTo?: string;
  onDelivery: (delivery: ReceivedDelivery) => void;
}

/**
 * The HTTPS receiver on 127.0.0.1: verifies each delivery's signature (any of the endpoint's current secrets),
 * answers 400 when it does not verify; else forwards it when asked (the app's status is the answer, 502 when it
 * cannot be reached) or answers 200.
 */
export class LocalListener {
  private server: https.Server | undefined;

  constructor(private readonly options: LocalListenerOptions) {}

  async start(): Promise<this> {
    const { cert, key } = this.options.certificate;
    this.server = https.createServer({ cert, key }, (req, res) => {
      this.handle(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', (error: NodeJS.ErrnoException) => {
        this.server = undefined;
        // one line naming the port, exit 8 as serve's (src/domain/listen.ts)
        reject(
          listenRefusal(
            error,
            this.options.port,
            '127.0.0.1',
            'another `payplane webhooks listen` may be running: stop it, or pass another --port',
          ),
        );
      });
      this.server!.listen(this.options.port, '127.0.0.1', () => resolve());
    });
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const answer = (status: number, body: string) => {
      if (!res.headersSent) res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(body);
    };
    if (req.method !== 'POST') return answer(405, 'POST webhook deliveries here');
    const raw = await readBody(req).catch(() => undefined);
    if (raw === undefined) return answer(413, 'body too large');
    const headers = Object.fromEntries(
      ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, String(req.headers[h] ?? '')]),
    );
    const delivery: ReceivedDelivery = {
      at: new Date(),
      webhookId: headers['webhook-id'],
      events: eventsOf(raw),
      verified: false,
      status: 400,
    };
    const refusal = await this.verify(raw, headers);
    if (refusal) {
      delivery.error = refusal;
      answer(400, `signature not verified: ${refusal}`);
      return this.options.onDelivery(delivery);
    }
    delivery.verified = true;
    if (this.options.forwardTo) {
      delivery.forwarded = await forward(this.options.forwardTo, raw, req.headers);
      delivery.status = delivery.forwarded.status ?? 502;
      answer(delivery.status, delivery.forwarded.error ?? 'forwarded');
    } else {
      delivery.status = 200;
      answer(200, 'verified');
    }
    this.options.onDelivery(delivery);
  }

  /** Undefined when one of the secrets verifies the delivery, else why none did. */
  private async verify(raw: string, headers: Record<string, string>): Promise<string | undefined> {
    let reason = 'no signing secret';
    for (const secret of await this.options.secrets()) {
      try {
        new Webhook(secret).verify(raw, headers);
        return undefined;
      } catch (error) {
        reason = (error as Error).message;
      }
    }
    return reason;
  }
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.removeAllListeners('data');
        req.resume();
        reject(new Error('too large'));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** What a body says, fit to print on a terminal (a body may be anyone's until it is verified): no control characters. */
function printable(value: string): string {
  return value.replace(/[^\w.*:-]/g, '?').slice(0, 100);
}

function eventsOf(raw: string): ReceivedDelivery['events'] {
  try {
    const body = JSON.parse(raw) as { events?: unknown };
    if (!Array.isArray(body.events)) return [];
    return body.events
      .filter(
        (e): e is { id: string; type: string; livemode?: boolean } =>
          typeof e === 'object' && e !== null && typeof (e as { type?: unknown }).type === 'string',
      )
      .map((e) => ({ id: printable(String(e.id)), type: printable(e.type), livemode: e.livemode }));
  } catch {
    return [];
  }
}

const FORWARDED_HEADERS = ['content-type', 'user-agent', 'webhook-id', 'webhook-timestamp', 'webhook-signature'];

/** Posts the delivery as received (body and Standard Webhooks headers) to the developer's app. */
async function forward(url: string, raw: string, headers: http.IncomingHttpHeaders): Promise<{ status: number | null; error?: string }> {
  const sent: Record<string, string> = {};
  for (const name of FORWARDED_HEADERS) if (headers[name] !== undefined) sent[name] = String(headers[name]);
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: sent,
      body: raw,
      redirect: 'manual',
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    await response.arrayBuffer().catch(() => undefined);
    return { status: response.status };
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return { status: null, error: `${url}: ${cause?.code ?? cause?.message ?? (error as Error).message}` };
  }
}
