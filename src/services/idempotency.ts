import { withTransaction, type CallerContext } from '../domain/context';
import type { Sealer } from '../util/encryption';
import { AsyncLocalStorage } from 'node:async_hooks';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { Op, type Transaction } from 'sequelize';
import type { Database } from '../db/database';
import { isUniqueViolation } from '../db/database';
import type { IdempotencyOwnerRow, IdempotencyRow } from '../db/models';
import type { Clock } from '../domain/clock';
import { ConflictError, InternalError, PayplaneError, ValidationError } from '../domain/errors';

/**
 * The Idempotency-Key rule of operations.md, in one place: runIdempotent. The API (src/http/pipeline.ts) runs every
 * POST through it and the CLI its commands that take --idempotency-key, so both doors share one record per caller's
 * key and replay each other's answers.
 */

/**
 * A key is held by the process that claimed it (idempotency_owners) while that process lives, and no longer: a process
 * renews a lease of its own while it runs (every OWNER_LEASE_MS / 5), so a process that died elsewhere lets its keys
 * go once its lease ran out; one on the same machine (same kernel boot and pid namespace) is known gone at once, when
 * its pid is gone or is another process's (its start time differs). See ownerGone.
 */
export const OWNER_LEASE_MS = 20_000;
/** How long a concurrent duplicate waits for the first request (whose process lives) to finish before answering 409. */
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
  /**
   * With ownTransactions: the operation's answer rebuilt from what it committed (read again, nothing redone), for a
   * retry whose earlier request committed the effect (keyedEffect) and died, or failed, before its answer was kept.
   * Without one the operation runs again (it finds its own records by the key, as a refund does).
   */
  resume?: (ctx: CallerContext) => Promise<R>;
  /** told when a failed request's key could not be freed (it is taken over once its process is known gone) */
  onReleaseFailure?: (error: unknown) => void;
}

export type IdempotentOutcome<R, P> = { replayed: false; result: R } | { replayed: true; replay: P };

/**
 * Runs an operation under its caller's Idempotency-Key. The first request with a key runs it and keeps its answer;
 * the same key with the same request (operation, target, input) replays that answer; with another request it is 409
 * IDEMPOTENCY_KEY_REUSED; a duplicate that arrives while the first runs waits for it, then 409
 * IDEMPOTENCY_KEY_IN_USE. Keys are the caller's own (idempotencyScope: tenant, merchant, mode). A key is held by the
 * process that claimed it while that process lives: a retry takes over the key of a process known gone at once
 * (ownerGone). The operation and its kept answer commit in one transaction, unless it opens its own
 * (ownTransactions): then the transaction that commits its effect marks the key (keyedEffect), and a retry that takes
 * over a marked key answers from what was committed (`resume`) instead of running the operation again. A failed
 * operation frees its key: for another run when nothing was committed or it failed with a domain error (its answer),
 * for a resumed answer when its effect was committed and a defect or a crash stopped it. Without a key the operation
 * runs the same way, once.
 */
export async function runIdempotent<R, P = R>(
  ctx: CallerContext,
  call: IdempotentCall<R, P>,
  fn: (ctx: CallerContext) => Promise<R>,
): Promise<IdempotentOutcome<R, P>> {
  const { db, clock } = ctx;
  if (call.key === undefined) {
    const result = call.ownTransactions ? await fn(ctx) : await db.transaction((transaction) => fn(withTransaction(ctx, transaction)));
    return { replayed: false, result };
  }
  validateIdempotencyKey(call.key, call.keyField);
  const keeping = call.keeping ?? (sealedWhole(ctx) as Keeping<unknown, unknown> as Keeping<R, P>);
  const claim = await claimIdempotencyKey(db, clock, {
    scope: idempotencyScope(ctx),
    key: call.key,
    method: call.operation,
    path: canonicalJson(call.target ?? {}),
    // the input is fingerprinted under a key of its own: a stored fingerprint of card data must not be brute-forceable
    body: bodyFingerprint(ctx.sealer, call.input),
  });
  if (claim.kind === 'replay') {
    if (!claim.sameRequest && !call.anyInput) throw reused();
    return { replayed: true, replay: keeping.replay(claim.body) };
  }
  try {
    return await runClaimed(ctx, call, fn, claim, keeping);
  } finally {
    runningClaims.delete(claim.owner);
  }
}

/** runIdempotent's run of an operation whose key this request claimed: the answer kept, or the key freed. */
async function runClaimed<R, P>(
  ctx: CallerContext,
  call: IdempotentCall<R, P>,
  fn: (ctx: CallerContext) => Promise<R>,
  claim: Extract<Claim, { kind: 'owner' }>,
  keeping: Keeping<R, P>,
): Promise<IdempotentOutcome<R, P>> {
  const { db, clock } = ctx;
  const keep = async (result: R, transaction: Transaction) => {
    await completeIdempotencyKey(db, clock, claim, null, keeping.store(result), transaction);
    return result;
  };
  if (!call.ownTransactions) {
    try {
      return {
        replayed: false,
        result: await db.transaction(async (transaction) => keep(await fn(withTransaction(ctx, transaction)), transaction)),
      };
    } catch (error) {
      await releaseIdempotencyKey(db, claim).catch((e) => call.onReleaseFailure?.(e));
      throw error;
    }
  }
  const effect: KeyedEffectState = { db, clock, claim, applied: claim.applied, open: true, made: claim.made };
  const resumed = claim.applied;
  try {
    const result = await keyedEffects.run(effect, () => (resumed ? (call.resume ?? fn)(ctx) : fn(ctx)));
    effect.open = false;
    return { replayed: false, result: await db.transaction((transaction) => keep(result, transaction)) };
  } catch (error) {
    effect.open = false;
    // the operation's own answer (a domain error) before or after its effect, or nothing committed: it may run again
    const runAgain = !effect.applied || (!resumed && error instanceof PayplaneError && !(error instanceof InternalError));
    await (runAgain ? releaseIdempotencyKey(db, claim) : freeIdempotencyKey(db, clock, claim)).catch((e) => call.onReleaseFailure?.(e));
    throw error;
  }
}

/** The key of the operation that runs with transactions of its own, while it runs (runIdempotent). */
interface KeyedEffectState {
  db: Database;
  clock: Clock;
  claim: { id: string; owner: string };
  /** a transaction that marked the key committed */
  applied: boolean;
  /** false once the operation returned: work it left behind (a timer, a job) marks nothing */
  open: boolean;
  /** the record the effect made (keyedEffect's `made`), for `resume` to answer with */
  made?: string;
}

const keyedEffects = new AsyncLocalStorage<KeyedEffectState>();

/**
 * Marks, in the transaction `tx` that commits an operation's effect, that the effect of its Idempotency-Key is
 * committed: a retry after a crash then answers from what was committed (runIdempotent's `resume`) instead of running
 * the operation again. Called by the operations that open their own transactions, in the transaction that records
 * their intent (throughProvider's record step; a checkout session's payment); without a key, or once marked, nothing.
 */
export async function keyedEffect(tx: CallerContext, made?: string): Promise<void> {
  const effect = keyedEffects.getStore();
  if (!effect || !effect.open || effect.applied || !tx.transaction) return;
  const { claim, clock } = effect;
  const transaction = tx.transaction;
  // while the key is in progress its record holds, where its answer will be, the record the effect made
  const [marked] = await effect.db.models.Idempotency.update(
    { appliedAt: clock.now(), ...(made === undefined ? {} : { responseBody: { made } }) },
    { where: { id: claim.id, owner: claim.owner, state: 'in_progress' }, transaction },
  );
  if (marked !== 1)
    throw new ConflictError('IDEMPOTENCY_KEY_IN_USE', 'Another request took over this Idempotency-Key; this one was rolled back.');
  transaction.afterCommit(() => {
    effect.applied = true;
  });
}

/**
 * The record that the effect of the Idempotency-Key being resumed made (the id given to keyedEffect): what `resume`
 * answers with. Undefined outside a resume, or when the effect named none.
 */
export function madeUnderKey(): string | undefined {
  return keyedEffects.getStore()?.made;
}

/** The default keeping: the first answer sealed whole (it may hold a secret shown once, a webhook signing secret). */
function sealedWhole(ctx: CallerContext): Keeping<unknown, unknown> {
  return {
    store: (result) => ({ sealed: ctx.sealer.seal(JSON.stringify(result)) }),
    replay: (stored) => JSON.parse(ctx.sealer.open((stored as { sealed: string }).sealed)) as unknown,
  };
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
  /**
   * the key is this request's; `applied` when an earlier request under it committed the operation's effect, `made`
   * the record that effect made when it named one (keyedEffect)
   */
  | { kind: 'owner'; id: string; owner: string; applied: boolean; made?: string }
  /** a completed first request; `sameRequest` is false when its method, path or body differed */
  | { kind: 'replay'; status: number | null; body: unknown; sameRequest: boolean };

export function fingerprint(method: string, path: string, body: unknown): string {
  return crypto
    .createHash('sha256')
    .update(`${method} ${path}\n${canonicalJson(body ?? null)}`)
    .digest('hex');
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

// ------------------------------------------------------------------------------ the processes that hold keys

/** Where a process runs, as another process can check that it still does. */
export interface ProcessIdentity {
  host: string;
  /** the kernel's boot id and the pid namespace (Linux): a process with the same can look the pid up; null elsewhere */
  machine: string | null;
  pid: number;
  /** the pid's start time (Linux /proc/<pid>/stat): another process that got the pid later has another */
  processStart: string | null;
}

/** A process as it claims keys: its row in idempotency_owners, once written. */
export interface KeyOwner {
  id: string;
  identity: ProcessIdentity;
  ready: Promise<void>;
}

let self: ProcessIdentity | undefined;

/** This process, as idempotency_owners names it. */
export function thisProcess(): ProcessIdentity {
  return (self ??= {
    host: os.hostname(),
    machine: machineOfThisProcess(),
    pid: process.pid,
    processStart: processStartOf(process.pid) ?? null,
  });
}

function machineOfThisProcess(): string | null {
  try {
    return `${fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()}/${fs.readlinkSync('/proc/self/ns/pid')}`;
  } catch {
    return null;
  }
}

/**
 * The start time of a process of this machine (Linux: field 22 of /proc/<pid>/stat); undefined when there is no such
 * process or it has died (a zombie), null when it cannot be told.
 */
export function processStartOf(pid: number): string | null | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (error) {
    // no such file where /proc is mounted: no such process; anything else (no /proc) cannot tell
    return (error as NodeJS.ErrnoException).code === 'ENOENT' && fs.existsSync('/proc/self/stat') ? undefined : null;
  }
  // after the command's name (in parentheses, which may hold spaces): field 3 (state) on
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z' || fields[0] === 'X') return undefined;
  return fields[19] ?? null;
}

/**
 * Whether the process that holds a key (its idempotency_owners row, or none) is known to be gone, as process `me`
 * sees it at `now`: no row, or a lease that ran out (it stopped renewing it); on the same machine, a pid that no
 * longer runs or runs another process. A process that cannot be checked (another machine) lives until its lease
 * runs out: never taken for dead while it may run (it would call a provider a second time).
 */
export function ownerGone(
  owner: IdempotencyOwnerRow | null,
  now: Date,
  me: { id: string; identity: ProcessIdentity },
  claimToken?: string,
): boolean {
  if (!owner) return true;
  // this process: held while the claim's request runs here; a claim whose request ended without freeing it (its
  // release failed on a database error) is free, not held for as long as the process lives
  if (owner.id === me.id) return claimToken !== undefined && !runningClaims.has(claimToken);
  if (new Date(owner.aliveUntil).getTime() <= now.getTime()) return true;
  if (owner.machine !== null && owner.machine === me.identity.machine && owner.processStart !== null) {
    const start = processStartOf(owner.pid);
    return start !== null && start !== owner.processStart;
  }
  return false;
}

const owners = new WeakMap<Database, KeyOwner>();

/** The claims (their owner tokens) whose requests run in this process now: runIdempotent adds and removes them. */
const runningClaims = new Set<string>();

/**
 * This process as the owner of the keys it claims on `db`: written to idempotency_owners on its first claim (one
 * INSERT per process, none per request), its lease renewed in the background until the database closes.
 */
export function processOwner(db: Database, clock: Clock): KeyOwner {
  const known = owners.get(db);
  if (known) return known;
  const owner = registerKeyOwner(db, clock, thisProcess(), { renew: true });
  owners.set(db, owner);
  // a failed registration (the database unreachable) is tried again by the next claim
  owner.ready.catch(() => owners.get(db) === owner && owners.delete(db));
  return owner;
}

/** Writes a process's row (with `renew`, renewed every OWNER_LEASE_MS / 5 until the database closes; the row then goes). */
export function registerKeyOwner(db: Database, clock: Clock, identity: ProcessIdentity, options: { renew: boolean }): KeyOwner {
  const { IdempotencyOwner } = db.models;
  const id = `${identity.pid}-${crypto.randomUUID()}`;
  const lease = () => new Date(clock.now().getTime() + OWNER_LEASE_MS);
  const write = () =>
    db.transaction((transaction) =>
      IdempotencyOwner.create({ id, ...identity, aliveUntil: lease(), createdAt: clock.now() }, { transaction }),
    );
  const ready = (async () => {
    await write();
    // renewed from now on (not before: a registration that failed leaves no timer behind, the next claim registers)
    if (options.renew) keepRenewing();
    // owners gone for a day: nothing of theirs is held any more (a key without its owner's row is free)
    const gone = new Date(clock.now().getTime() - 86_400_000);
    await db.transaction((transaction) => IdempotencyOwner.destroy({ where: { aliveUntil: { [Op.lt]: gone } }, transaction }));
  })();
  function keepRenewing() {
    let renewing = false;
    const timer = setInterval(() => {
      if (renewing) return;
      renewing = true;
      db.transaction(async (transaction) => {
        const [renewed] = await IdempotencyOwner.update({ aliveUntil: lease() }, { where: { id }, transaction });
        // gone (taken for dead and cleared): written again, for the keys this process claims from now on
        if (renewed === 0) await IdempotencyOwner.create({ id, ...identity, aliveUntil: lease(), createdAt: clock.now() }, { transaction });
      })
        .catch(() => undefined)
        .finally(() => {
          renewing = false;
        });
    }, OWNER_LEASE_MS / 5);
    timer.unref();
    db.onClose(async () => {
      clearInterval(timer);
      // a process that stops lets its keys go at once (its running requests have finished)
      await db.transaction((transaction) => IdempotencyOwner.destroy({ where: { id }, transaction }));
    });
  }
  return { id, identity, ready };
}

// ----------------------------------------------------------------------------------------------- claims

/**
 * Claims the key for this request, or hands back the first request's stored response. A duplicate that arrives
 * while the first is still running (its process lives) waits for it; one with another body while it runs is refused
 * with 409. The key of a process known gone (ownerGone), or one freed by a failed request, is taken over at once.
 */
export async function claimIdempotencyKey(
  db: Database,
  clock: Clock,
  request: ClaimRequest,
  options: { as?: KeyOwner; waitMs?: number } = {},
): Promise<Claim> {
  const { Idempotency, IdempotencyOwner } = db.models;
  const me = options.as ?? processOwner(db, clock);
  await me.ready;
  const print = fingerprint(request.method, request.path, request.body);
  const deadline = Date.now() + (options.waitMs ?? WAIT_MS);
  for (;;) {
    const now = clock.now();
    const id = crypto.randomUUID();
    const owner = crypto.randomUUID();
    try {
      await db.transaction((transaction) =>
        Idempotency.create(
          {
            id,
            scope: request.scope,
            key: request.key,
            method: request.method,
            path: request.path,
            fingerprint: print,
            state: 'in_progress',
            owner,
            ownerProcess: me.id,
            appliedAt: null,
            responseStatus: null,
            responseBody: null,
            lockedUntil: null,
            createdAt: now,
            updatedAt: now,
          },
          { transaction },
        ),
      );
      runningClaims.add(owner);
      return { kind: 'owner', id, owner, applied: false };
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
    let free: boolean;
    if (existing.ownerProcess !== null) {
      const holder = await IdempotencyOwner.findByPk(existing.ownerProcess, { raw: true });
      free = ownerGone(holder as unknown as IdempotencyOwnerRow | null, now, me, existing.owner);
    } else {
      // freed by a failed request whose effect was committed, or claimed before owners were kept (its lock's deadline)
      free = !existing.lockedUntil || new Date(existing.lockedUntil).getTime() <= now.getTime();
    }
    if (free) {
      // one taker wins: the request whose process died (or that failed) no longer holds it
      const [taken] = await db.transaction((transaction) =>
        Idempotency.update(
          { owner, ownerProcess: me.id, lockedUntil: null, updatedAt: now },
          { where: { id: existing.id, state: 'in_progress', owner: existing.owner }, transaction },
        ),
      );
      if (taken === 1) {
        // read again: the request it took the key from may have marked its effect since the read above (a live
        // process whose lease ran out commits its effect, or fails to, before the takeover's UPDATE could lock the row)
        runningClaims.add(owner);
        const now = (await Idempotency.findByPk(existing.id, { raw: true }).catch((error: unknown) => {
          runningClaims.delete(owner);
          throw error;
        })) as unknown as IdempotencyRow | null;
        const marked = now ?? existing;
        return { kind: 'owner', id: existing.id, owner, applied: marked.appliedAt !== null, made: madeOf(marked) };
      }
    }
    if (Date.now() > deadline) {
      throw new ConflictError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still being processed.', {
        hint: 'Retry the same request later.',
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The record an in-progress key's effect made (keyedEffect), if it named one. */
function madeOf(row: IdempotencyRow): string | undefined {
  if (row.state !== 'in_progress' || row.appliedAt === null) return undefined;
  // a raw read may hand a JSON column back as its text
  const body = typeof row.responseBody === 'string' ? (JSON.parse(row.responseBody) as unknown) : row.responseBody;
  const made = (body as { made?: unknown } | null)?.made;
  return typeof made === 'string' ? made : undefined;
}

function reused(): ConflictError {
  return new ConflictError(
    'IDEMPOTENCY_KEY_REUSED',
    'This Idempotency-Key was already used with a different request (method, path or body).',
    {
      hint: 'Use a new Idempotency-Key for a different request.',
    },
  );
}

/**
 * Stores the response in the request's own transaction, so the effect and its replay commit together. Throws
 * (rolling the effect back) when another request took the key over meanwhile.
 */
export async function completeIdempotencyKey(
  db: Database,
  clock: Clock,
  claim: { id: string; owner: string },
  status: number | null,
  body: unknown,
  transaction?: Transaction,
): Promise<void> {
  const [updated] = await db.models.Idempotency.update(
    { state: 'completed', responseStatus: status, responseBody: body, ownerProcess: null, lockedUntil: null, updatedAt: clock.now() },
    { where: { id: claim.id, owner: claim.owner, state: 'in_progress' }, transaction },
  );
  if (updated !== 1)
    throw new ConflictError('IDEMPOTENCY_KEY_IN_USE', 'Another request took over this Idempotency-Key; this one was rolled back.');
}

/** Frees the key after a failed request (nothing was committed, or its answer was an error), so the client may retry with it. */
export async function releaseIdempotencyKey(db: Database, claim: { id: string; owner: string }): Promise<void> {
  await db.transaction((transaction) =>
    db.models.Idempotency.destroy({ where: { id: claim.id, owner: claim.owner, state: 'in_progress' }, transaction }),
  );
}

/**
 * Lets go of a key whose operation committed its effect and then failed (a defect): the key stays, marked, held by no
 * process, so that the retry takes it over at once and answers from what was committed.
 */
export async function freeIdempotencyKey(db: Database, clock: Clock, claim: { id: string; owner: string }): Promise<void> {
  await db.transaction((transaction) =>
    db.models.Idempotency.update(
      { ownerProcess: null, lockedUntil: null, updatedAt: clock.now() },
      { where: { id: claim.id, owner: claim.owner, state: 'in_progress' }, transaction },
    ),
  );
}
