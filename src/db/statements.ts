import { DatabaseError, ForeignKeyConstraintError, TimeoutError, UniqueConstraintError, type Sequelize, type Transaction } from 'sequelize';
import type { Dialect } from './dialect';
import { insertStatement, type Table } from './table';
import { CONFIG_TABLES } from './config-tables';

/**
 * Prepared statements, kept per connection: the hot data path (db/scoped's reads, inserts and updates, the outbox,
 * the ledger) sends its SQL here instead of through Sequelize's query pipeline. A statement is compiled by the
 * database once per connection and run with bound values; the rows come back as the driver gives them (plain
 * objects: no model instances, no stack trace captured per query). SQL is written with `?` placeholders; on Postgres
 * they become `$1…$n` and the statement is a named prepared statement of the connection (pg keeps it); on SQLite a
 * `Statement` object is kept per connection (db/database's SqliteConnections keep their connections for the life of
 * the process). Queries go to the caller's transaction when it has one, otherwise to a connection of the pool (on
 * SQLite a reader). Sequelize's beforeQuery/afterQuery hooks still see every statement (tests count them), and errors
 * come back as Sequelize's error classes (UniqueConstraintError, ForeignKeyConstraintError, TimeoutError,
 * DatabaseError), as the rest of the code expects.
 */

interface SqliteStatement {
  all(params: unknown[], callback: (error: Error | null, rows: unknown[]) => void): void;
  run(params: unknown[], callback: (this: { changes: number }, error: Error | null) => void): void;
  finalize(callback?: (error: Error | null) => void): void;
}

interface SqliteConnection {
  prepare(sql: string, callback: (error: Error | null) => void): SqliteStatement;
  /** statements scheduled while `callback` runs are run one after the other, in order */
  serialize(callback: () => void): void;
  __payplaneStatements?: Map<string, Promise<SqliteStatement>>;
}

interface PgConnection {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

/** Statements kept per SQLite connection; beyond this many the least recently used is finalized. */
const SQLITE_STATEMENTS_PER_CONNECTION = 500;

/** Postgres: the statement's name per SQL text (names are per process; pg prepares each once per connection). */
const pgNames = new Map<string, { name: string; text: string }>();
const PG_NAMED_LIMIT = 2_000;

function pgStatement(sql: string): { name?: string; text: string } {
  let known = pgNames.get(sql);
  if (!known) {
    let n = 0;
    const text = sql.replace(/\?/g, () => `$${++n}`);
    // beyond the limit (SQL built from unbounded shapes) run unnamed rather than grow every connection's cache
    if (pgNames.size >= PG_NAMED_LIMIT) return { text };
    known = { name: `pp${pgNames.size + 1}`, text };
    pgNames.set(sql, known);
  }
  return known;
}

export interface StatementOptions {
  transaction?: Transaction | null;
  /**
   * A write on its own, outside any transaction (Database.writeAlone): SQLite sends it to the kept writer, which the
   * caller holds the write lock of; Postgres to a connection of the pool, as any statement without a transaction
   */
  alone?: boolean;
  /** Postgres: send it unprepared (transaction control: BEGIN, COMMIT, ROLLBACK) */
  unprepared?: boolean;
  /**
   * A read of one row by its id (and the caller's scope) in a transaction: its row is kept for the transaction's other
   * reads of that id under another scope (Statements.keptRow); `locked`: the read locks it (FOR UPDATE)
   */
  byId?: { id: string; locked: boolean };
}

/** What the connection guard of db/database checks before a query runs (test mode only). */
export type QueryGuard = (sql: string, transaction: Transaction | null | undefined) => Error | null;

/**
 * What a transaction has read, so that it does not read it again: a SELECT of one table sent in a transaction is kept
 * (its SQL and bound values are the key, FOR UPDATE included) until the transaction writes to that table, through
 * here or through Sequelize (Database wires Sequelize's queries to `wrote`); any other statement, or one whose table
 * cannot be told, forgets everything. A transaction sees its own snapshot of what it read: on SQLite no other writer
 * runs meanwhile; on Postgres a row read again within one transaction is the one it read (a row it locked cannot
 * change). Each answer is a copy.
 */
class ReadMemo {
  private readonly byTransaction = new WeakMap<object, Map<string, Map<string, unknown[]>>>();
  /** writes seen per transaction: a read that overlapped a write of its transaction is not kept */
  private readonly writes = new WeakMap<object, number>();

  /** The transaction's count of writes, taken when a read is sent. */
  stamp(transaction: Transaction): number {
    return this.writes.get(this.root(transaction)) ?? 0;
  }

  private root(transaction: Transaction): object {
    return rootOf(transaction);
  }

  get(transaction: Transaction, table: string, key: string): unknown[] | undefined {
    const rows = this.byTransaction.get(this.root(transaction))?.get(table)?.get(key);
    return rows && rows.map(copyRow);
  }

  /** Keeps one copy of `rows` under each of `keys` (a read's SQL and values, and its row by id). */
  set(transaction: Transaction, table: string, keys: string[], rows: unknown[], stamp: number): void {
    const root = this.root(transaction);
    if ((this.writes.get(root) ?? 0) !== stamp) return;
    let tables = this.byTransaction.get(root);
    if (!tables) this.byTransaction.set(root, (tables = new Map()));
    let entries = tables.get(table);
    if (!entries) tables.set(table, (entries = new Map()));
    const copy = rows.map(copyRow);
    for (const key of keys) entries.set(key, copy);
  }

  /**
   * The row of `table` with this id as a read of the transaction returned it (`locked`: by a read that locked it),
   * a copy; kept with the read's answer and forgotten with it.
   */
  row(transaction: Transaction, table: string, id: string, locked: boolean): Record<string, unknown> | undefined {
    const entries = this.byTransaction.get(this.root(transaction))?.get(table);
    const rows = entries?.get(byIdKey(id, true)) ?? (locked ? undefined : entries?.get(byIdKey(id, false)));
    return rows?.length === 1 ? (copyRow(rows[0]) as Record<string, unknown>) : undefined;
  }

  /** A statement that is not a read of one table ran in the transaction: forget what it may have changed. */
  wrote(transaction: Transaction, sql: string): void {
    const root = this.root(transaction);
    this.writes.set(root, (this.writes.get(root) ?? 0) + 1);
    const tables = this.byTransaction.get(root);
    if (!tables) return;
    const written = writtenTable(sql);
    if (written) tables.delete(written);
    else tables.clear();
  }
}

/**
 * Answers of configuration reads kept between transactions, so that a payment does not read its merchant, terminals,
 * rules and fees again each time: a SELECT of one table of CONFIG_TABLES sent in a transaction (no FOR UPDATE) is kept
 * under its SQL and bound values, with the count of configuration changes (config_version, bumped by a trigger on
 * each of those tables in the transaction that writes, by whatever process) that the transaction read first. A
 * transaction uses a kept answer only if it read the same count: what it gets is what it would have read at the time
 * it read the count. A transaction that has written to a configuration table (or sent a statement whose table cannot
 * be told) reads them itself and keeps nothing. Answers of a newer count replace the older ones; the least recently
 * used go beyond KEPT_ANSWERS. Each answer is a copy.
 */
class ConfigCache {
  private static readonly KEPT_ANSWERS = 2_000;
  private static readonly TABLES: ReadonlySet<string> = new Set(CONFIG_TABLES);
  private version = 0;
  private readonly answers = new Map<string, unknown[]>();
  /** the count each transaction read (a promise: its statements may ask at once) */
  private readonly read = new WeakMap<object, Promise<number | null>>();
  /** transactions that wrote to a configuration table, or sent a statement whose table cannot be told */
  private readonly writers = new WeakSet<object>();

  /** Whether answers of this SELECT of `table` may be kept. */
  keeps(table: string, sql: string): boolean {
    return ConfigCache.TABLES.has(table) && !/\bFOR\s+(UPDATE|SHARE|NO KEY UPDATE|KEY SHARE)\b/i.test(sql);
  }

  /** The count the transaction reads with (read once, by `readCount`), or null: it reads for itself. */
  countOf(transaction: Transaction, readCount: () => Promise<number | null>): Promise<number | null> {
    const root = rootOf(transaction);
    if (this.writers.has(root)) return Promise.resolve(null);
    let count = this.read.get(root);
    if (!count) {
      count = readCount();
      this.read.set(root, count);
      count.catch(() => this.read.delete(root));
    }
    return count;
  }

  /** The count the transaction read with its BEGIN (Statements.begin). */
  setCount(transaction: Transaction, count: number | null): void {
    this.read.set(rootOf(transaction), Promise.resolve(count));
  }

  get(count: number, key: string): unknown[] | undefined {
    if (count !== this.version) return undefined;
    const rows = this.answers.get(key);
    if (!rows) return undefined;
    // most recently used last
    this.answers.delete(key);
    this.answers.set(key, rows);
    return rows.map(copyRow);
  }

  set(count: number, key: string, rows: unknown[]): void {
    if (count < this.version) return;
    if (count > this.version) {
      this.answers.clear();
      this.version = count;
    }
    this.answers.set(key, rows.map(copyRow));
    if (this.answers.size > ConfigCache.KEPT_ANSWERS) this.answers.delete(this.answers.keys().next().value as string);
  }

  /** A statement other than a SELECT ran in the transaction: one that may change configuration ends its use of the cache. */
  wrote(transaction: Transaction, sql: string): void {
    if (/^\s*(SELECT|BEGIN|START|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\b/i.test(sql)) return;
    this.wroteTo(transaction, writtenTable(sql));
  }

  /** The transaction writes (or will write, before its COMMIT) to `table` (null: a table that cannot be told). */
  wroteTo(transaction: Transaction, table: string | null): void {
    if (table === null || ConfigCache.TABLES.has(table)) this.writers.add(rootOf(transaction));
  }
}

/** Where ReadMemo keeps the row a read by id returned (apart from any SQL text: the key of a statement starts with its SQL). */
function byIdKey(id: string, locked: boolean): string {
  return `\u0000${locked ? 'locked' : 'read'}\u0000${id}`;
}

/** A copy of a driver's row: its values are primitives (SQLite), or also Dates and parsed JSON (Postgres), copied too. */
function copyRow(row: unknown): unknown {
  const copy: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row as Record<string, unknown>)) {
    copy[column] =
      value === null || typeof value !== 'object' ? value : value instanceof Date ? new Date(value.getTime()) : structuredClone(value);
  }
  return copy;
}

/** The one table a SELECT reads (no join, no subquery), or null. */
function readTable(sql: string): string | null {
  if (!/^SELECT\b/i.test(sql)) return null;
  const from = sql.match(/\b(FROM|JOIN)\s/gi);
  if (!from || from.length !== 1) return null;
  return /\bFROM\s+[`"]?([\w]+)[`"]?/i.exec(sql)?.[1] ?? null;
}

/** The table an INSERT, UPDATE or DELETE writes (null: not one of them, or several tables). */
function writtenTable(sql: string): string | null {
  const m = /^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+[`"]?(\w+)[`"]?/i.exec(sql);
  return m ? m[1] : null;
}

/** The root of a transaction (a savepoint's own is its parent's). */
function rootOf(transaction: Transaction): object {
  let t = transaction as Transaction & { parent?: Transaction };
  while (t.parent) t = t.parent as Transaction & { parent?: Transaction };
  return t;
}

/** The count of configuration changes (ConfigCache). */
const CONFIG_COUNT_SQL = 'SELECT "version" FROM "config_version" WHERE "id" = 1';

/** config_version is not there (SQLite: no such table; Postgres: 42P01, relation does not exist). */
function isMissingCount(error: unknown): boolean {
  return /config_version/.test(String((error as Error)?.message)) && /no such table|does not exist/.test(String((error as Error)?.message));
}

/** Rows a transaction writes at its end (see Statements.defer). */
interface DeferredRows {
  table: Table;
  rows: Record<string, unknown>[];
  /** INSERT … ON CONFLICT DO NOTHING: a row whose unique key is already there is left out */
  ignoreConflicts: boolean;
}

export class Statements {
  private readonly memo = new ReadMemo();
  private readonly config = new ConfigCache();
  /**
   * Where the count of configuration changes is read (see begin): `lazy` until a read of it succeeded in this process,
   * then with each BEGIN; `missing` while config_version is not there (a database not yet migrated, or its migration
   * rolled back): configuration is then read each time, and BEGIN tries the count again at most every missingRetryMs.
   */
  private countRead: 'lazy' | 'begin' | 'missing' = 'lazy';
  private missingSince = 0;
  missingRetryMs = 5_000;
  /** rows a transaction writes at its end, per table in the order the tables first came (see defer) */
  private readonly deferred = new WeakMap<object, Map<string, DeferredRows>>();
  /** a flush in progress per transaction: a statement sent meanwhile waits for it */
  private readonly flushing = new WeakMap<object, Promise<void>>();

  /**
   * Rows the transaction inserts when it ends, just before its COMMIT: the outbox's events and deliveries and the
   * audit entries of a transaction go in one multi-row INSERT per table instead of one each. A statement of the
   * transaction that names one of those tables (a read of them, through here or through Sequelize) first writes
   * what is pending; a rollback forgets it.
   */
  defer(transaction: Transaction, table: Table, rows: Record<string, unknown>[], options: { ignoreConflicts?: boolean } = {}): void {
    const root = rootOf(transaction);
    this.config.wroteTo(transaction, table.name);
    let pending = this.deferred.get(root);
    if (!pending) this.deferred.set(root, (pending = new Map()));
    // rows that may already be there (ignoreConflicts: INSERT … ON CONFLICT DO NOTHING) go in an INSERT of their own
    const key = options.ignoreConflicts ? `${table.name}\u0000ignore` : table.name;
    let entry = pending.get(key);
    if (!entry) pending.set(key, (entry = { table, rows: [], ignoreConflicts: options.ignoreConflicts === true }));
    entry.rows.push(...rows);
  }

  /** Whether a statement of the transaction names a table with rows still to write. */
  mustFlushBefore(sql: string, transaction: Transaction): boolean {
    const pending = this.deferred.get(rootOf(transaction));
    if (!pending) return false;
    for (const {
      table: { name },
    } of pending.values())
      if (new RegExp(`\\b(FROM|JOIN|INTO|UPDATE)\\s+[\`"]?${name}[\`"]?(\\s|$|\\()`, 'i').test(sql)) return true;
    return false;
  }

  /** Writes the transaction's pending rows (a multi-row INSERT per table and shape of row). */
  async flush(transaction: Transaction): Promise<void> {
    const root = rootOf(transaction);
    const flushing = this.flushing.get(root);
    if (flushing) return flushing;
    const pending = this.deferred.get(root);
    if (!pending) return;
    this.deferred.delete(root);
    const done = this.write(transaction, pending).finally(() => this.flushing.delete(root));
    this.flushing.set(root, done);
    return done;
  }

  private async write(transaction: Transaction, pending: Map<string, DeferredRows>): Promise<void> {
    const inserts: { sql: string; params: unknown[] }[] = [];
    for (const { table, rows, ignoreConflicts } of pending.values()) {
      const shapes = new Map<string, Record<string, unknown>[]>();
      for (const row of rows) {
        const shape = Object.keys(row)
          .filter((column) => row[column] !== undefined)
          .join();
        const same = shapes.get(shape);
        if (same) same.push(row);
        else shapes.set(shape, [row]);
      }
      for (const group of shapes.values()) {
        const insert = insertStatement(table, group, false);
        if (!insert) throw new Error(`rows of ${table.name} that cannot be bound as they are`);
        inserts.push(ignoreConflicts ? { sql: `${insert.sql} ON CONFLICT DO NOTHING`, params: insert.params } : insert);
      }
    }
    // Postgres: one statement, the INSERTs before the last as data-modifying WITH clauses (a foreign key between them,
    // a delivery's event, is checked at the statement's end, when all are in); SQLite: one INSERT each
    if (this.dialect === 'postgres' && inserts.length > 1) {
      const last = inserts[inserts.length - 1];
      const sql = `WITH ${inserts
        .slice(0, -1)
        .map((insert, i) => `w${i} AS (${insert.sql})`)
        .join(', ')} ${last.sql}`;
      await this.execute(
        sql,
        inserts.flatMap((insert) => insert.params),
        { transaction },
        'run',
        true,
      );
      return;
    }
    if (this.dialect === 'sqlite' && inserts.length > 1) {
      await this.sqliteInOrder(transaction, inserts);
      return;
    }
    for (const insert of inserts) await this.execute(insert.sql, insert.params, { transaction }, 'run', true);
  }

  /**
   * SQLite: statements of a transaction sent together, run one after the other in the order given (the connection's
   * serialized mode), each started by the driver as the one before ends, without a turn of the event loop between
   * them: the writer is held for less time. Every one runs whatever the others did; the first error is thrown (the
   * transaction then rolls back).
   */
  private async sqliteInOrder(
    transaction: Transaction,
    statements: { sql: string; params: unknown[]; kind?: 'all' | 'run' }[],
  ): Promise<unknown[]> {
    for (const { sql } of statements) {
      const refused = this.guard?.(sql, transaction);
      if (refused) throw refused;
      this.memo.wrote(transaction, sql);
    }
    const hooked = this.sequelize.hasHook('beforeQuery') || this.sequelize.hasHook('afterQuery');
    const queries = statements.map(({ sql, params }) => ({ sql, bind: params, fast: true }));
    if (hooked) for (const query of queries) await runHooks(this.sequelize, 'beforeQuery', { transaction }, query);
    const connection = (transaction as unknown as { connection: SqliteConnection }).connection;
    const prepared = await Promise.all(statements.map(({ sql }) => sqlitePrepared(connection, sql)));
    const runs: Promise<unknown>[] = [];
    connection.serialize(() => {
      prepared.forEach((statement, i) => {
        const { params, kind } = statements[i];
        runs.push(
          new Promise((resolve, reject) => {
            if (kind === 'all') statement.all(params, (error, rows) => (error ? reject(error) : resolve(rows)));
            else
              statement.run(params, function (error) {
                return error ? reject(error) : resolve(this.changes);
              });
          }),
        );
      });
    });
    const settled = await Promise.allSettled(runs);
    const failed = settled.findIndex((r) => r.status === 'rejected');
    if (failed >= 0) throw asSequelizeError((settled[failed] as PromiseRejectedResult).reason as Error, statements[failed].sql);
    if (hooked) for (const query of queries) await runHooks(this.sequelize, 'afterQuery', { transaction }, query);
    return settled.map((r) => (r as PromiseFulfilledResult<unknown>).value);
  }

  /**
   * A transaction's BEGIN, with the count of configuration changes (ConfigCache) read in the same trip: on Postgres
   * one simple query of the two statements, on SQLite the two in order without a turn of the event loop between them.
   * Until a read of the count has succeeded in this process (a database not yet migrated has no config_version),
   * BEGIN goes alone and the count is read when first needed.
   */
  async begin(transaction: Transaction, sql: string): Promise<void> {
    const retry = this.countRead === 'missing' && Date.now() - this.missingSince >= this.missingRetryMs;
    if (this.countRead === 'lazy' || (this.countRead === 'missing' && !retry)) {
      await this.run(sql, [], { transaction, unprepared: true });
      return;
    }
    let rows: { version: number | string }[];
    try {
      if (this.dialect === 'postgres') {
        rows = await this.all(`${sql} ${CONFIG_COUNT_SQL}`, [], { transaction, unprepared: true });
      } else {
        const [, selected] = await this.sqliteInOrder(transaction, [
          { sql, params: [] },
          { sql: CONFIG_COUNT_SQL, params: [], kind: 'all' },
        ]);
        rows = selected as { version: number | string }[];
      }
    } catch (error) {
      if (!isMissingCount(error)) throw error;
      // the table is not there: this transaction reads configuration itself; on Postgres the failed SELECT ended the
      // transaction's use, so it starts again
      this.countMissing();
      this.config.setCount(transaction, null);
      if (this.dialect === 'postgres') {
        await this.run('ROLLBACK', [], { transaction, unprepared: true });
        await this.run(sql, [], { transaction, unprepared: true });
      }
      return;
    }
    this.countRead = 'begin';
    this.config.setCount(transaction, rows[0] ? Number(rows[0].version) : null);
  }

  private countMissing(): void {
    this.countRead = 'missing';
    this.missingSince = Date.now();
  }

  /** The transaction rolled back: what it had still to write is forgotten. */
  forget(transaction: Transaction): void {
    this.deferred.delete(rootOf(transaction));
  }

  /** A statement sent through Sequelize in a transaction: what the transaction read of its table is forgotten. */
  sentThroughSequelize(sql: string, transaction: Transaction): void {
    if (/^\s*SELECT\b/i.test(sql)) return;
    this.memo.wrote(transaction, sql);
    this.config.wrote(transaction, sql);
  }

  constructor(
    private readonly sequelize: Sequelize,
    readonly dialect: Dialect,
    private readonly guard: QueryGuard | null,
  ) {}

  /**
   * The row of `table` with this id as an earlier read of the transaction returned it (a copy, as the driver gave it),
   * unless the transaction wrote to the table since; `locked`: only a row a locking read returned.
   */
  keptRow(transaction: Transaction, table: string, id: string, locked: boolean): Record<string, unknown> | undefined {
    return this.memo.row(transaction, table, id, locked);
  }

  /** The rows of a SELECT (or of a statement with RETURNING). */
  async all<T = Record<string, unknown>>(sql: string, params: unknown[], options: StatementOptions = {}): Promise<T[]> {
    return (await this.execute(sql, params, options, 'all')) as T[];
  }

  /** Runs an INSERT, UPDATE or DELETE: the number of rows it changed. */
  async run(sql: string, params: unknown[], options: StatementOptions = {}): Promise<number> {
    return (await this.execute(sql, params, options, 'run')) as number;
  }

  /** The count of configuration changes as the transaction sees it (null: no count to go by). */
  private async configCount(transaction: Transaction): Promise<number | null> {
    if (this.countRead === 'missing') return null;
    try {
      const [row] = await this.all<{ version: number | string }>(CONFIG_COUNT_SQL, [], { transaction });
      this.countRead = 'begin';
      return row ? Number(row.version) : null;
    } catch (error) {
      // SQLite goes on without it; on Postgres the transaction cannot (a failed statement ends it): it fails once
      if (isMissingCount(error)) this.countMissing();
      if (isMissingCount(error) && this.dialect === 'sqlite') return null;
      throw error;
    }
  }

  /**
   * `flushed`: a statement of the flush itself (it does not wait for the flush); `configRead`: a read of configuration
   * the ConfigCache did not have (it is sent as it is)
   */
  private async execute(
    sql: string,
    params: unknown[],
    options: StatementOptions,
    kind: 'all' | 'run',
    flushed = false,
    configRead = false,
  ): Promise<unknown> {
    const transaction = options.transaction ?? null;
    if (this.guard) {
      const refused = this.guard(sql, transaction);
      if (refused) throw refused;
    }
    if (transaction && !flushed) {
      const flushing = this.flushing.get(rootOf(transaction));
      if (flushing) await flushing;
      if (this.mustFlushBefore(sql, transaction)) await this.flush(transaction);
    }
    const read = transaction && kind === 'all' ? readTable(sql) : null;
    const key = read ? `${sql}\u0000${JSON.stringify(params)}` : '';
    if (read && !configRead && this.config.keeps(read, sql)) {
      const count = await this.config.countOf(transaction!, () => this.configCount(transaction!));
      if (count !== null) {
        const kept = this.config.get(count, key);
        if (kept) return kept;
        const rows = (await this.execute(sql, params, options, kind, flushed, true)) as unknown[];
        this.config.set(count, key, rows);
        return rows;
      }
    }
    const stamp = read ? this.memo.stamp(transaction!) : 0;
    if (read) {
      const kept = this.memo.get(transaction!, read, key);
      if (kept) return kept;
    } else if (transaction) {
      this.memo.wrote(transaction, sql);
      // the flush writes only the tables its rows were deferred to (defer told the cache of them)
      if (!flushed) this.config.wrote(transaction, sql);
    }
    const hooked = this.sequelize.hasHook('beforeQuery') || this.sequelize.hasHook('afterQuery');
    const query = { sql, bind: params, fast: true };
    if (hooked) await runHooks(this.sequelize, 'beforeQuery', { transaction }, query);
    const manager = this.sequelize.connectionManager as unknown as {
      getConnection(options: object): Promise<unknown>;
      releaseConnection(connection: unknown): void | Promise<void>;
    };
    const own = transaction
      ? null
      : await manager.getConnection({ type: kind === 'all' ? 'SELECT' : 'RAW', uuid: options.alone ? 'alone' : 'default' });
    const connection = transaction ? (transaction as unknown as { connection: unknown }).connection : own;
    try {
      const result =
        this.dialect === 'sqlite'
          ? await sqliteExecute(connection as SqliteConnection, sql, params, kind)
          : await pgExecute(connection as PgConnection, sql, params, kind, options.unprepared);
      if (hooked) await runHooks(this.sequelize, 'afterQuery', { transaction }, query);
      if (read) {
        const keys = options.byId ? [key, byIdKey(options.byId.id, options.byId.locked)] : [key];
        this.memo.set(transaction!, read, keys, result as unknown[], stamp);
      }
      return result;
    } catch (error) {
      throw asSequelizeError(error as Error & { code?: string }, sql);
    } finally {
      if (own) await manager.releaseConnection(own);
    }
  }
}

function runHooks(sequelize: Sequelize, name: string, ...args: unknown[]): Promise<void> {
  return (sequelize as unknown as { runHooks(name: string, ...args: unknown[]): Promise<void> }).runHooks(name, ...args);
}

async function sqliteExecute(connection: SqliteConnection, sql: string, params: unknown[], kind: 'all' | 'run'): Promise<unknown> {
  const statement = await sqlitePrepared(connection, sql);
  return new Promise((resolve, reject) => {
    if (kind === 'all') statement.all(params, (error, rows) => (error ? reject(error) : resolve(rows)));
    else
      statement.run(params, function (error) {
        return error ? reject(error) : resolve(this.changes);
      });
  });
}

function sqlitePrepared(connection: SqliteConnection, sql: string): Promise<SqliteStatement> {
  const cache = (connection.__payplaneStatements ??= new Map());
  const kept = cache.get(sql);
  if (kept) {
    // most recently used last
    cache.delete(sql);
    cache.set(sql, kept);
    return kept;
  }
  const prepared = new Promise<SqliteStatement>((resolve, reject) => {
    const statement = connection.prepare(sql, (error) => (error ? reject(error) : resolve(statement)));
  });
  cache.set(sql, prepared);
  prepared.catch(() => cache.delete(sql));
  if (cache.size > SQLITE_STATEMENTS_PER_CONNECTION) {
    const [oldest, statement] = cache.entries().next().value as [string, Promise<SqliteStatement>];
    cache.delete(oldest);
    statement.then(
      (s) => s.finalize(),
      () => undefined,
    );
  }
  return prepared;
}

/** Finalizes a SQLite connection's kept statements (before it closes: SQLite refuses to close with statements open). */
export async function finalizeStatements(connection: unknown): Promise<void> {
  const cache = (connection as SqliteConnection).__payplaneStatements;
  if (!cache) return;
  const kept = [...cache.values()];
  cache.clear();
  await Promise.all(
    kept.map((p) =>
      p.then(
        (s) => new Promise<void>((resolve) => s.finalize(() => resolve())),
        () => undefined,
      ),
    ),
  );
}

async function pgExecute(
  connection: PgConnection,
  sql: string,
  params: unknown[],
  kind: 'all' | 'run',
  unprepared?: boolean,
): Promise<unknown> {
  const answer = await connection.query(unprepared ? { text: sql, values: params } : { ...pgStatement(sql), values: params });
  // a simple query of several statements answers each: the last one's is the answer
  const result = Array.isArray(answer) ? (answer[answer.length - 1] as typeof answer) : answer;
  return kind === 'all' ? result.rows : (result.rowCount ?? 0);
}

/** The driver's error as the Sequelize error class the same failure raises through Sequelize. */
function asSequelizeError(error: Error & { code?: string; detail?: string; constraint?: string }, sql: string): Error {
  if (error instanceof DatabaseError || error instanceof UniqueConstraintError || error instanceof ForeignKeyConstraintError) return error;
  (error as Error & { sql?: string }).sql = sql;
  const code = error.code ?? '';
  if (code === '23505' || (code.startsWith('SQLITE_CONSTRAINT') && /UNIQUE|PRIMARY KEY/.test(error.message))) {
    const fields = uniqueFields(error);
    return new UniqueConstraintError({ message: 'Validation error', errors: [], parent: error, fields } as never);
  }
  if (code === '23503' || (code.startsWith('SQLITE_CONSTRAINT') && error.message.includes('FOREIGN KEY constraint failed'))) {
    return new ForeignKeyConstraintError({ parent: error } as never);
  }
  if (code === 'SQLITE_BUSY') return new TimeoutError(error as never);
  return new DatabaseError(error as never);
}

function uniqueFields(error: Error & { detail?: string }): string[] {
  const sqlite = /UNIQUE constraint failed: (.*)/.exec(error.message);
  if (sqlite) return sqlite[1].split(', ').map((column) => column.split('.')[1] ?? column);
  const pg = /Key \((.*?)\)=/.exec(error.detail ?? '');
  return pg ? pg[1].split(', ').map((c) => c.replace(/"/g, '')) : [];
}
