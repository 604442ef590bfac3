import type { Transaction } from 'sequelize';
import type { Database } from './database';
import type { StatementOptions } from './statements';
import type { RowModel } from './model-kit';
import { bindable, compileWhere, decode, encode, insertStatement, tableOf, type Table } from './table';
import { InternalError } from '../domain/errors';

/**
 * The tables the platform itself works through, outside any caller's scope (the outbox, the dispatcher's claims, the
 * sandbox acquirer's operations), on prepared statements (db/statements): rows in and out as plain objects. A caller's
 * reads and writes go through db/scoped, which uses the same statements.
 */

function tableFor(db: Database, model: RowModel<object>): Table {
  const table = tableOf(model, db.dialect);
  if (!table) throw new InternalError(`${model.name}: its attributes are named apart from its columns; it has no prepared-statement path`);
  return table;
}

/** The table of a model written on the prepared-statement path: refused when its writes run hooks (read caches watch it). */
export function writableTableFor(db: Database, model: RowModel<object>): Table {
  const table = tableFor(db, model);
  if (table.hooked) throw new InternalError(`${model.name}: its writes run hooks; write it through the model`);
  return table;
}

export interface SelectOptions {
  transaction?: Transaction | null;
  /** e.g. `"createdAt" DESC, "id" DESC` */
  orderBy?: string;
  limit?: number;
  /** Postgres: lock the rows (FOR UPDATE) when inside a transaction */
  lock?: boolean;
}

/** Where a write goes: the caller's transaction, or on its own (inside Database.writeAlone, which gives `{ alone: true }`). */
export type WriteTarget = Transaction | null | undefined | { alone: true };

function statementOptions(target: WriteTarget): StatementOptions {
  return target && 'alone' in target ? { alone: true } : { transaction: target as Transaction | null | undefined };
}

/** The rows of a model matching a where of plain conditions (db/table's compileWhere). */
export async function selectRows<R>(
  db: Database,
  model: RowModel<object>,
  where: Record<string | symbol, unknown>,
  options: SelectOptions = {},
): Promise<R[]> {
  const table = tableFor(db, model);
  const parts: string[] = [];
  const params: unknown[] = [];
  if (!compileWhere(table, where, parts, params))
    throw new InternalError(`${model.name}: a condition the prepared-statement path does not take`);
  let sql = `SELECT ${table.selectList} FROM "${table.name}"${parts.length ? ` WHERE ${parts.join(' AND ')}` : ''}`;
  if (options.orderBy) sql += ` ORDER BY ${options.orderBy}`;
  if (options.limit !== undefined) sql += ` LIMIT ${Math.trunc(options.limit)}`;
  if (options.lock && options.transaction && db.dialect === 'postgres') sql += ' FOR UPDATE';
  const rows = await db.sql.all<Record<string, unknown>>(sql, params, { transaction: options.transaction });
  return rows.map((row) => decode<R>(table, row));
}

/** Rows of one model in one multi-row INSERT (every row with the same columns: the first row's). */
export async function insertRows(db: Database, model: RowModel<object>, rows: object[], transaction?: WriteTarget): Promise<void> {
  if (!rows.length) return;
  const table = writableTableFor(db, model);
  const insert = insertStatement(table, rows as Record<string, unknown>[], false);
  if (!insert) throw new InternalError(`${model.name}: rows of different columns, or a value that is not one to bind`);
  await db.sql.run(insert.sql, insert.params, statementOptions(transaction));
}

/**
 * Rows of one model written at the end of the caller's transaction, just before its COMMIT, with whatever else it
 * deferred to the table, in one multi-row INSERT (db/statements' defer); at once when there is no transaction.
 */
export async function insertLater(db: Database, model: RowModel<object>, rows: object[], transaction?: Transaction | null): Promise<void> {
  if (!rows.length) return;
  const table = tableFor(db, model);
  if (!transaction || table.hooked || !insertStatement(table, rows as Record<string, unknown>[], false))
    return insertRows(db, model, rows, transaction);
  db.sql.defer(transaction, table, rows as Record<string, unknown>[]);
}

/** UPDATE of a model's rows matching a where of plain conditions: the number of rows changed. */
export async function updateRows(
  db: Database,
  model: RowModel<object>,
  changes: Record<string, unknown>,
  where: Record<string | symbol, unknown>,
  transaction?: WriteTarget,
): Promise<number> {
  const table = writableTableFor(db, model);
  const columns = Object.keys(changes).filter((column) => changes[column] !== undefined);
  if (!columns.every((column) => bindable(table, column, changes[column])))
    throw new InternalError(`${model.name}: a change that is not a value to bind`);
  const parts: string[] = [];
  const params: unknown[] = [];
  if (!compileWhere(table, where, parts, params))
    throw new InternalError(`${model.name}: a condition the prepared-statement path does not take`);
  const sql = `UPDATE "${table.name}" SET ${columns.map((c) => `"${c}" = ?`).join(', ')}${parts.length ? ` WHERE ${parts.join(' AND ')}` : ''}`;
  return db.sql.run(sql, [...columns.map((column) => encode(table, column, changes[column])), ...params], statementOptions(transaction));
}

/** A value bound for a column of a model's table (a Date on SQLite as the text Sequelize stores). */
export function bindFor(db: Database, model: RowModel<object>, column: string, value: unknown): unknown {
  return encode(tableFor(db, model), column, value);
}

/** `"a", "b", …`: every column of a model's table, for a statement's SELECT or RETURNING. */
export function columnsOf(db: Database, model: RowModel<object>): string {
  return tableFor(db, model).selectList;
}

/** Rows a hand-written statement returned (with columnsOf), with the types the model gives. */
export function decodeRows<R>(db: Database, model: RowModel<object>, rows: Record<string, unknown>[]): R[] {
  const table = tableFor(db, model);
  return rows.map((row) => decode<R>(table, row));
}
