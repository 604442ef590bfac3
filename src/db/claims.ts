import os from 'node:os';
import type { Database } from './database';
import { bindFor, columnsOf, decodeRows } from './rows';
import { newId } from '../util/ids';

/**
 * Work rows several processes take from one table (the sandbox acquirer's due answers, acquirers' notifications
 * waiting to be applied): a claim is a lease in lockedBy / lockedUntil, taken and returned in one statement. Postgres
 * skips rows another worker is claiming (SKIP LOCKED); SQLite serializes writers. A row whose lease runs out (its
 * worker died) is claimed again.
 */
export interface ClaimSpec {
  /** the table */
  table: string;
  /** its model (for the columns and the binding of dates) */
  model: never;
  /** the date column that says when a row is due (the rows are claimed in its order) */
  dueColumn: string;
  /** the SQL condition of a row still to do (e.g. `status = 'received'`) */
  open: string;
  limit: number;
  leaseMs: number;
  workerId: string;
}

/** A worker's name: host, process and a random part (two workers of one process differ). */
export function workerName(): string {
  return `${os.hostname()}:${process.pid}:${newId().slice(-12)}`;
}

/** Claims the due rows of a table for `workerId` for `leaseMs` (of the database's clock: `now`), in due order. */
export async function claimDue<Row>(db: Database, now: Date, spec: ClaimSpec): Promise<Row[]> {
  const { table, model, dueColumn } = spec;
  const at = (date: Date) => bindFor(db, model, dueColumn, date);
  const lock = db.dialect === 'postgres' ? 'FOR UPDATE SKIP LOCKED' : '';
  const sql = `UPDATE ${table} SET "lockedUntil" = ?, "lockedBy" = ?
    WHERE id IN (SELECT id FROM ${table}
      WHERE ${spec.open} AND "${dueColumn}" <= ? AND ("lockedUntil" IS NULL OR "lockedUntil" <= ?)
      ORDER BY "${dueColumn}" LIMIT ${Math.trunc(spec.limit)} ${lock})
    RETURNING ${columnsOf(db, model)}`;
  const rows = await db.writeAlone((alone) =>
    db.sql.all<Record<string, unknown>>(sql, [at(new Date(now.getTime() + spec.leaseMs)), spec.workerId, at(now), at(now)], alone),
  );
  const due = (row: Row) => +new Date((row as Record<string, unknown>)[dueColumn] as string);
  return decodeRows<Row>(db, model, rows).sort((a, b) => due(a) - due(b));
}
