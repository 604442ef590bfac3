import { withTransaction, type CallerContext } from '../domain/context';
import type { Sealer } from '../util/encryption';
import crypto from 'node:crypto';
import type { Transaction } from 'sequelize';
import type { Database } from '../db/database';
import { isUniqueViolation } from '../db/database';
import type { IdempotencyRow } from '../db/models';
import type { Clock } from '../domain/clock';
import { ConflictError, ValidationError } from '../domain/errors';

/**
 * The Idempotency-Key rule of operations.md, in one place: runIdempotent. The API (src/http/pipeline.ts) runs every
 * POST through it and the CLI its commands that take --idempotency-key, so both doors share one record per caller's
 * key and replay each other's answers.
 */

/** How long a claimed key stays with its first request before another may take it over (a crashed worker). */
const LOCK_MS = 60_000;
/** How long a concurrent duplicate waits for the first request to finish before answering 409. */
const WAIT_MS = 15_000;

/** A request as its Idempotency-Key knows it: the same whichever door (the API, the CLI) it comes through. */
export interface IdempotentRequest {
  /** the operation asked for: its operationId (createRefund) */
  operation: string;
  /** what it is asked of: the operation's path parameters ({ id }) */
  target?: Record<string, unknown>;
  /** its input (the body as sent); only a keyed digest of it is kept */
  input: unknown;
  /** the operation opens its own transactions (it calls a provider between two): its answer is kept once it returned */
  ownTransactions?: boolean;
}

/** How a first answer is kept and turned back into the answer of a replay (by default: sealed whole). */
export interface Keeping<R, P> {
  store(result: R): unknown;
  replay(stored: unknown): P;
}

export interface IdempotentCall<R, P> extends IdempotentRequest {
  /** the caller's key; without one the operation simply runs */
  key: string | undefined;
  /** how the caller names the key, for a key of the wrong length (header.Idempotency-Key, --idempotency-key) */
  keyField: string;
  /** a reused key replays whatever the input (the specification's rule for issuing API keys) */
  anyInput?: boolean;
  keeping?: Keeping<R, P>;
  /** told when a failed request's key could not be freed (it is taken over once its lock runs out) */
  onReleaseFailure?: (error: unknown) => void;
}

export type IdempotentOutcome<R, P> = { replayed: false; result: R } | { replayed: true; replay: P };

/**
 * Runs an operation under its caller's Idempotency-Key. The first request with a key runs it and keeps its answer;
 * the same key with the same request (operation, target, input) replays that answer; with another request it is 409
 * IDEMPOTENCY_KEY_REUSED; a duplicate that arrives while the first runs waits for it, then 409
 * IDEMPOTENCY_KEY_IN_USE. Keys are the caller's own (idempotencyScope: tenant, merchant, mode). A claim whose worker
 * died is taken over once its lock runs out. The operation and its kept answer commit in one transaction, unless it
 * opens its own (ownTransactions), when the answer is kept once it returned; a failed operation frees its key.
 * Without a key the operation runs the same way, once.
 */
export async function runIdempotent<R, P = R>(
  ctx: CallerContext, call: IdempotentCall<R, P>, fn: (ctx: CallerContext) => Promise<R>,
): Promise<IdempotentOutcome<R, P>> {
  const { db, clock } = ctx;
  if (call.key === undefined) {
    const result = call.ownTransactions ? await fn(ctx) : await db.transaction((transaction) => fn(withTransaction(ctx, transaction)));
    return { replayed: false, result };
  }
  validateIdempotencyKey(call.key, call.keyField);
  const keeping = call.keeping ?? (sealedWhole(ctx) as Keeping<unknown, unknown> as Keeping<R, P>);
  const claim = await claimIdempotencyKey(db, clock, {
    scope: idempotencyScope(ctx), key: call.key, method: call.operation, path: canonicalJson(call.target ?? {}),
    // the input is fingerprinted under a key of its own: a stored fingerprint of card data must not be brute-forceable
    body: bodyFingerprint(ctx.sealer, call.input),
  });
  if (claim.kind === 'replay') {
    if (!claim.sameRequest && !call.anyInput) throw reused();
    return { replayed: true, replay: keeping.replay(claim.body) };
  }
  const stopRenewing = renewWhileRunning(db, clock, claim);
  try {
    const keep = async (result: R, transaction: Transaction) => {
      await completeIdempotencyKey(db, clock, claim, null, keeping.store(result), transaction);
      return result;
    };
    const result = call.ownTransactions
      ? await fn(ctx).then((done) => db.transaction((transaction) => keep(done, transaction)))
      : await db.transaction(async (transaction) => keep(await fn(withTransaction(ctx, transaction)), transaction));
    return { replayed: false, result };
  } catch (error) {
    await releaseIdempotencyKey(db, claim).catch((e) => call.onReleaseFailure?.(e));
    throw error;
  } finally {
    stopRenewing();
  }
}

/** The default keeping: the first answer sealed whole (it may hold a secret shown once, a webhook signing secret). */
function sealedWhole(ctx: CallerContext): Keeping<unknown, unknown> {
  return {
    store: (result) => ({ sealed: ctx.sealer.seal(JSON.stringify(result)) }),
    replay: (stored) => JSON.parse(ctx.sealer.open((stored as { sealed: string }).sealed)) as unknown,
  };
}

/**
 * The key as a record keeps it (a refund: its provider is called between two transactions, so the refund commits
 * before runIdempotent keeps the answer, and a retry after a crash in between must find it by the key instead of
 * refunding twice): a keyed digest of the caller's scope and key, and one of the input, so that another request
 * under the key is refused. The same scope and input digest as runIdempotent's.
 */
export function keptKey(ctx: CallerContext, record: string, key: string, input: unknown): { key: string; fingerprint: string } {
  return { key: ctx.sealer.mac(`${record}-idempotency-key`, `${idempotencyScope(ctx)}\n${key}`), fingerprint: bodyFingerprint(ctx.sealer, input) };
}

function validateIdempotencyKey(key: string, field: string): void {
  if (key.length < 1 || key.length > 128) throw ValidationError.field(field, 'must be 1 to 128 characters', 'INVALID_IDEMPOTENCY_KEY');
}

/** What a claim is made with: `method` holds the operation asked for and `path` what it is asked of (its target). */
export interface ClaimRequest {
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
  | { kind: 'replay'; status: number | null; body: unknown; sameRequest: boolean };

export function fingerprint(method: string, path: string, body: unknown): string {
  return crypto.createHash('sha256').update(`${method} ${path}\n${canonicalJson(body ?? null)}`).digest('hex');
}

/** Whose keys a key belongs to: the caller's tenant and merchant (or platform user) in its mode; a checkout session's secret holder has its own. */
function idempotencyScope(ctx: CallerContext): string {
  const owner = ctx.level === 'platform' ? `platform/${ctx.actor.id}` : `${ctx.tenantId}/${ctx.merchantId ?? '-'}`;
  // a session's clientSecret holder (the customer) never shares keys with the merchant
  if (ctx.credential === 'client_secret') return `${owner}/cs:${ctx.checkoutSessionId}:${ctx.livemode ? 'live' : 'test'}`;
  return `${owner}:${ctx.livemode ? 'live' : 'test'}`;
}

/**
 * What the idempotency record keeps of a request body: a keyed digest (HMAC under a key derived from the master key),
 * so a stored fingerprint of a body holding card data cannot be brute-forced back to it.
 */
function bodyFingerprint(sealer: Pick<Sealer, 'mac'>, body: unknown): string {
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
export async function claimIdempotencyKey(db: Database, clock: Clock, request: ClaimRequest): Promise<Claim> {
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
      return { kind: 'replay', status: existing.responseStatus, body: existing.responseBody, sameRequest: existing.fingerprint === print };
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

function reused(): ConflictError {
  return new ConflictError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with a different request (method, path or body).', {
    hint: 'Use a new Idempotency-Key for a different request.',
  });
}

/** Keeps the claim alive while its request runs (a request longer than the lease must not be taken over). */
function renewWhileRunning(db: Database, clock: Clock, claim: { id: string; owner: string }): () => void {
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
  db: Database, clock: Clock, claim: { id: string; owner: string }, status: number | null, body: unknown, transaction?: Transaction,
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
