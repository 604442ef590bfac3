import type { CallerContext } from '../domain/context';
import type { Sealer } from '../util/encryption';
import crypto from 'node:crypto';
import type { Transaction } from 'sequelize';
import type { Database } from '../db/database';
import { isUniqueViolation } from '../db/database';
import type { IdempotencyRow } from '../db/models';
import type { Clock } from '../domain/clock';
import { ConflictError, ValidationError } from '../domain/errors';

/** How long a claimed key stays with its first request before another may take it over (a crashed worker). */
const LOCK_MS = 60_000;
/** How long a concurrent duplicate waits for the first request to finish before answering 409. */
const WAIT_MS = 15_000;

export interface IdempotentRequest {
  /** tenant, merchant and mode of the caller: keys of different callers never collide */
  scope: string;
  key: string;
  method: string;
  path: string;
  body: unknown;
}

export type Claim =
  | { kind: 'owner'; id: string; owner: string }
  /** a completed first request; `sameRequest` is false when its method, path or body differed */
  | { kind: 'replay'; status: number; body: unknown; sameRequest: boolean };

export function validateIdempotencyKey(key: string): void {
  if (key.length < 1 || key.length > 128) {
    throw ValidationError.field('header.Idempotency-Key', 'must be 1 to 128 characters', 'INVALID_IDEMPOTENCY_KEY');
  }
}

export function fingerprint(method: string, path: string, body: unknown): string {
  return crypto.createHash('sha256').update(`${method} ${path}\n${canonicalJson(body ?? null)}`).digest('hex');
}

/** Whose keys a key belongs to: the caller's tenant and merchant (or platform user) in its mode; a checkout session's secret holder has its own. */
export function idempotencyScope(ctx: CallerContext): string {
  const owner = ctx.level === 'platform' ? `platform/${ctx.actor.id}` : `${ctx.tenantId}/${ctx.merchantId ?? '-'}`;
  // a session's clientSecret holder (the customer) never shares keys with the merchant
  if (ctx.credential === 'client_secret') return `${owner}/cs:${ctx.checkoutSessionId}:${ctx.livemode ? 'live' : 'test'}`;
  return `${owner}:${ctx.livemode ? 'live' : 'test'}`;
}

/**
 * What the idempotency record keeps of a request body: a keyed digest (HMAC under a key derived from the master key),
 * so a stored fingerprint of a body holding card data cannot be brute-forced back to it.
 */
export function bodyFingerprint(sealer: Pick<Sealer, 'mac'>, body: unknown): string {
  return sealer.mac('idempotency-body', canonicalJson(body ?? null));
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Claims the key for this request, or hands back the first request's stored response. A duplicate that arrives
 * while the first is still running waits for it; one with another body while it runs is refused with 409.
 */
export async function claimIdempotencyKey(db: Database, clock: Clock, request: IdempotentRequest): Promise<Claim> {
  const { Idempotency } = db.models;
  const print = fingerprint(request.method, request.path, request.body);
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const now = clock.now();
    const id = crypto.randomUUID();
    const owner = crypto.randomUUID();
    try {
      await db.transaction((transaction) =>
        Idempotency.create(
          {
            id, scope: request.scope, key: request.key, method: request.method, path: request.path, fingerprint: print,
            state: 'in_progress', owner, responseStatus: null, responseBody: null,
            lockedUntil: new Date(now.getTime() + LOCK_MS), createdAt: now, updatedAt: now,
          },
          { transaction },
        ),
      );
      return { kind: 'owner', id, owner };
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    const found = await Idempotency.findOne({ where: { scope: request.scope, key: request.key } });
    if (!found) continue; // released between our insert and read: try again
    const existing = found.get({ plain: true }) as IdempotencyRow;
    if (existing.state === 'completed') {
      return { kind: 'replay', status: existing.responseStatus!, body: existing.responseBody, sameRequest: existing.fingerprint === print };
    }
    if (existing.fingerprint !== print) throw reused();
    if (existing.lockedUntil && new Date(existing.lockedUntil).getTime() <= now.getTime()) {
      // The first request's worker is gone (its lease was not renewed): take the key over, one taker wins.
      const [taken] = await db.transaction((transaction) =>
        Idempotency.update(
          { owner, lockedUntil: new Date(now.getTime() + LOCK_MS), updatedAt: now },
          { where: { id: existing.id, state: 'in_progress', owner: existing.owner }, transaction },
        ),
      );
      if (taken === 1) return { kind: 'owner', id: existing.id, owner };
    }
    if (Date.now() > deadline) {
      throw new ConflictError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still being processed.', {
        hint: 'Retry the same request later.',
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export function reused(): ConflictError {
  return new ConflictError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with a different request (method, path or body).', {
    hint: 'Use a new Idempotency-Key for a different request.',
  });
}

/** Keeps the claim alive while its request runs (a request longer than the lease must not be taken over). */
export function renewWhileRunning(db: Database, clock: Clock, claim: { id: string; owner: string }): () => void {
  const timer = setInterval(() => {
    db.models.Idempotency.update(
      { lockedUntil: new Date(clock.now().getTime() + LOCK_MS) },
      { where: { id: claim.id, owner: claim.owner, state: 'in_progress' } },
    ).catch(() => undefined);
  }, LOCK_MS / 3);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Stores the response in the request's own transaction, so the effect and its replay commit together. Throws
 * (rolling the effect back) when another request took the key over meanwhile.
 */
export async function completeIdempotencyKey(
  db: Database, clock: Clock, claim: { id: string; owner: string }, status: number, body: unknown, transaction?: Transaction,
): Promise<void> {
  const [updated] = await db.models.Idempotency.update(
    { state: 'completed', responseStatus: status, responseBody: body, lockedUntil: null, updatedAt: clock.now() },
    { where: { id: claim.id, owner: claim.owner, state: 'in_progress' }, transaction },
  );
  if (updated !== 1) throw new ConflictError('IDEMPOTENCY_KEY_IN_USE', 'Another request took over this Idempotency-Key; this one was rolled back.');
}

/** Frees the key after a failed request (nothing was committed), so the client may retry with it. */
export async function releaseIdempotencyKey(db: Database, claim: { id: string; owner: string }): Promise<void> {
  await db.transaction((transaction) => db.models.Idempotency.destroy({ where: { id: claim.id, owner: claim.owner, state: 'in_progress' }, transaction }));
}
