import { Op } from 'sequelize';
import type { Dialect } from './dialect';
import type { RowModel } from './model-kit';
import { bigintNumber } from './model-kit';

/**
 * A model's table as the hot data path (db/statements, through db/scoped) reads and writes it: its columns, how each
 * value is written (bound) and read back, and the SQL of a `where` of plain conditions. Values are stored exactly as
 * Sequelize stores them, so that both paths read each other's rows: on SQLite a date is the text
 * `YYYY-MM-DD HH:MM:SS.sss +00:00`, a boolean 1 or 0, JSON its text; on Postgres the driver binds and parses them.
 * Rows come back with the same types a model gives (`get({ plain: true })`): Dates, booleans, parsed JSON, BIGINT
 * columns as safe numbers.
 */

type Kind = 'date' | 'boolean' | 'json' | 'bigint' | 'plain';

export interface Table {
  name: string;
  dialect: Dialect;
  /** the attributes, in the model's order */
  columns: string[];
  kinds: Map<string, Kind>;
  /** the columns whose values are converted when read (dates, booleans, JSON, BIGINT), with their kinds */
  converted: Array<[string, Kind]>;
  /** the attributes' defaults (Sequelize's defaultValue), applied to an insert that leaves them out */
  defaults: Array<[string, unknown]>;
  /** `"a", "b", …` */
  selectList: string;
  /** whether Sequelize hooks watch the table (read caches): its writes must stay on the model, which runs them */
  hooked: boolean;
}

const tables = new WeakMap<object, Table>();

function kindOf(type: unknown): Kind {
  const key = (type as { key?: string } | undefined)?.key;
  if (key === 'DATE') return 'date';
  if (key === 'BOOLEAN') return 'boolean';
  if (key === 'JSON' || key === 'JSONB') return 'json';
  if (key === 'BIGINT') return 'bigint';
  return 'plain';
}

const HOOKS = [
  'beforeCreate',
  'afterCreate',
  'beforeBulkCreate',
  'afterBulkCreate',
  'beforeUpdate',
  'afterUpdate',
  'beforeBulkUpdate',
  'afterBulkUpdate',
  'beforeValidate',
  'afterValidate',
];

/** The table of a model, or null when its attributes map to other column names (it stays on Sequelize). */
export function tableOf(model: RowModel<object>, dialect: Dialect): Table | null {
  const known = tables.get(model);
  if (known) return known.dialect === dialect ? known : null;
  const attributes = model.getAttributes() as Record<string, { type: unknown; field?: string; defaultValue?: unknown }>;
  const columns = Object.keys(attributes);
  if (columns.some((c) => (attributes[c].field ?? c) !== c || c.includes('"'))) return null;
  const kinds = new Map(columns.map((c) => [c, kindOf(attributes[c].type)]));
  const defaults = columns
    .filter(
      (c) =>
        attributes[c].defaultValue !== undefined &&
        typeof attributes[c].defaultValue !== 'object' &&
        typeof attributes[c].defaultValue !== 'function',
    )
    .map((c) => [c, attributes[c].defaultValue] as [string, unknown]);
  const hooked = HOOKS.some((hook) => (model as unknown as { hasHook(name: string): boolean }).hasHook(hook));
  const converted = [...kinds].filter(([, kind]) => kind !== 'plain');
  const table: Table = {
    name: model.getTableName() as string,
    dialect,
    columns,
    kinds,
    converted,
    defaults,
    selectList: columns.map((c) => `"${c}"`).join(', '),
    hooked,
  };
  tables.set(model, table);
  return table;
}

/** `2026-11-26 12:00:00.000 +00:00`: how Sequelize stores a date on SQLite (text, so that it compares in order). */
export function sqliteDate(value: Date): string {
  const iso = value.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)} +00:00`;
}

function readDate(value: unknown): Date | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value;
  if (typeof value === 'string' && value.length === 30 && value.endsWith(' +00:00')) {
    return new Date(`${value.slice(0, 10)}T${value.slice(11, 23)}Z`);
  }
  // other forms Sequelize also reads (no offset: UTC)
  return new Date(typeof value === 'string' && !/[+Z]/.test(value.slice(10)) ? `${value}+00:00` : (value as string));
}

/** Whether a value can be bound to a column as it is (not a Sequelize literal, function or operator object). */
export function bindable(table: Table, column: string, value: unknown): boolean {
  const kind = table.kinds.get(column);
  if (!kind) return false;
  if (kind === 'json' || value === null || value === undefined || value instanceof Date) return true;
  return ['string', 'number', 'boolean'].includes(typeof value);
}

/** A value as it is bound for a column. */
export function encode(table: Table, column: string, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  switch (table.kinds.get(column)) {
    case 'date': {
      const date = value instanceof Date ? value : new Date(value as string);
      return table.dialect === 'sqlite' ? sqliteDate(date) : date;
    }
    case 'boolean':
      return table.dialect === 'sqlite' ? (value ? 1 : 0) : Boolean(value);
    case 'json':
      return JSON.stringify(value);
    default:
      return value;
  }
}

/**
 * A row as the driver returned it (every column of the table: a SELECT or RETURNING of its selectList), with the types
 * a model would give. The driver's object is converted in place, only in the columns that need it: each row is the
 * driver's own (or the read memo's copy), and a list of rows with dozens of columns each is read on every request.
 */
export function decode<R>(table: Table, raw: Record<string, unknown>): R {
  for (const [column, kind] of table.converted) {
    const value = raw[column];
    if (value === null || value === undefined) continue;
    switch (kind) {
      case 'date':
        raw[column] = readDate(value);
        break;
      case 'boolean':
        if (typeof value !== 'boolean') raw[column] = Boolean(Number(value));
        break;
      case 'json':
        if (typeof value === 'string' && table.dialect === 'sqlite') raw[column] = JSON.parse(value);
        break;
      case 'bigint':
        raw[column] = bigintNumber(value as number | string);
        break;
    }
  }
  return raw as R;
}

/** A `where` as SQL with its bound values; null when it holds something this compiler does not take (it stays on Sequelize). */
export interface Compiled {
  sql: string;
  params: unknown[];
}

const OPS = new Map<symbol, string>([
  [Op.eq, '='],
  [Op.ne, '!='],
  [Op.gt, '>'],
  [Op.gte, '>='],
  [Op.lt, '<'],
  [Op.lte, '<='],
]);

/** Adds the conditions of `where` (plain values, arrays, Op.eq/ne/gt/gte/lt/lte/in/notIn/is/or/and) to `parts`. */
export function compileWhere(table: Table, where: Record<string | symbol, unknown>, parts: string[], params: unknown[]): boolean {
  for (const key of Reflect.ownKeys(where)) {
    const value = (where as Record<string | symbol, unknown>)[key as string];
    if (value === undefined) continue;
    if (typeof key === 'symbol') {
      if ((key !== Op.and && key !== Op.or) || !Array.isArray(value)) return false;
      const groups: string[] = [];
      for (const item of value) {
        const inner: string[] = [];
        if (!item || typeof item !== 'object' || !compileWhere(table, item as Record<string, unknown>, inner, params)) return false;
        groups.push(inner.length ? `(${inner.join(' AND ')})` : '1 = 1');
      }
      if (!groups.length) parts.push(key === Op.and ? '1 = 1' : '1 = 0');
      else parts.push(`(${groups.join(key === Op.and ? ' AND ' : ' OR ')})`);
      continue;
    }
    if (!table.kinds.has(key) || table.kinds.get(key) === 'json') return false;
    if (!compileCondition(table, key, value, parts, params)) return false;
  }
  return true;
}

/**
 * Whether a driver's row (as the database gave it) meets a `where` of plain equalities (a string, a number, a boolean
 * or null per column): true or false; null when the where holds anything else (an operator, a date, a symbol key).
 */
export function matchesWhere(table: Table, row: Record<string, unknown>, where: Record<string | symbol, unknown>): boolean | null {
  if (Object.getOwnPropertySymbols(where).length) return null;
  let matches = true;
  for (const [column, value] of Object.entries(where)) {
    if (value === undefined) continue;
    if (!table.kinds.has(column)) return null;
    if (value === null) matches &&= row[column] === null;
    else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
      matches &&= row[column] === encode(table, column, value);
    else return null;
  }
  return matches;
}

function isPlainValue(value: unknown): boolean {
  return value === null || value instanceof Date || ['string', 'number', 'boolean'].includes(typeof value);
}

function compileCondition(table: Table, column: string, value: unknown, parts: string[], params: unknown[]): boolean {
  const name = `"${column}"`;
  if (value === null) {
    parts.push(`${name} IS NULL`);
    return true;
  }
  if (isPlainValue(value)) {
    parts.push(`${name} = ?`);
    params.push(encode(table, column, value));
    return true;
  }
  if (Array.isArray(value)) return compileIn(table, column, value, false, parts, params);
  if (typeof value !== 'object' || Object.keys(value as object).length) return false;
  for (const op of Object.getOwnPropertySymbols(value)) {
    const operand = (value as Record<symbol, unknown>)[op];
    if (op === Op.in || op === Op.notIn) {
      if (!Array.isArray(operand) || !compileIn(table, column, operand, op === Op.notIn, parts, params)) return false;
      continue;
    }
    if (op === Op.or && Array.isArray(operand)) {
      const alternatives: string[] = [];
      for (const item of operand) {
        const inner: string[] = [];
        if (!compileCondition(table, column, item, inner, params)) return false;
        alternatives.push(inner.length ? inner.join(' AND ') : '1 = 1');
      }
      parts.push(alternatives.length ? `(${alternatives.join(' OR ')})` : '1 = 0');
      continue;
    }
    if (op === Op.is && operand === null) {
      parts.push(`${name} IS NULL`);
      continue;
    }
    if (op === Op.not && operand === null) {
      parts.push(`${name} IS NOT NULL`);
      continue;
    }
    const sql = OPS.get(op);
    if (!sql || !isPlainValue(operand)) return false;
    if (operand === null) {
      if (op !== Op.eq && op !== Op.ne) return false;
      parts.push(`${name} IS ${op === Op.eq ? '' : 'NOT '}NULL`);
      continue;
    }
    parts.push(`${name} ${sql} ?`);
    params.push(encode(table, column, operand));
  }
  return true;
}

function compileIn(table: Table, column: string, values: unknown[], negated: boolean, parts: string[], params: unknown[]): boolean {
  if (!values.every((v) => v !== null && isPlainValue(v))) return false;
  if (!values.length) {
    // as Sequelize: IN () matches nothing, NOT IN () is no condition
    if (!negated) parts.push('1 = 0');
    return true;
  }
  parts.push(`"${column}" ${negated ? 'NOT IN' : 'IN'} (${values.map(() => '?').join(', ')})`);
  for (const v of values) params.push(encode(table, column, v));
  return true;
}

/**
 * One INSERT of rows that all name the same columns (the first row's, undefined values left out), with their values
 * bound; RETURNING every column when asked. Null when the rows name different columns or hold a value that cannot be
 * bound as it is (the caller writes them another way).
 */
export function insertStatement(table: Table, rows: Record<string, unknown>[], returning: boolean): Compiled | null {
  if (!rows.length) return null;
  const columns = Object.keys(rows[0]).filter((column) => rows[0][column] !== undefined);
  const shape = columns.join();
  for (const row of rows) {
    if (
      Object.keys(row)
        .filter((column) => row[column] !== undefined)
        .join() !== shape
    )
      return null;
    for (const column of columns) if (!bindable(table, column, row[column])) return null;
  }
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  return {
    sql: `INSERT INTO "${table.name}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES ${rows.map(() => tuple).join(', ')}${returning ? ` RETURNING ${table.selectList}` : ''}`,
    params: rows.flatMap((row) => columns.map((column) => encode(table, column, row[column]))),
  };
}
