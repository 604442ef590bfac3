import type { Transaction } from 'sequelize';
import type { Clock } from './clock';
import type { Database } from '../db/database';
import type { Sealer } from '../util/encryption';
import type { AppConfig } from '../config';

import type { Level } from './level';

export type { Layer, Level } from './level';

export interface Actor {
  /** checkout_session: a customer (or agent) holding a checkout session's clientSecret */
  readonly type: 'api_key' | 'user' | 'system' | 'checkout_session';
  /** what records' createdBy, approvedBy, … hold: the user's or the key's id */
  readonly id: string;
  /** the operating-system account of an operator at the terminal (os:<name>), which audit entries name */
  readonly name?: string;
  /** makes sure the actor's record exists before it is written anywhere (the terminal's operator user, created on first use) */
  readonly provision?: (ctx: CallerContext) => Promise<void>;
}

/**
 * Everything a service needs to know about who is calling and where: scope (tenant, merchant, mode), the
 * actor, the open transaction and the clock. Services take this plus plain input; never req, res or oclif.
 */
export interface CallerContext {
  readonly db: Database;
  readonly clock: Clock;
  /** the process's configuration (storage folders and the like) */
  readonly config: AppConfig;
  /** encrypts and decrypts secrets kept at rest (webhook signing secrets) */
  readonly sealer: Sealer;
  readonly level: Level;
  /** null only for platform callers, who see every tenant. */
  readonly tenantId: string | null;
  /** set for merchant callers: they see their own merchant only. */
  readonly merchantId: string | null;
  /**
   * An operator whose entityScope names merchants sees (and writes) only records of those merchants; unset
   * means the whole tenant.
   */
  readonly merchantScope?: ReadonlySet<string>;
  readonly livemode: boolean;
  readonly actor: Actor;
  readonly permissions: ReadonlySet<string>;
  /** how the caller authenticated; secret-key callers are held to their own mode when issuing keys. */
  readonly credential: 'secret_key' | 'user_token' | 'cli' | 'system' | 'client_secret';
  /**
   * Set for client_secret callers: the one checkout session the secret belongs to; any other session is 404 to
   * them, and only operations declared with sessionSecretAuth accept them.
   */
  readonly checkoutSessionId?: string;
  /** scheme, host and port the request came to (https://pay.example.com), for URLs the answer links back to */
  readonly origin?: string;
  /** the client's address as the server trusts it (X-Forwarded-For only from configured proxies); risk checks the customer's */
  readonly clientIp?: string;
  readonly transaction?: Transaction;
  readonly requestId?: string;
}

/**
 * Contexts are read-only: src/domain/authority.ts makes them and changes their scope; these setters give one the
 * open transaction (or none: work that must run outside it, such as a provider call) and the request's details.
 */
export function withTransaction(ctx: CallerContext, transaction: Transaction | undefined): CallerContext {
  return { ...ctx, transaction };
}

/** The request a context serves: the origin it came to and the client's address (set by the HTTP layer). */
export function withRequest(ctx: CallerContext, request: Pick<CallerContext, 'origin' | 'clientIp'>): CallerContext {
  return { ...ctx, ...request };
}

/** Runs fn in one database transaction (reusing the caller's if one is open). */
export async function inTransaction<T>(ctx: CallerContext, fn: (ctx: CallerContext) => Promise<T>): Promise<T> {
  if (ctx.transaction) {
    await ctx.actor.provision?.(ctx);
    return fn(ctx);
  }
  return ctx.db.transaction(async (t) => {
    const tx = withTransaction(ctx, t);
    await ctx.actor.provision?.(tx);
    return fn(tx);
  });
}
