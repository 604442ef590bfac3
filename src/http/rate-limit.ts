import type { Response } from 'express';
import type {
  RateLimiterMemory as Memory,
  RateLimiterPostgres as Postgres,
  RateLimiterRes,
  RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { Runtime } from '../runtime';
import type { Database } from '../db/database';
import type { CallerContext } from '../domain/context';
import { RateLimitError } from '../domain/errors';
import { tenantAccess } from '../services/access/authenticate';

const WINDOW_SECONDS = 60;
/** Requests a minute of one checkout session's clientSecret (the customer's browser) */
export const SESSION_RATE_LIMIT_PER_MINUTE = 60;

/**
 * The per-tenant request rate limit: every authenticated request of a tenant's callers (its keys, users and its
 * merchants' keys; platform callers are not limited) takes one point of the tenant's doorRateLimitPerMinute in a fixed
 * window of 60 s. A checkout session's clientSecret, held by a customer's browser, has a counter of its own
 * (SESSION_RATE_LIMIT_PER_MINUTE), so that no customer can use up the tenant's limit. Postgres keeps the counters in rate_limits, shared by every process on the database;
 * SQLite counts in this process's memory. Each answer carries RateLimit-Limit, -Remaining, -Reset and -Policy;
 * a request over the limit is 429 RATE_LIMITED with Retry-After.
 */
export function tenantRateLimiter(rt: Runtime): (ctx: CallerContext, res: Response) => Promise<void> {
  // One counter per tenant and window whatever its limit: the limiter never refuses by itself (its points are out of
  // reach); the tenant's limit is compared here with the points consumed, so a changed limit applies to the running
  // window on both stores (a limiter per limit would start a fresh count in memory).
  const limiter = sharedCounter(rt.db, 'door', WINDOW_SECONDS);

  return async (ctx, res) => {
    if (!ctx.tenantId) return;
    const session = ctx.credential === 'client_secret' ? ctx.checkoutSessionId : undefined;
    const limit = session ? SESSION_RATE_LIMIT_PER_MINUTE : (await tenantAccess(rt, ctx.tenantId)).doorRateLimitPerMinute;
    if (!limit || limit <= 0) return;
    const result: RateLimiterRes = await limiter.consume(session ? `session:${session}` : ctx.tenantId, 1);
    const refused = result.consumedPoints > limit;
    const reset = Math.max(1, Math.ceil(result.msBeforeNext / 1000));
    res.set({
      'RateLimit-Limit': String(limit),
      'RateLimit-Remaining': String(Math.max(0, limit - result.consumedPoints)),
      'RateLimit-Reset': String(reset),
      'RateLimit-Policy': `${limit};w=${WINDOW_SECONDS}`,
    });
    if (refused) {
      rt.metrics.rateLimited.inc();
      const whose = session ? "checkout session's" : "tenant's";
      throw new RateLimitError(reset, `The ${whose} limit of ${limit} requests per minute is used up; retry after ${reset} s.`);
    }
  };
}

/**
 * A counter store that never refuses by itself (its points are out of reach: callers compare the points consumed with
 * their own limit): on Postgres rows of rate_limits, shared by every process on the database, with a count in memory
 * while the database is unreachable; on SQLite this process's memory. A key's count starts again `durationSeconds`
 * after its first point (the store's own time).
 */
export function sharedCounter(db: Database, keyPrefix: string, durationSeconds: number): RateLimiterAbstract {
  // the two stores by their own files: the package's index loads every store it has (Redis, Mongo, DynamoDB, …)
  const RateLimiterMemory = require('rate-limiter-flexible/lib/RateLimiterMemory') as typeof Memory;
  const options = { keyPrefix, points: Number.MAX_SAFE_INTEGER, duration: durationSeconds };
  return db.dialect === 'postgres'
    ? new (require('rate-limiter-flexible/lib/RateLimiterPostgres') as typeof Postgres)({
        ...options,
        storeClient: db.sequelize,
        storeType: 'sequelize',
        tableName: 'rate_limits',
        tableCreated: true,
        // the database unreachable for the counter: count in memory rather than refuse or wave everything through
        insuranceLimiter: new RateLimiterMemory(options),
      })
    : new RateLimiterMemory(options);
}
