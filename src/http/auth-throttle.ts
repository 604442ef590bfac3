import crypto from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { LRUCache } from 'lru-cache';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Runtime } from '../runtime';
import type { Database } from '../db/database';
import { AuthenticationError, RateLimitError } from '../domain/errors';
import { UNVERIFIED_CREDENTIAL_CODES, bearerOf } from '../services/access/authenticate';
import { parseSecretKey } from '../services/api-keys/secrets';
import { parseClientSecret } from '../services/checkout';
import { sharedCounter } from './rate-limit';

/** How long a credential that authenticated stays exempt from the failure limits (the store's own time). */
export const TRUSTED_CREDENTIAL_SECONDS = 86_400;
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
 * new key, a fresh token) waits for the end of the window, or a rotated key (a new prefix) works at once. Failures
 * are counted after they happen, so attempts in flight together at the limit may pass it by their number.
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
      if (authFailuresPerAddress) counters.push({ key: `a:${addressKey(attempt.ip)}:${window}`, limit: authFailuresPerAddress, what: 'this address' });
      if (authFailuresPerKey && identifier) {
        counters.push({ key: `k:${identifier}:${window}`, limit: authFailuresPerKey, what: identifier.startsWith('key:') ? 'this API key' : 'this checkout session' });
      }
      const store = failures(authFailureWindowSeconds);

      if (!trustedHere.has(digest)) {
        let over: Counter | undefined;
        for (const counter of counters) {
          if (full.has(counter.key)) over = counter;
          else if (((await store.get(counter.key))?.consumedPoints ?? 0) >= counter.limit) {
            full.set(counter.key, true);
            over = counter;
          }
          if (over) break;
        }
        if (over && !(await trusted(digest))) {
          rt.metrics.rateLimited.inc();
          const retryAfter = Math.max(1, Math.ceil((windowEnd - now) / 1000));
          throw new RateLimitError(
            retryAfter,
            `Too many failed authentications from ${over.what} (${over.limit} in ${authFailureWindowSeconds} s); retry after ${retryAfter} s.`,
            'AUTH_RATE_LIMITED',
          );
        }
      }

      let result: T;
      try {
        result = await authenticate();
      } catch (error) {
        if (error instanceof AuthenticationError) {
          trustedHere.delete(digest);
          if (UNVERIFIED_CREDENTIAL_CODES.has(error.code)) {
            for (const counter of counters) await store.consume(counter.key, 1);
          }
        }
        throw error;
      }
      await remember(digest);
      return result;
    },
  };
}
