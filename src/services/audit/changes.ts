import { inTransaction, type CallerContext } from '../../domain/context';
import { NotFoundError } from '../../domain/errors';
import { scoped } from '../../db/scoped';
import type { RowModel } from '../../db/model-kit';
import { recordAudit, type AuditInput } from './entries';
import type { AuditTargetType } from './targets';

/**
 * Audited changes in one place: a kind of record declares once how its audit entries name it (its kind, tenant,
 * merchant and mode) and show it (its API rendering), and every update of it goes through `auditedUpdate`, which
 * writes the row and its entry (before and after) in the caller's open transaction.
 */

type Row = { id: string; createdAt: Date };

/** The tenant, merchant and mode an entry about a record is filed under (see AuditInput). */
export type AuditOwner = Pick<AuditInput, 'tenantId' | 'merchantId' | 'livemode'>;

/** What an entry shows of the record: its rendering at `now` (a record whose status depends on the time), in `ctx`. */
export type AuditRender<R> = (row: R, now: Date, ctx: CallerContext) => unknown;

export interface AuditedRecord<R extends Row> {
  /** the record's table */
  model: (ctx: CallerContext) => RowModel<R>;
  /** the kind of record its entries are about: declared in AUDIT_TARGETS (a limit's is its owner's kind) */
  targetType: AuditTargetType | ((row: R) => AuditTargetType);
  /** whom its entries are filed under */
  owner: (row: R) => AuditOwner;
  /** what its entries show of it (the API's rendering) */
  render: AuditRender<R>;
}

/** Declares a kind of audited record (typed by its table). */
export function auditedRecord<R extends Row>(record: AuditedRecord<R>): AuditedRecord<R> {
  return record;
}

/** Before and after, each given as the entry shows it (no before: a creation). */
export interface AuditValues {
  before?: unknown;
  after?: unknown;
}

/** Writes the entry about `row` of `record`: `action`, with the values given as they are. */
export async function auditRecord<R extends Row>(
  ctx: CallerContext,
  record: AuditedRecord<R>,
  row: R,
  action: string,
  values: AuditValues,
): Promise<void> {
  const targetType = typeof record.targetType === 'function' ? record.targetType(row) : record.targetType;
  await recordAudit(ctx, { action, targetType, targetId: row.id, ...record.owner(row), ...values });
}

export interface AuditedChange<R> {
  /** the entry's action */
  action: string;
  /** what the entry shows of the record before and after (default: the record's rendering) */
  render?: AuditRender<R>;
  /** the time the rendering is at (default: the clock's now) */
  now?: Date;
}

/**
 * Updates the row when it still matches `expect` (compare-and-set, see ScopedAccess.updateIf) and audits the change
 * with the record before and after, in the caller's transaction. Null (nothing written) when it no longer matched.
 */
export async function auditedUpdateIf<R extends Row>(
  ctx: CallerContext,
  record: AuditedRecord<R>,
  row: R,
  expect: Record<string, unknown>,
  changes: Partial<R>,
  change: AuditedChange<R>,
): Promise<R | null> {
  const updated = await scoped(ctx, record.model(ctx)).updateIf(row, expect, changes);
  if (!updated) return null;
  const render = change.render ?? record.render;
  const now = change.now ?? ctx.clock.now();
  await auditRecord(ctx, record, row, change.action, { before: await render(row, now, ctx), after: await render(updated, now, ctx) });
  return updated;
}

export interface AuditedUpdate<R> extends AuditedChange<R> {
  /** compare-and-set: the values the row must still have (the status it was read in) */
  expect?: Record<string, unknown>;
  /** the error when it no longer has them (a concurrent change won) */
  refused?: (row: R) => Error;
}

/**
 * Updates the row and audits the change (before and after) in the caller's transaction. With `expect`, the row must
 * still match it: `refused` is thrown when it no longer does (404 without `expect`: the row is gone).
 */
export async function auditedUpdate<R extends Row>(
  ctx: CallerContext,
  record: AuditedRecord<R>,
  row: R,
  changes: NoInfer<Partial<R>>,
  change: AuditedUpdate<R>,
): Promise<R> {
  const updated = await auditedUpdateIf(ctx, record, row, change.expect ?? {}, changes, change);
  if (!updated) throw change.refused?.(row) ?? new NotFoundError(record.model(ctx).scopeSpec.resource, row.id);
  return updated;
}

/** Soft-deletes the row (deletedAt now) and audits it (before and after) in the caller's transaction. */
export async function auditedDelete<R extends Row & { deletedAt: Date | null }>(
  ctx: CallerContext,
  record: AuditedRecord<R>,
  row: R,
  change: AuditedUpdate<R>,
): Promise<R> {
  return auditedUpdate(ctx, record, row, { deletedAt: ctx.clock.now() } as Partial<R>, change);
}

/** The record of `id` in the caller's scope (404 otherwise), locked for the caller's transaction. */
export async function lockedRecord<R extends Row>(ctx: CallerContext, record: AuditedRecord<R>, id: string): Promise<R> {
  return scoped(ctx, record.model(ctx)).get(id, { lock: true });
}

/**
 * The whole audited update of the record of `id`, in one transaction: found in the caller's scope and locked, changed
 * as `changes` computes from it (which may refuse by throwing), audited.
 */
export async function updateRecord<R extends Row>(
  ctx: CallerContext,
  record: AuditedRecord<R>,
  id: string,
  changes: (row: R, tx: CallerContext) => NoInfer<Partial<R>> | Promise<NoInfer<Partial<R>>>,
  change: AuditedUpdate<R>,
): Promise<R> {
  return inTransaction(ctx, async (tx) => {
    const row = await lockedRecord(tx, record, id);
    return auditedUpdate(tx, record, row, await changes(row, tx), change);
  });
}

/** The fields of `input` among `keys` that are given (not undefined): what a PATCH changes. */
export function givenFields<T extends object, K extends keyof T>(input: T, keys: readonly K[]): Partial<Pick<T, K>> {
  return Object.fromEntries(keys.filter((key) => input[key] !== undefined).map((key) => [key, input[key]])) as Partial<Pick<T, K>>;
}
