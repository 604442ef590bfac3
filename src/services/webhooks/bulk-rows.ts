import type { Transaction } from 'sequelize';
import type { Database } from '../../db/database';
import type { RowModel } from '../../db/model-kit';
import { bindable, compileWhere, encode } from '../../db/table';
import { writableTableFor } from '../../db/rows';
import { InternalError } from '../../domain/errors';

/**
 * Writes of several rows in one statement each, beside db/rows (which holds one UPDATE for one set of changes): the
 * dispatcher records the outcomes of many attempts at once. Kept here until db/rows takes it (same rules: plain rows,
 * prepared statements of db/statements, values bound as db/table encodes them).
 */

/** Postgres: the SQL type of each column, for the casts of a VALUES list (its parameters would otherwise be text). */
const pgTypes = new WeakMap<object, Map<string, string>>();

function pgTypeOf(model: RowModel<object>, column: string): string {
  let types = pgTypes.get(model);
  if (!types) {
    types = new Map();
    const attributes = model.getAttributes() as Record<string, { type: { toSql?: () => string } }>;
    for (const [name, attribute] of Object.entries(attributes)) {
      const sql = attribute.type.toSql?.();
      if (sql) types.set(name, sql);
    }
    pgTypes.set(model, types);
  }
  const type = types.get(column);
  if (!type) throw new InternalError(`${model.name}.${column}: no SQL type known`);
  return type;
}

export interface EachRow {
  /** the row's key and the values it must still hold to be changed (e.g. a version or a claim) */
  match: Record<string, unknown>;
  /** the row's new values */
  set: Record<string, unknown>;
}

/**
 * One UPDATE that gives each row its own values: `WITH v AS (VALUES …) UPDATE … FROM v`, on SQLite (3.33 and later)
 * and Postgres alike. Each row is matched on its `match` columns (every row names the same ones, the key first) and on
 * `where` (plain conditions shared by all, db/table's compileWhere); `constants` are set on every row matched. Returns
 * the keys (the first match column) of the rows changed: a row that no longer matches is left as it is.
 */
export async function updateEach(
  db: Database,
  model: RowModel<object>,
  rows: EachRow[],
  options: { where?: Record<string | symbol, unknown>; constants?: Record<string, unknown>; transaction?: Transaction | null },
): Promise<Set<unknown>> {
  if (!rows.length) return new Set();
  const table = writableTableFor(db, model);
  const matchColumns = Object.keys(rows[0].match);
  const setColumns = Object.keys(rows[0].set);
  const constants = options.constants ?? {};
  const constantColumns = Object.keys(constants);
  const columns = [...matchColumns, ...setColumns];
  for (const row of rows) {
    for (const column of matchColumns)
      if (!bindable(table, column, row.match[column])) throw new InternalError(`${model.name}.${column}: not a value to bind`);
    for (const column of setColumns)
      if (!bindable(table, column, row.set[column])) throw new InternalError(`${model.name}.${column}: not a value to bind`);
  }
  for (const column of constantColumns)
    if (!bindable(table, column, constants[column])) throw new InternalError(`${model.name}.${column}: not a value to bind`);
  const pg = db.dialect === 'postgres';
  const slot = (column: string) => (pg ? `CAST(? AS ${pgTypeOf(model, column)})` : '?');
  const tuple = `(${columns.map(slot).join(', ')})`;
  const name = `"${table.name}"`;
  const alias = (i: number) => `c${i}`;
  const whereParts: string[] = [];
  const whereParams: unknown[] = [];
  if (options.where && !compileWhere(table, options.where, whereParts, whereParams)) {
    throw new InternalError(`${model.name}: a condition the prepared-statement path does not take`);
  }
  const assignments = [
    ...setColumns.map((column, i) => `"${column}" = v.${alias(matchColumns.length + i)}`),
    ...constantColumns.map((column) => `"${column}" = ?`),
  ];
  const conditions = [...matchColumns.map((column, i) => `${name}."${column}" = v.${alias(i)}`), ...whereParts];
  const sql =
    `WITH v(${columns.map((_, i) => alias(i)).join(', ')}) AS (VALUES ${rows.map(() => tuple).join(', ')}) ` +
    `UPDATE ${name} SET ${assignments.join(', ')} FROM v WHERE ${conditions.join(' AND ')} RETURNING ${name}."${matchColumns[0]}" AS k`;
  const params: unknown[] = [];
  for (const row of rows) {
    for (const column of matchColumns) params.push(encode(table, column, row.match[column]));
    for (const column of setColumns) params.push(encode(table, column, row.set[column]));
  }
  for (const column of constantColumns) params.push(encode(table, column, constants[column]));
  params.push(...whereParams);
  const changed = await db.sql.all<{ k: unknown }>(sql, params, { transaction: options.transaction });
  return new Set(changed.map((row) => row.k));
}
