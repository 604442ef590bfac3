import crypto from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { LRUCache } from 'lru-cache';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Runtime } from '../runtime';
import type { Database } from '../db/database';
import { AuthenticationError, RateLimitError } from '../domain/errors';
import { UNVERIFIED_CREDENTIAL_CODES, bearerOf } from '../services/access/authenticate';
import { parseSecretKey } from '../services/api-keys/secrets';
import { parseClientSecret } from '../services/checkout/client-secret';
import { sharedCounter } from './rate-limit';

/** How long a credential that authenticated stays exempt from the failure limits (the store's own time). */
export const TRUSTED_CREDENTIAL_SECONDS = 86_400;
/** How long an attempt waits for attempts in flight (reservations, not failures, at the limit) before it is refused. */
const IN_FLIGHT_WAIT_MS = 2_000;
/** How long a process remembers, without asking the store, that a credential authenticated. */
const LOCAL_TRUST_MS = 10 * 60_000;

/** What one attempt presents: the credential (a bearer token, or the raw Authorization header of another form) and the client address. */
export interface Attempt {
  credential: string | undefined;
  /** the client address as Express resolved it under PAYPLANE_TRUST_PROXY (X-Forwarded-For only behind a trusted proxy) */
  ip: string;
}

/**
 * The failed-authentication throttle. Every failure that proves nothing genuine (UNVERIFIED_CREDENTIAL_CODES: a wrong
 * key, client secret or token signature, a malformed header) takes one point of two counters of the current window
 * (PAYPLANE_AUTH_FAILURE_WINDOW_SECONDS, fixed windows of the injected clock): the client address's (an IPv6 address
 * counts for its /64, a host's usual share) and the credential's identifier, the API key's public prefix or the
 * checkout session of a clientSecret (a JWT names none). Once either counter holds its limit
 * (PAYPLANE_AUTH_FAILURES_PER_ADDRESS, PAYPLANE_AUTH_FAILURES_PER_KEY), an attempt through it is refused with 429
 * AUTH_RATE_LIMITED and Retry-After (the end of the window) before the credential is looked up: a refused attempt
 * costs no key, session or user read. The counters live where the tenant rate limit's do (rate_limits on Postgres,
 * shared by every process on the database; memory on SQLite).
 *
 * One exception keeps a legitimate holder from being locked out by someone else's failures (an attacker who floods a
 * key's public prefix from rotating addresses, or shares a NAT address): a credential that authenticated within the
 * last TRUSTED_CREDENTIAL_SECONDS is still let through to verification, wherever it comes from; it is recognized by
 * its SHA-256 (the store keeps no secret), so only its holder presents it. A credential never used successfully (a
 * new key, a fresh token) waits for the end of the window, or a rotated key (a new prefix) works at once.
 *
 * An attempt reserves its point in each counter before its credential is verified (given back when it authenticates,
 * or is refused for a reason that is no guess): attempts in flight together are counted as they arrive, so a burst
 * of N bad attempts lets at most the limit through to verification, never the limit plus the burst. While only
 * attempts in flight (not failures) fill a counter, a new attempt waits for them (IN_FLIGHT_WAIT_MS) rather than be
 * refused: a burst of good credentials passes. A failure of ours (the identity provider's keys unreachable: 503) is
 * not the caller's and takes no point. The same throttle guards the
 * API, the hosted checkout pages' clientSecret and the `/metrics` bearer (PAYPLANE_METRICS_TOKEN).
 */
export interface AuthThrottle {
  guard<T>(rt: Pick<Runtime, 'config' | 'clock' | 'metrics'>, attempt: Attempt, authenticate: () => Promise<T>): Promise<T>;
}

const throttles = new WeakMap<Database, AuthThrottle>();

/** The throttle of a database's processes: one per Database, shared by the API and the hosted pages of this process. */
export function authThrottle(rt: Pick<Runtime, 'db'>): AuthThrottle {
  let throttle = throttles.get(rt.db);
  if (!throttle) {
    throttle = createAuthThrottle(rt.db);
    throttles.set(rt.db, throttle);
  }
  return throttle;
}

/** The counter key of a client address: an IPv4 address (IPv4-mapped IPv6 read as IPv4), or an IPv6 address's /64. */
export function addressKey(ip: string): string {
  try {
    const address = ipaddr.process(ip);
    if (address.kind() === 'ipv4') return address.toString();
    const parts = (address as ipaddr.IPv6).toNormalizedString().split(':').slice(0, 4);
    return `${parts.join(':')}::/64`;
  } catch {
    return ip || 'unknown';
  }
}

/** The identifier a credential names without being verified: an API key's public prefix, a clientSecret's session. */
export function credentialIdentifier(credential: string): string | undefined {
  if (credential.startsWith('sk_')) {
    const key = parseSecretKey(credential);
    return key ? `key:${key.prefix}` : undefined;
  }
  if (credential.startsWith('cs_')) {
    const secret = parseClientSecret(credential);
    return secret ? `session:${secret.sessionId}` : undefined;
  }
  return undefined;
}

interface Counter {
  key: string;
  limit: number;
  what: string;
}

function createAuthThrottle(db: Database): AuthThrottle {
  // one counter store per window length (its rows expire one window after their first point)
  const failureStores = new Map<number, RateLimiterAbstract>();
  const failures = (windowSeconds: number) => {
    let store = failureStores.get(windowSeconds);
    if (!store) {
      store = sharedCounter(db, 'authfail', windowSeconds);
      failureStores.set(windowSeconds, store);
    }
    return store;
  };
  const trustStore = sharedCounter(db, 'authok', TRUSTED_CREDENTIAL_SECONDS);
  /** credentials this process saw authenticate recently: they skip the counters altogether */
  const trustedHere = new LRUCache<string, true>({ max: 10_000, ttl: LOCAL_TRUST_MS });
  /** counters this process saw at their limit (their keys name their window): refused without asking the store */
  const full = new LRUCache<string, true>({ max: 10_000 });

  const digestOf = (credential: string) => crypto.createHash('sha256').update('payplane-auth-trust\0').update(credential).digest('hex');

  async function trusted(digest: string): Promise<boolean> {
    if (trustedHere.has(digest)) return true;
    const record = await trustStore.get(digest);
    return record !== null && record.consumedPoints > 0;
  }

  async function remember(digest: string): Promise<void> {
    if (trustedHere.has(digest)) return;
    await trustStore.consume(digest, 1);
    trustedHere.set(digest, true);
  }

  return {
    async guard<T>(rt: Pick<Runtime, 'config' | 'clock' | 'metrics'>, attempt: Attempt, authenticate: () => Promise<T>): Promise<T> {
      const { authFailuresPerAddress, authFailuresPerKey, authFailureWindowSeconds } = rt.config;
      // nothing presented: nothing guessed, nothing read
      if (attempt.credential === undefined || (!authFailuresPerAddress && !authFailuresPerKey)) return authenticate();
      const credential = bearerOf(attempt.credential) ?? attempt.credential;
      const digest = digestOf(credential);
      const windowMs = authFailureWindowSeconds * 1000;
      const now = rt.clock.now().getTime();
      const window = Math.floor(now / windowMs);
      const windowEnd = (window + 1) * windowMs;
      const identifier = credentialIdentifier(credential);
      const counters: Counter[] = [];
      if (authFailuresPerAddress)
        counters.push({ key: `a:${addressKey(attempt.ip)}:${window}`, limit: authFailuresPerAddress, what: 'this address' });
      if (authFailuresPerKey && identifier) {
        counters.push({
          key: `k:${identifier}:${window}`,
          limit: authFailuresPerKey,
          what: identifier.startsWith('key:') ? 'this API key' : 'this checkout session',
        });
      }
      const store = failures(authFailureWindowSeconds);

      const refuse = (over: Counter): never => {
        rt.metrics.rateLimited.inc();
        const retryAfter = Math.max(1, Math.ceil((windowEnd - now) / 1000));
        throw new RateLimitError(
          retryAfter,
          `Too many failed authentications from ${over.what} (${over.limit} in ${authFailureWindowSeconds} s); retry after ${retryAfter} s.`,
          'AUTH_RATE_LIMITED',
        );
      };

      // Two counts a counter: its failures (`key`), and its failures plus the attempts in flight (`r:key`, where each
      // attempt reserves its point before its credential is verified). A counter whose failures hold the limit refuses
      // (and this process remembers it is full); one whose reservations pass the limit while its failures do not has
      // attempts in flight that may yet succeed: the attempt gives its point back and waits for them (briefly), so
      // that a burst of good credentials is not refused for being at once, and a burst of bad ones lets at most the
      // limit through to verification.
      let reserved: Counter[] = [];
      const giveBack = async () => {
        const back = reserved;
        reserved = [];
        for (const counter of back) await store.reward(`r:${counter.key}`, 1);
      };
      /** reserves a point in each counter; the counter over its limit (nothing kept reserved), and whether its failures fill it */
      const reserve = async (): Promise<{ over: Counter; full: boolean } | undefined> => {
        for (const counter of counters) {
          if (full.has(counter.key)) {
            await giveBack();
            return { over: counter, full: true };
          }
          const points = (await store.consume(`r:${counter.key}`, 1)).consumedPoints;
          reserved.push(counter);
          if (points > counter.limit) {
            await giveBack();
            if (((await store.get(counter.key))?.consumedPoints ?? 0) < counter.limit) return { over: counter, full: false };
            full.set(counter.key, true);
            return { over: counter, full: true };
          }
        }
        return undefined;
      };

      if (!trustedHere.has(digest)) {
        let refusal = await reserve();
        if (refusal && !(await trusted(digest))) {
          const deadline = Date.now() + IN_FLIGHT_WAIT_MS;
          // backing off (10 ms doubling to 250 ms, jittered): a flood's waiters ask the shared store a few times each, not every 20 ms
          for (let pause = 10; refusal && !refusal.full && Date.now() < deadline; pause = Math.min(pause * 2, 250)) {
            await new Promise((resolve) => setTimeout(resolve, pause * (0.5 + Math.random())));
            refusal = await reserve();
          }
          if (refusal) refuse(refusal.over);
        }
      }

      let result: T;
      try {
        result = await authenticate();
      } catch (error) {
        if (error instanceof AuthenticationError && UNVERIFIED_CREDENTIAL_CODES.has(error.code)) {
          trustedHere.delete(digest);
          // a guess: one failure in each counter; its reservation stays (an attempt that reserved none takes one now)
          for (const counter of counters) {
            await store.consume(counter.key, 1);
            if (!reserved.includes(counter)) await store.consume(`r:${counter.key}`, 1);
          }
        } else {
          // refused for its state (revoked, expired, …), or not refused at all but failed on our side (the identity
          // provider's keys unreachable: 503, the database): no guess, no point
          if (error instanceof AuthenticationError) trustedHere.delete(digest);
          await giveBack();
        }
        throw error;
      }
      await giveBack();
      await remember(digest);
      return result;
    },
  };
}
