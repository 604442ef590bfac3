import type { Response } from 'express';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Runtime } from '../runtime';
import type { CallerContext } from '../domain/context';
import { RateLimitError } from '../domain/errors';
import { tenantAccess } from '../services/auth';

const WINDOW_SECONDS = 60;

/**
 * The per-tenant request rate limit: every authenticated request of a tenant's callers (its keys, users, merchants
 * and checkout sessions; platform callers are not limited) takes one point of the tenant's doorRateLimitPerMinute in
 * a fixed window of 60 s. Postgres keeps the counters in rate_limits, shared by every process on the database;
 * SQLite counts in this process's memory. Each answer carries RateLimit-Limit, -Remaining, -Reset and -Policy;
 * a request over the limit is 429 RATE_LIMITED with Retry-After.
 */
export function tenantRateLimiter(rt: Runtime): (ctx: CallerContext, res: Response) => Promise<void> {
  // one limiter per distinct limit; they share the key prefix, so a changed limit applies to the running window
  const limiters = new Map<number, RateLimiterAbstract>();
  const limiterFor = (points: number): RateLimiterAbstract => {
    let limiter = limiters.get(points);
    if (!limiter) {
      const options = { keyPrefix: 'door', points, duration: WINDOW_SECONDS };
      limiter =
        rt.db.dialect === 'postgres'
          ? new RateLimiterPostgres({
              ...options, storeClient: rt.db.sequelize, storeType: 'sequelize', tableName: 'rate_limits', tableCreated: true,
              // the database unreachable for the counter: count in memory rather than refuse or wave everything through
              insuranceLimiter: new RateLimiterMemory(options),
            })
          : new RateLimiterMemory(options);
      limiters.set(points, limiter);
    }
    return limiter;
  };

  return async (ctx, res) => {
    if (!ctx.tenantId) return;
    const limit = (await tenantAccess(rt, ctx.tenantId)).doorRateLimitPerMinute;
    if (!limit || limit <= 0) return;
    let result: RateLimiterRes;
    let refused = false;
    try {
      result = await limiterFor(limit).consume(ctx.tenantId, 1);
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      result = error;
      refused = true;
    }
    const reset = Math.max(1, Math.ceil(result.msBeforeNext / 1000));
    res.set({
      'RateLimit-Limit': String(limit),
      'RateLimit-Remaining': String(Math.max(0, result.remainingPoints)),
      'RateLimit-Reset': String(reset),
      'RateLimit-Policy': `${limit};w=${WINDOW_SECONDS}`,
    });
    if (refused) {
      rt.metrics.rateLimited.inc();
      throw new RateLimitError(reset, `The tenant's limit of ${limit} requests per minute is used up; retry after ${reset} s.`);
    }
  };
}
