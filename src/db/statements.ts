import { DatabaseError, ForeignKeyConstraintError, TimeoutError, UniqueConstraintError, type Sequelize, type Transaction } from 'sequelize';
import type { Dialect } from './dialect';

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
}

/** What the connection guard of db/database checks before a query runs (test mode only). */
export type QueryGuard = (sql: string, transaction: Transaction | null | undefined) => Error | null;

export class Statements {
  constructor(
    private readonly sequelize: Sequelize,
    readonly dialect: Dialect,
    private readonly guard: QueryGuard | null,
  ) {}

  /** The rows of a SELECT (or of a statement with RETURNING). */
  async all<T = Record<string, unknown>>(sql: string, params: unknown[], options: StatementOptions = {}): Promise<T[]> {
    return (await this.execute(sql, params, options, 'all')) as T[];
  }

  /** Runs an INSERT, UPDATE or DELETE: the number of rows it changed. */
  async run(sql: string, params: unknown[], options: StatementOptions = {}): Promise<number> {
    return (await this.execute(sql, params, options, 'run')) as number;
  }

  private async execute(sql: string, params: unknown[], options: StatementOptions, kind: 'all' | 'run'): Promise<unknown> {
    const transaction = options.transaction ?? null;
    if (this.guard) {
      const refused = this.guard(sql, transaction);
      if (refused) throw refused;
    }
    const hooked = this.sequelize.hasHook('beforeQuery') || this.sequelize.hasHook('afterQuery');
    const query = { sql, bind: params, fast: true };
    if (hooked) await runHooks(this.sequelize, 'beforeQuery', { transaction }, query);
    const manager = this.sequelize.connectionManager as unknown as {
      getConnection(options: object): Promise<unknown>;
      releaseConnection(connection: unknown): void | Promise<void>;
    };
    const own = transaction ? null : await manager.getConnection({ type: kind === 'all' ? 'SELECT' : 'RAW', uuid: 'default' });
    const connection = transaction ? (transaction as unknown as { connection: unknown }).connection : own;
    try {
      const result = this.dialect === 'sqlite'
        ? await sqliteExecute(connection as SqliteConnection, sql, params, kind)
        : await pgExecute(connection as PgConnection, sql, params, kind);
      if (hooked) await runHooks(this.sequelize, 'afterQuery', { transaction }, query);
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
    else statement.run(params, function (error) { return error ? reject(error) : resolve(this.changes); });
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
    statement.then((s) => s.finalize(), () => undefined);
  }
  return prepared;
}

/** Finalizes a SQLite connection's kept statements (before it closes: SQLite refuses to close with statements open). */
export async function finalizeStatements(connection: unknown): Promise<void> {
  const cache = (connection as SqliteConnection).__payplaneStatements;
  if (!cache) return;
  const kept = [...cache.values()];
  cache.clear();
  await Promise.all(kept.map((p) => p.then((s) => new Promise<void>((resolve) => s.finalize(() => resolve())), () => undefined)));
}

async function pgExecute(connection: PgConnection, sql: string, params: unknown[], kind: 'all' | 'run'): Promise<unknown> {
  const result = await connection.query({ ...pgStatement(sql), values: params });
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
