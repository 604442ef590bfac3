import { Op } from 'sequelize';
import { inTransaction, type CallerContext } from '../domain/context';
import { ConflictError, InternalError } from '../domain/errors';
import { scoped } from '../db/scoped';
import { updateRows } from '../db/rows';
import { tableOf } from '../db/table';
import { auditedUpdateIf, lockedRecord, type AuditedRecord, type AuditRender } from './audit/changes';
import { emitEvent, type EmitInput } from './webhooks/events';

/**
 * Status moves in one place. Each status machine (tenants, merchants, partners, terminals, …) is declared once: its
 * audited record, the field that holds the status, and its moves (the statuses each may start from, the one it
 * leads to, the audit action). `transition` makes one move: refused with the machine's 409 from any other status,
 * else written by compare-and-set on the status it was read in (the same 409 when a concurrent move won), audited
 * and, when the move names one, announced by an event, all in the caller's transaction.
 */

type Row = { id: string; createdAt: Date };

export interface Move<R, S extends string> {
  /** the statuses the move starts from */
  from: readonly S[];
  /** the status it leads to */
  to: S;
  /** the audit entry's action */
  action: string;
  /** the move's other changes (a timestamp) */
  also?: (ctx: CallerContext, row: R) => Partial<R>;
  /** the refusal's hint, when not the machine's */
  hint?: string;
  /** the event type announcing the move (raised through the machine's `event`), when it has one */
  event?: string;
  /** the move as its refusals name it ("start execution"), when not its key */
  name?: string;
}

export interface StatusMachine<R extends Row, M extends string, S extends string> {
  record: AuditedRecord<R>;
  /** the field holding the status (default: status) */
  field?: keyof R & string;
  moves: Record<M, Move<R, S>>;
  /** the error of a move refused from the record's status */
  refused: (row: R, move: M, spec: Move<R, S>) => Error;
  /** what the audit entries show of the record (default: the record's rendering) */
  render?: AuditRender<R>;
  /** the event of a move that names one (`event` of the move), from the moved record */
  event?: (type: string, moved: R) => EmitInput;
}

/** Declares a status machine (typed by its record, moves and statuses). */
export function statusMachine<R extends Row, M extends string, S extends string>(machine: StatusMachine<R, M, S>): StatusMachine<R, M, S> {
  return machine;
}

export interface TransitionOptions<R> {
  /** refuses the move in this situation (by throwing), once it is allowed from the record's status */
  check?: (row: R, ctx: CallerContext) => void | Promise<void>;
  /** other changes of this move, or how they follow from the record (which may refuse the move by throwing) */
  changes?: Partial<R> | ((row: R, ctx: CallerContext) => Partial<R> | Promise<Partial<R>>);
  /** the event announcing the move, from the moved record (default: the one the move names) */
  event?: (moved: R) => EmitInput;
  /** what the audit entries show of the record (default: the machine's) */
  render?: AuditRender<R>;
  /** the events announcing the move, in order, after `event` (a move announced twice: payment.captured and payment.succeeded) */
  events?: (moved: R) => EmitInput[];
  /**
   * not audited on its own: a move of a part the audit entry of its whole's move tells (a payment attempt answered,
   * told by its payment's move), written by the same compare-and-set
   */
  unaudited?: boolean;
  /**
   * compare-and-set on more than the status: the other values the row must still have when it is written (a where of
   * ScopedAccess.updateIf), for a move whose row was read without a lock or that depends on more than its status (the
   * token it was read with)
   */
  expect?: Record<string | symbol, unknown>;
}

/** One move of a record read (locked) in the caller's transaction; returns the moved record. */
export async function transition<R extends Row, M extends string, S extends string>(
  ctx: CallerContext,
  machine: StatusMachine<R, M, S>,
  row: R,
  move: M,
  options: TransitionOptions<R> = {},
): Promise<R> {
  const moved = await makeMove(ctx, machine, row, move, options);
  if (!moved) throw machine.refused(row, move, machine.moves[move]);
  return moved;
}

/**
 * One move of a record, as `transition` makes it, except when a concurrent move won the compare-and-set: null then,
 * and nothing written (a job's move of a record that another process may move first).
 */
export async function transitionIf<R extends Row, M extends string, S extends string>(
  ctx: CallerContext,
  machine: StatusMachine<R, M, S>,
  row: R,
  move: M,
  options: TransitionOptions<R> = {},
): Promise<R | null> {
  return makeMove(ctx, machine, row, move, options);
}

/** A move refused from any other status, written by compare-and-set (null when that lost), audited and announced. */
async function makeMove<R extends Row, M extends string, S extends string>(
  ctx: CallerContext,
  machine: StatusMachine<R, M, S>,
  row: R,
  move: M,
  options: TransitionOptions<R>,
): Promise<R | null> {
  const spec = machine.moves[move];
  const field = machine.field ?? ('status' as keyof R & string);
  const current = row[field] as unknown as S;
  if (!spec.from.includes(current)) throw machine.refused(row, move, spec);
  await options.check?.(row, ctx);
  const own = typeof options.changes === 'function' ? await options.changes(row, ctx) : options.changes;
  const changes = { ...spec.also?.(ctx, row), ...own, [field]: spec.to } as Partial<R>;
  const expect = { ...options.expect, [field]: current };
  const moved = options.unaudited
    ? await scoped(ctx, machine.record.model(ctx)).updateIf(row, expect, changes)
    : await auditedUpdateIf(ctx, machine.record, row, expect, changes, { action: spec.action, render: options.render ?? machine.render });
  if (!moved) return null;
  // the caller's event, else the one the move names (through the machine's `event`)
  const event = options.event ?? (spec.event && machine.event ? (r: R) => machine.event!(spec.event!, r) : undefined);
  if (event) await emitEvent(ctx, event(moved));
  for (const more of options.events?.(moved) ?? []) await emitEvent(ctx, more);
  return moved;
}

/**
 * The changes of one move of `row` (its status and the move's own changes), refused with the machine's error from any
 * other status, for a write that carries the moves of many records in one statement with its own compare-and-set
 * (the webhook dispatcher's outcomes, guarded by its claim): a hot path that writes no audit entry per record.
 */
export function moveChanges<R extends Row, M extends string, S extends string>(
  ctx: CallerContext,
  machine: StatusMachine<R, M, S>,
  row: R,
  move: M,
): Partial<R> {
  const spec = machine.moves[move];
  const field = machine.field ?? ('status' as keyof R & string);
  if (!spec.from.includes(row[field] as unknown as S)) throw machine.refused(row, move, spec);
  return { ...spec.also?.(ctx, row), [field]: spec.to } as Partial<R>;
}

/**
 * Moves every row of the machine's table that matches `where` (plain conditions, see db/rows.ts updateRows) and is in a
 * status the move starts from, in one UPDATE (compare-and-set on those statuses), with `changes` besides; returns how
 * many moved. The many-rows form of a move made by the system (cancelling an endpoint's pending deliveries) or on a hot
 * path (the dispatcher marking an endpoint failing or disabled): it writes no audit entry per row and raises no event,
 * which its caller raises once when the move names one.
 */
export async function moveRows<R extends Row, M extends string, S extends string>(
  ctx: CallerContext,
  machine: StatusMachine<R, M, S>,
  move: M,
  where: Record<string | symbol, unknown>,
  changes: Partial<R> = {},
): Promise<number> {
  const spec = machine.moves[move];
  const field = machine.field ?? 'status';
  const from = spec.from.length === 1 ? spec.from[0] : { [Op.in]: [...spec.from] };
  const model = machine.record.model(ctx);
  const values = { ...changes, [field]: spec.to };
  const table = tableOf(model as never, ctx.db.dialect);
  // a table whose writes run hooks (a read cache watches it) is written through its model
  if (!table || table.hooked) {
    const [count] = await model.update(values as never, { where: { ...where, [field]: from } as never, transaction: ctx.transaction });
    return count;
  }
  return updateRows(ctx.db, model as never, values, { ...where, [field]: from }, ctx.transaction);
}

/**
 * The status a record is created in, when its creator chooses it (a sandbox merchant created approved for live): one
 * of the statuses the machine's moves name, else an InternalError.
 */
export function startIn<R extends Row, M extends string, S extends string>(machine: StatusMachine<R, M, S>, status: S): S {
  const moves: Move<R, S>[] = Object.values(machine.moves);
  if (!moves.some((move) => move.to === status || move.from.includes(status))) {
    throw new InternalError(`a record created in status ${status}, which its machine does not know`);
  }
  return status;
}

/** The record of `id` in the caller's scope (404 otherwise), locked and moved, in one transaction. */
export async function moveRecord<R extends Row, M extends string, S extends string>(
  ctx: CallerContext,
  machine: StatusMachine<R, M, S>,
  id: string,
  move: M,
  options: TransitionOptions<R> = {},
): Promise<R> {
  return inTransaction(ctx, async (tx) => transition(tx, machine, await lockedRecord(tx, machine.record, id), move, options));
}

/** The past of a move as its audit action says it: tenant.activated -> activated. */
const done = (action: string) => action.slice(action.lastIndexOf('.') + 1);

/**
 * The usual refusal, 409 INVALID_STATE_TRANSITION: "A suspended tenant cannot be activated." with the move's hint or
 * the machine's (`hint` from the move and the statuses it starts from).
 */
export function refusedMove<R extends Row>(noun: string, hint?: (move: string, from: readonly string[]) => string) {
  return (row: R, move: string, spec: Move<R, string>): ConflictError =>
    new ConflictError(
      'INVALID_STATE_TRANSITION',
      `A ${String((row as { status?: unknown }).status)} ${noun} cannot be ${done(spec.action)}.`,
      {
        hint: spec.hint ?? hint?.(move, spec.from),
      },
    );
}

/** "suspend applies to tenants in status active." */
export const inStatus = (plural: string) => (move: string, from: readonly string[]) =>
  `${move} applies to ${plural} in status ${from.join(' or ')}.`;

/** "disable applies to active channels." */
export const ofStatus = (plural: string) => (move: string, from: readonly string[]) => `${move} applies to ${from.join(' or ')} ${plural}.`;

/** The moves of an account's lifecycle (accountMachine). */
export type AccountMove = 'activate' | 'suspend' | 'disable';

/**
 * The lifecycle of an account (a tenant, a merchant, a partner): activate, suspend, disable. `kind` names it in its
 * audit actions (tenant.activated, …) and its refusals ("A suspended tenant cannot be activated.").
 */
export function accountMachine<R extends Row>(record: AuditedRecord<R>, kind: string) {
  return statusMachine({
    record,
    moves: {
      activate: { from: ['suspended', 'disabled'], to: 'active', action: `${kind}.activated` },
      suspend: { from: ['active'], to: 'suspended', action: `${kind}.suspended` },
      disable: { from: ['active', 'suspended'], to: 'disabled', action: `${kind}.disabled` },
    } satisfies Record<AccountMove, Move<R, string>>,
    refused: refusedMove(kind, inStatus(`${kind}s`)),
  });
}

/** active -> disabled, the one move of a record that is only ever switched off (a channel, a company, a limit, a terminal). */
export function disableOnly<R extends Row>(record: AuditedRecord<R>, action: string, noun: string, plural: string) {
  return statusMachine({
    record,
    moves: { disable: { from: ['active'], to: 'disabled', action } },
    refused: refusedMove(noun, ofStatus(plural)),
  });
}

/**
 * The status machine of an item held inside a record, with no row of its own (an MPI account's `enabled` in its
 * terminal's 3DS configuration): its moves (the action names the record's entry that records the move) and their
 * refusal. `moveWithin` makes one move; the record's audited change writes it.
 */
export interface ItemMachine<T, M extends string, V> {
  /** the item's field holding the status */
  field: keyof T & string;
  moves: Record<M, { from: readonly V[]; to: V; action: string }>;
  /** the error of a move refused from the item's status */
  refused: (item: T, move: M) => Error;
}

/** Declares the status machine of an item held inside a record. */
export function itemMachine<T, M extends string, V>(machine: ItemMachine<T, M, V>): ItemMachine<T, M, V> {
  return machine;
}

/** One move of an item: the item with its new status, refused from any other status. */
export function moveWithin<T, M extends string, V>(machine: ItemMachine<T, M, V>, item: T, move: M): T {
  const spec = machine.moves[move];
  if (!spec.from.includes(item[machine.field] as unknown as V)) throw machine.refused(item, move);
  return { ...item, [machine.field]: spec.to };
}

/** Whether `move` may start from the record's status. */
export function allows<R extends Row, M extends string, S extends string>(machine: StatusMachine<R, M, S>, row: R, move: M): boolean {
  return machine.moves[move].from.includes(row[machine.field ?? ('status' as keyof R & string)] as unknown as S);
}

/**
 * Refuses with the machine's error unless `move` may start from the record's status: a move decided before it is
 * made (its intent recorded, a provider asked, the answer making it), checked again by transition then.
 */
export function refuseUnless<R extends Row, M extends string, S extends string>(machine: StatusMachine<R, M, S>, row: R, move: M): void {
  if (!allows(machine, row, move)) throw machine.refused(row, move, machine.moves[move]);
}
