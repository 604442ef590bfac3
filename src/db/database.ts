import { AsyncLocalStorage } from 'node:async_hooks';
import fs from 'node:fs';
import path from 'node:path';
import { Mutex, Semaphore, withTimeout, type SemaphoreInterface } from 'async-mutex';
import { Sequelize, Transaction, UniqueConstraintError } from 'sequelize';
import type { Umzug } from 'umzug';
import { UnavailableError, ValidationError } from '../domain/errors';
import { defineModels, type Models } from './models';
import { MIGRATION_NAMES, migrations, type MigrationEnv } from './migrations';
import { ReadCache, readCacheTtlMs } from './read-cache';
import { finalizeStatements, Statements } from './statements';

import type { Dialect } from './dialect';
export type { Dialect } from './dialect';

export interface DatabaseTarget {
  dialect: Dialect;
  /** sqlite: file path or ':memory:'; postgres: the connection URL */
  location: string;
}

/** `sqlite:<path>` (relative to the working directory), `sqlite::memory:`, or `postgres://…`. */
export function parseDatabaseUrl(url: string): DatabaseTarget {
  if (/^postgres(ql)?:\/\//.test(url)) {
    try {
      new URL(url);
    } catch {
      throw invalidDatabaseUrl(url, 'is not a valid postgres:// URL');
    }
    return { dialect: 'postgres', location: url };
  }
  const m = /^sqlite:(?:\/\/)?(.+)$/.exec(url);
  if (m) {
    const file = m[1];
    return { dialect: 'sqlite', location: file === ':memory:' ? file : path.resolve(file) };
  }
  throw invalidDatabaseUrl(url, 'must start with sqlite: or postgres://');
}

/** A database URL the platform cannot use: a usage error (exit 2) naming the flag and the variable. */
function invalidDatabaseUrl(url: string, problem: string): ValidationError {
  return new ValidationError(
    `The database URL ${problem} (got "${hidePassword(url)}").`,
    [{ path: '--database-url', message: problem }],
    'INVALID_DATABASE_URL',
    {
      hint: 'Pass --database-url (or set DATABASE_URL) to sqlite:<path> or postgres://user@host:5432/database.',
    },
  );
}

/** A database URL for messages: its password, if any, as ***. */
export const hidePassword = (url: string) => url.replace(/:[^:@/]*@/, ':***@');

/** Where a database is, for messages: the SQLite file, or Postgres's host, port and database (never a password). */
export function describeDatabase(target: DatabaseTarget): string {
  if (target.dialect === 'sqlite') return `SQLite file ${target.location}`;
  const url = new URL(target.location);
  return `Postgres at ${url.hostname || 'localhost'}:${url.port || '5432'}, database "${decodeURIComponent(url.pathname.slice(1)) || url.username || 'postgres'}"`;
}

/**
 * Creates the database `url` names when it does not exist: a SQLite file (mode 0600, its folder 0700), or a Postgres
 * database, created through the server's `postgres` database with the URL's user. Returns whether it was created.
 */
export async function createDatabase(url: string): Promise<boolean> {
  const target = parseDatabaseUrl(url);
  if (target.dialect === 'sqlite') {
    if (target.location === ':memory:' || fs.existsSync(target.location)) return false;
    preparePrivateSqliteFile(target.location);
    return true;
  }
  const wanted = new URL(target.location);
  const name = decodeURIComponent(wanted.pathname.slice(1));
  if (!name) throw invalidDatabaseUrl(url, 'names no database (postgres://user@host:5432/<database>)');
  const admin = new URL(target.location);
  admin.pathname = name === 'postgres' ? '/template1' : '/postgres';
  const { Client } = require('pg') as typeof import('pg');
  const client = new Client({ connectionString: admin.toString() });
  try {
    await client.connect();
  } catch (error) {
    throw unreachable({ dialect: 'postgres', location: admin.toString() }, { original: error });
  }
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount) return false;
    await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
    return true;
  } catch (error) {
    // created meanwhile by another process: as good as found
    if ((error as { code?: string }).code === '42P04') return false;
    throw new UnavailableError(`Cannot create ${describeDatabase(target)}: ${(error as Error).message}.`, 'DATABASE_NOT_CREATED', {
      hint: "The URL's user needs the CREATEDB privilege (or create it yourself: createdb <name>).",
    });
  } finally {
    await client.end().catch(() => undefined);
  }
}

const POINT_ELSEWHERE = 'Point to another with --database-url, DATABASE_URL or PAYPLANE_HOME (its payplane.db).';

/** Why a database could not be opened, as the unavailable error (exit 8) that names it and what to do. */
function unreachable(target: DatabaseTarget, error: unknown): UnavailableError {
  const cause = error as { message?: string; original?: { code?: string; message?: string }; parent?: { code?: string } };
  const code = cause.original?.code ?? cause.parent?.code;
  const where = describeDatabase(target);
  if (target.dialect === 'postgres' && code === '3D000') {
    return new UnavailableError(`${where} does not exist.`, 'DATABASE_NOT_FOUND', {
      hint: `\`payplane db create\`, \`payplane sandbox init\` or \`payplane serve\` with the same URL creates it. ${POINT_ELSEWHERE}`,
    });
  }
  const reason =
    code === 'ECONNREFUSED'
      ? 'connection refused'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? 'unknown host'
        : code === '28P01' || code === '28000'
          ? 'authentication failed'
          : (cause.original?.message ?? cause.message ?? String(error));
  const hint =
    target.dialect === 'postgres'
      ? `Check that Postgres runs there (pg_isready -h <host> -p <port>) and the URL's user and password. ${POINT_ELSEWHERE}`
      : `Check that the file and its folder are readable and writable. ${POINT_ELSEWHERE}`;
  return new UnavailableError(`Cannot open the ${where}: ${reason}.`, 'DATABASE_UNAVAILABLE', { hint });
}

// ------------------------------------------------------------------------------------ one connection per flow

/**
 * Test mode: a request or a job holds at most one pooled connection at a time. Database.transaction marks its async
 * flow with the transaction it holds; a query of that flow that runs outside it (through the pool, or in a second
 * transaction) would need a second connection while the first is held — under load, every connection of the pool
 * held by flows waiting for a second one — and is
 * refused: it throws, and is recorded so that a test fails even where the error is swallowed.
 *
 * Two switches turn it on, both set by the tests only (test/setup-env.ts):
 * - in the jest process, CONNECTION_GUARD on globalThis with NODE_ENV=test: refused queries are kept in memory
 *   (takeConnectionViolations; test/setup-after-env.ts fails the test with them);
 * - in the processes a test starts (`serve`, the CLI commands, `webhooks dispatch`), the environment variable
 *   PAYPLANE_CONNECTION_GUARD_REPORT, read once as the process starts and ignored under NODE_ENV=production: each
 *   refused query is written, with its stack, as one file into that folder, which the test reads
 *   (test/helpers/guard.ts).
 * Off (any production process), no query is wrapped: the hot path is as it would be without the guard.
 */
const flowTransaction = new AsyncLocalStorage<Transaction>();

/** Where refused queries are recorded (on globalThis: a test that resets its modules still reports into the same list). */
const VIOLATIONS = Symbol.for('payplane.connectionGuard.violations');

/** The test-only switch of the jest process (test/setup-env.ts). */
export const CONNECTION_GUARD = Symbol.for('payplane.connectionGuard.on');

/** The environment variable that turns the guard on in a process a test starts: the folder its refusals are written to. */
export const CONNECTION_GUARD_REPORT = 'PAYPLANE_CONNECTION_GUARD_REPORT';

/** the folder a process started by a test writes its refused queries to (null: not started by a test, or production) */
const reportFolder =
  process.env[CONNECTION_GUARD_REPORT] && process.env.NODE_ENV !== 'production' ? path.resolve(process.env[CONNECTION_GUARD_REPORT]) : null;

function guardedInMemory(): boolean {
  return process.env.NODE_ENV === 'test' && (globalThis as unknown as Record<symbol, unknown>)[CONNECTION_GUARD] === true;
}

export function connectionGuardOn(): boolean {
  return guardedInMemory() || reportFolder !== null;
}

/** The refused queries recorded in this process since the last call (and forgets them). */
export function takeConnectionViolations(): string[] {
  const store = globalThis as unknown as Record<symbol, string[] | undefined>;
  const taken = store[VIOLATIONS] ?? [];
  store[VIOLATIONS] = [];
  return taken;
}

let reported = 0;

/**
 * A refusal of a process a test started, written as one file `<pid>-<n>.txt` into the report folder (first under a
 * temporary name, then renamed: the test reads whole reports only): the command that ran, then the stack.
 */
function reportToFolder(folder: string, stack: string): void {
  const name = `${process.pid}-${String(++reported).padStart(6, '0')}`;
  const text = `payplane ${process.argv.slice(2).join(' ')} (pid ${process.pid})\n${stack}\n`;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.mkdirSync(folder, { recursive: true });
      fs.writeFileSync(path.join(folder, `${name}.tmp`), text);
      fs.renameSync(path.join(folder, `${name}.tmp`), path.join(folder, `${name}.txt`));
      return;
    } catch {
      // the test removed an empty folder in between: made again on the next attempt
    }
  }
}

function connectionViolation(
  what: string,
  advice = 'while this request or job holds an open transaction (a second pooled connection); run it inside that transaction, or after it',
): Error {
  // deep enough to reach the code that sent the query, past the guard's own frames and Sequelize's
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = Math.max(limit, 40);
  const error = new Error(`connection guard: ${what} ${advice}`);
  Error.stackTraceLimit = limit;
  const stack = error.stack ?? error.message;
  if (guardedInMemory()) {
    const store = globalThis as unknown as Record<symbol, string[] | undefined>;
    (store[VIOLATIONS] ??= []).push(stack);
  } else if (reportFolder) {
    reportToFolder(reportFolder, stack);
  }
  return error;
}

/** The flow's open transaction, when there is one (a finished one no longer holds its connection). */
function openFlowTransaction(): Transaction | undefined {
  const open = flowTransaction.getStore();
  return open && !(open as unknown as { finished?: string }).finished ? open : undefined;
}

function within(transaction: Transaction | null | undefined, open: Transaction): boolean {
  for (let t = transaction as (Transaction & { parent?: Transaction }) | null | undefined; t; t = t.parent) if (t === open) return true;
  return false;
}

/** The guard's refusal of a query sent outside the flow's open transaction, or null when it may run. */
function refusedQuery(sql: unknown, transaction: Transaction | null | undefined): Error | null {
  const open = openFlowTransaction();
  if (!open || within(transaction, open)) return null;
  const text = typeof sql === 'string' ? sql : String((sql as { query?: string } | null)?.query ?? sql);
  return connectionViolation(`the query "${text.replace(/\s+/g, ' ').slice(0, 160)}" ran outside the flow's transaction`);
}

/** Set while Database.transaction opens its transaction (and not in the transaction's own work). */
const openingFlowTransaction = new AsyncLocalStorage<boolean>();

function guardQueries(sequelize: Sequelize): void {
  const query = sequelize.query.bind(sequelize) as (...args: unknown[]) => Promise<unknown>;
  (sequelize as unknown as { query: (sql: unknown, options?: { transaction?: Transaction | null }) => Promise<unknown> }).query = (
    sql,
    options,
  ) => {
    const refused = refusedQuery(sql, options?.transaction);
    return refused ? Promise.reject(refused) : query(sql, options);
  };
  // a transaction that is not a savepoint is opened by Database.transaction only: one opened straight through Sequelize
  // (or by a Sequelize method that opens its own, as findOrCreate does) is no flow's to the guard, and on SQLite skips
  // the write lock
  const transaction = sequelize.transaction.bind(sequelize) as (...args: unknown[]) => Promise<unknown>;
  (sequelize as unknown as { transaction: (...args: unknown[]) => Promise<unknown> }).transaction = (...args) => {
    const options = typeof args[0] === 'function' ? undefined : (args[0] as { transaction?: Transaction | null } | undefined);
    if (!options?.transaction && openingFlowTransaction.getStore() !== true) {
      return Promise.reject(
        connectionViolation(
          'a transaction was opened through Sequelize, outside Database.transaction',
          openFlowTransaction()
            ? 'while this request or job holds an open transaction (a second pooled connection); run it inside that transaction, or after it'
            : '(its flow is unknown to the guard, and on SQLite it skips the write lock); open it with Database.transaction (inTransaction)',
        ),
      );
    }
    return transaction(...args);
  };
}

/**
 * A statement sent through Sequelize in a transaction tells db/statements' read memo what it may have changed, and
 * first writes the rows the transaction deferred to a table it names.
 */
function forgetReadsOnWrites(sequelize: Sequelize, sql: Statements): void {
  const query = sequelize.query.bind(sequelize) as (...args: unknown[]) => Promise<unknown>;
  (sequelize as unknown as { query: (text: unknown, options?: { transaction?: Transaction | null }) => Promise<unknown> }).query = (
    text,
    options,
  ) => {
    const transaction = options?.transaction;
    if (!transaction) return query(text, options);
    const statement = typeof text === 'string' ? text : String((text as { query?: string } | null)?.query ?? '');
    // rows the transaction deferred to a table this statement names are written first (db/statements' defer)
    if (sql.mustFlushBefore(statement, transaction)) {
      return sql.flush(transaction).then(() => {
        sql.sentThroughSequelize(statement, transaction);
        return query(text, options);
      });
    }
    sql.sentThroughSequelize(statement, transaction);
    return query(text, options);
  };
}

/**
 * BEGIN, COMMIT and ROLLBACK of a transaction (not of a savepoint) go to its connection through db/statements, like
 * the hot path's queries, instead of through Sequelize's query pipeline; Sequelize's Transaction objects, and
 * everything they do besides, stay as they are.
 */
function transactionControlOnStatements(sequelize: Sequelize, sql: Statements): void {
  type Control = (transaction: Transaction & { parent?: Transaction; finished?: string }, options?: object) => Promise<unknown>;
  const qi = sequelize.getQueryInterface() as unknown as {
    startTransaction: Control;
    commitTransaction: Control;
    rollbackTransaction: Control;
    queryGenerator: {
      startTransactionQuery(t: Transaction): string;
      commitTransactionQuery(t: Transaction): string;
      rollbackTransactionQuery(t: Transaction): string;
    };
  };
  const start = qi.startTransaction.bind(qi);
  const rollback = qi.rollbackTransaction.bind(qi);
  const generator = qi.queryGenerator;
  qi.startTransaction = async (transaction, options) => {
    if (transaction.parent) return start(transaction, options);
    return sql.begin(transaction, generator.startTransactionQuery(transaction));
  };
  qi.commitTransaction = async (transaction) => {
    if (transaction.parent) return undefined;
    try {
      // what the transaction deferred is written before it commits
      await sql.flush(transaction);
      const done = sql.run(generator.commitTransactionQuery(transaction), [], { transaction, unprepared: true });
      transaction.finished = 'commit';
      return await done;
    } catch (error) {
      // a deferred row refused, or a COMMIT that failed, leaves the transaction open on its connection; a kept
      // connection (SQLite's writer) must not carry it into the next transaction: it is rolled back here (Sequelize
      // does not once commit was asked for; it only releases the connection)
      await sql.run(generator.rollbackTransactionQuery(transaction), [], { transaction, unprepared: true }).catch(() => undefined);
      throw error;
    }
  };
  qi.rollbackTransaction = async (transaction, options) => {
    if (transaction.parent) return rollback(transaction, options);
    sql.forget(transaction);
    const done = sql.run(generator.rollbackTransactionQuery(transaction), [], { transaction, unprepared: true });
    transaction.finished = 'rollback';
    return done;
  };
}

/** Postgres connections per process unless PAYPLANE_DB_POOL_MAX says otherwise. */
export const DEFAULT_POOL_MAX = 10;
/** how long a transaction waits for a slot (the pool's own acquire timeout is 60 s too) */
const TRANSACTION_SLOT_WAIT_MS = 60_000;

/** Postgres advisory-lock key under which migrations run, so several processes migrate one at a time. */
const MIGRATION_LOCK = 7_246_071_001;

/**
 * The write lock of each SQLite file, one per file in this process: every Database opened on the file in this process
 * (a second runtime: a job run beside serve, a test's other "process") queues its write transactions on the same lock.
 * With a lock per Database, their writers met in SQLite's busy handler instead, which waits inside the driver on a
 * thread of libuv's small pool: writers waiting there could take every thread, and the transaction holding the file
 * could not run its next statement until the waiters gave up with SQLITE_BUSY. Other processes still meet in the busy
 * handler (busy_timeout), each on threads of its own. An in-memory database is its own file.
 */
const sqliteWriteLocks = new Map<string, Mutex>();

function sqliteWriteLock(location: string): Mutex {
  if (location === ':memory:' || location === '') return new Mutex();
  let file = path.resolve(location);
  try {
    file = fs.realpathSync(file);
  } catch {
    // not created yet: its path as given
  }
  let lock = sqliteWriteLocks.get(file);
  if (!lock) sqliteWriteLocks.set(file, (lock = new Mutex()));
  return lock;
}

export class Database {
  readonly models: Models;
  /**
   * SQLite allows one writer: in-process write transactions queue here instead of failing with SQLITE_BUSY (one lock
   * per file for every Database of this process: sqliteWriteLock).
   */
  private readonly writeLock: Mutex | null;
  /** API keys and the status of tenants and merchants as authentication reads them (see ReadCache) */
  readonly authCache = new ReadCache(readCacheTtlMs());
  /** counts of lists beyond COUNT_EXACT_UP_TO records (db/scoped), refreshed at most every 30 s */
  readonly largeCounts = new ReadCache(30_000, 1_000);

  /** test mode: queries outside the flow's open transaction are refused (connectionGuardOn) */
  private readonly guarded = connectionGuardOn();
  /**
   * Postgres: open transactions take at most the pool's size less a reserve, so that a plain query (an unrelated
   * read) finds a connection at once however many writes queue; a transaction waits here rather than in the pool.
   */
  private readonly transactionSlots: SemaphoreInterface | null;
  /** prepared statements kept per connection: the hot data path (db/statements) */
  readonly sql: Statements;
  /** SQLite file databases: the kept writer and readers */
  private readonly sqliteConnections: SqliteConnections | null;

  private constructor(
    readonly sequelize: Sequelize,
    readonly dialect: Dialect,
    readonly target: DatabaseTarget,
    poolMax?: number,
    /** the master key's sealer, for migrations that seal data at rest (MigrationEnv) */
    private readonly sealer?: MigrationEnv['sealer'],
    sqliteConnections?: SqliteConnections,
  ) {
    if (this.guarded) guardQueries(sequelize);
    this.sql = new Statements(sequelize, dialect, this.guarded ? refusedQuery : null);
    this.sqliteConnections = sqliteConnections ?? null;
    if (this.sqliteConnections) this.sqliteConnections.onClose = finalizeStatements;
    transactionControlOnStatements(sequelize, this.sql);
    forgetReadsOnWrites(sequelize, this.sql);
    this.transactionSlots =
      poolMax && poolMax > 1
        ? withTimeout(
            new Semaphore(poolMax - Math.max(1, Math.ceil(poolMax / 5))),
            TRANSACTION_SLOT_WAIT_MS,
            new Error(`no database connection for a transaction within ${TRANSACTION_SLOT_WAIT_MS / 1000} s`),
          )
        : null;
    // the models authentication reads are watched as they are defined (each area's models are defined on first use)
    this.models = defineModels(sequelize, (models) => {
      const watched = [models.ApiKey, models.Tenant, models.Merchant].filter((model) => model !== undefined);
      if (watched.length > 0) this.authCache.watch(watched as never[]);
    });
    this.writeLock = dialect === 'sqlite' ? sqliteWriteLock(target.location) : null;
  }

  /** `keepModes`: leave the SQLite files' modes as they are (doctor, which reports them and changes nothing) */
  /**
   * Opens the database at `url`. With `create: false` (every command but serve, sandbox init and the db commands) a
   * missing SQLite file, or a database without Payplane's schema, is refused as unavailable (exit 8) instead of being
   * created empty (`requireSchema: false` accepts a database without the schema: `db migrate status`); an unreachable
   * Postgres database is refused that way in every case, and a missing one unless the caller may create it (then it
   * is created, as a SQLite file would be).
   */
  static async connect(
    url: string,
    options: { sealer?: MigrationEnv['sealer']; keepModes?: boolean; create?: boolean; requireSchema?: boolean; createdNow?: boolean } = {},
  ): Promise<Database> {
    const target = parseDatabaseUrl(url);
    if (options.create === false && target.dialect === 'sqlite' && target.location !== ':memory:' && !fs.existsSync(target.location)) {
      throw new UnavailableError(`No database: the ${describeDatabase(target)} does not exist.`, 'DATABASE_NOT_FOUND', {
        hint: `\`payplane sandbox init\`, \`payplane serve\` or \`payplane db migrate\` creates one. ${POINT_ELSEWHERE}`,
      });
    }
    let sequelize: Sequelize;
    let poolMax: number | undefined;
    let sqliteConnections: SqliteConnections | undefined;
    if (target.dialect === 'sqlite') {
      if (target.location !== ':memory:' && !options.keepModes) preparePrivateSqliteFile(target.location);
      else if (target.location !== ':memory:') fs.mkdirSync(path.dirname(target.location), { recursive: true, mode: 0o700 });
      sequelize = new Sequelize({
        dialect: 'sqlite',
        storage: target.location,
        logging: false,
        transactionType: Transaction.TYPES.IMMEDIATE,
        retry: { max: 10, match: [/SQLITE_BUSY/] },
      });
      sqliteConnections = new SqliteConnections(sequelize);
    } else {
      poolMax = Number(process.env.PAYPLANE_DB_POOL_MAX ?? DEFAULT_POOL_MAX);
      sequelize = new Sequelize(target.location, {
        dialect: 'postgres',
        logging: false,
        pool: { max: poolMax, min: 0, idle: 10_000 },
      });
    }
    const db = new Database(sequelize, target.dialect, target, poolMax, options.sealer, sqliteConnections);
    try {
      await sequelize.authenticate();
    } catch (error) {
      await sequelize.close().catch(() => undefined);
      const missing = (error as { original?: { code?: string } }).original?.code === '3D000';
      // serve, sandbox init and the db commands create a missing Postgres database as they create a SQLite file
      if (missing && options.create !== false && !options.createdNow) {
        await createDatabase(url);
        return Database.connect(url, { ...options, createdNow: true });
      }
      throw unreachable(target, error);
    }
    if (options.create === false && options.requireSchema !== false && !(await db.hasSchema())) {
      await db.close();
      throw new UnavailableError(`The ${describeDatabase(target)} holds no Payplane schema.`, 'DATABASE_NOT_MIGRATED', {
        hint: `\`payplane db migrate\` (or \`payplane sandbox init\`, \`payplane serve\`) creates it. ${POINT_ELSEWHERE}`,
      });
    }
    if (target.dialect === 'sqlite' && target.location !== ':memory:') {
      await sequelize.query('PRAGMA journal_mode=WAL');
    }
    return db;
  }

  /** Runs fn in one transaction; commits when it resolves, rolls back when it throws. */
  async transaction<T>(fn: (t: Transaction) => Promise<T>): Promise<T> {
    let run = fn;
    if (this.guarded) {
      // a transaction opened while the flow holds one would wait for a second connection (on SQLite: for the write lock it holds)
      if (openFlowTransaction()) throw connectionViolation('a second transaction was opened');
      run = (t) => openingFlowTransaction.run(false, () => flowTransaction.run(t, () => fn(t)));
    }
    const open = this.guarded
      ? () => openingFlowTransaction.run(true, () => this.sequelize.transaction(run))
      : () => this.sequelize.transaction(run);
    if (this.writeLock) return this.writeLock.runExclusive(open);
    if (this.transactionSlots) return this.transactionSlots.runExclusive(open);
    return open();
  }

  /**
   * One write statement on its own, without BEGIN and COMMIT (a statement is atomic by itself): `fn` sends exactly one
   * statement with the options it is given. On SQLite it goes to the kept writer, in turn with the write transactions
   * (a write on a reader would wait for the file's lock instead); on Postgres to a connection of the pool.
   */
  async writeAlone<T>(fn: (options: { alone: true }) => Promise<T>): Promise<T> {
    if (this.guarded && openFlowTransaction()) throw connectionViolation('a write on its own was sent while the flow holds a transaction');
    if (this.writeLock) return this.writeLock.runExclusive(() => fn({ alone: true }));
    return fn({ alone: true });
  }

  /**
   * Test mode: a call out of the process that waits on another party (a provider, a webhook endpoint) refuses to start
   * while its flow holds an open transaction, as a query outside it is refused: the connection would be held for as
   * long as the other party takes. Off, nothing is checked.
   */
  assertNoOpenTransaction(call: string): void {
    if (this.guarded && openFlowTransaction())
      throw connectionViolation(
        `${call} was started`,
        'while this request or job holds an open transaction (its connection held while it waits); make it between two transactions',
      );
  }

  migrator(): Umzug<ReturnType<Sequelize['getQueryInterface']>> {
    // loaded on use: umzug brings its own command-line kit (@rushstack), and most runs have nothing to migrate
    const { Umzug, SequelizeStorage } = require('umzug') as typeof import('umzug');
    return new Umzug({
      migrations: migrations.map((m) => ({
        name: m.name,
        up: ({ context }) => m.up(context, this.dialect, { sealer: this.sealer }),
        down: ({ context }) => m.down(context, this.dialect, { sealer: this.sealer }),
      })),
      context: this.sequelize.getQueryInterface(),
      storage: new SequelizeStorage({ sequelize: this.sequelize, tableName: 'schema_migrations' }),
      logger: undefined,
    });
  }

  /** the names schema_migrations records as applied, read once (null: no bookkeeping table); forgotten when migrating */
  private appliedRead: Promise<Set<string> | null> | null = null;

  private appliedMigrations(): Promise<Set<string> | null> {
    this.appliedRead ??= this.sequelize.query('SELECT name FROM schema_migrations').then(
      ([rows]) => new Set((rows as Array<{ name: string }>).map((r) => r.name)),
      () => null, // no bookkeeping table yet
    );
    return this.appliedRead;
  }

  /** Whether the database holds Payplane's schema: a migration recorded as applied. */
  async hasSchema(): Promise<boolean> {
    return ((await this.appliedMigrations())?.size ?? 0) > 0;
  }

  /**
   * Applies pending migrations; on Postgres under an advisory lock so concurrent starts do not race. A database that
   * records every migration of this build as applied is left alone without taking the lock or loading the migrator.
   */
  async migrate(): Promise<string[]> {
    const applied = await this.appliedMigrations();
    if (applied && MIGRATION_NAMES.every((name) => applied.has(name))) return [];
    this.appliedRead = null;
    return this.withMigrationLock(async () => (await this.migrator().up()).map((m) => m.name));
  }

  /** Reverts the last migration, or with `to` every migration down to and including that one. */
  async rollback(to?: string): Promise<string[]> {
    this.appliedRead = null;
    return this.withMigrationLock(async () => (await this.migrator().down(to ? { to } : undefined)).map((m) => m.name));
  }

  async migrationStatus(): Promise<{ executed: string[]; pending: string[] }> {
    const umzug = this.migrator();
    // one after the other: each call creates the bookkeeping table if missing, and Postgres races on that
    const executed = await umzug.executed();
    const pending = await umzug.pending();
    return { executed: executed.map((m) => m.name), pending: pending.map((m) => m.name) };
  }

  /**
   * Several processes may start on one database at once: migrations run under a lock. Postgres: an advisory
   * lock held on a connection of its own (outside the pool the migrations use). SQLite: a lock file beside the
   * database.
   */
  private async withMigrationLock<T>(fn: () => Promise<T>): Promise<T> {
    if (this.sqliteConnections) {
      const connections = this.sqliteConnections;
      const unlocked = fn;
      fn = async () => {
        connections.single = true;
        try {
          return await unlocked();
        } finally {
          connections.single = false;
        }
      };
    }
    if (this.dialect === 'postgres') {
      // loaded here: a SQLite process never needs pg (about 6 MiB of resident memory)
      const { Client } = require('pg') as typeof import('pg');
      const client = new Client({ connectionString: this.target.location });
      await client.connect();
      try {
        await client.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK})`);
        return await fn();
      } finally {
        await client.query(`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`).catch(() => undefined);
        await client.end().catch(() => undefined);
      }
    }
    if (this.target.location === ':memory:') return fn();
    const release = await acquireLockFile(`${this.target.location}.migrate-lock`);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  /** Replacements of a raw query, with Dates in the text form Sequelize stores them in on SQLite, so comparisons line up. */
  rawReplacements(values: Record<string, unknown>): Record<string, unknown> {
    if (this.dialect !== 'sqlite') return values;
    return Object.fromEntries(
      Object.entries(values).map(([k, v]) => [k, v instanceof Date ? v.toISOString().replace('T', ' ').replace('Z', ' +00:00') : v]),
    );
  }

  async ping(): Promise<void> {
    await this.sequelize.query('SELECT 1');
  }

  /** what runs before the database closes (a lease the process renews: src/services/idempotency.ts) */
  private readonly closing: Array<() => Promise<void> | void> = [];

  /** Runs `fn` before the database closes (once). */
  onClose(fn: () => Promise<void> | void): void {
    this.closing.push(fn);
  }

  async close(): Promise<void> {
    for (const fn of this.closing.splice(0))
      await Promise.resolve()
        .then(fn)
        .catch(() => undefined);
    await this.sequelize.close();
  }
}

/**
 * The database file readable by its owner only, from its creation: its folder made 0700 when created here, the file
 * itself created (empty: SQLite starts a new database in it) or tightened to 0600 before SQLite opens it. SQLite
 * creates the -wal and -shm files with the mode of the database file, so they are 0600 from their creation too; ones
 * left wider by an earlier version are tightened here.
 */
export function preparePrivateSqliteFile(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  for (const part of [file, `${file}-wal`, `${file}-shm`]) tightenMode(part, 0o600);
}

/** chmod to `mode` when the path is wider (group or others may read it); a missing path or one of another owner is left. */
export function tightenMode(file: string, mode: number): void {
  try {
    if ((fs.statSync(file).mode & 0o777 & ~mode) !== 0) fs.chmodSync(file, mode);
  } catch (error) {
    if (!['ENOENT', 'EPERM'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
  }
}

/** An exclusive lock file; one left by a crashed process is taken over after staleMs. */
async function acquireLockFile(file: string, waitMs = 60_000, staleMs = 120_000): Promise<() => void> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      const fd = fs.openSync(file, 'wx');
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      return () => fs.rmSync(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      try {
        if (Date.now() - fs.statSync(file).mtimeMs > staleMs) fs.rmSync(file, { force: true });
      } catch {
        // removed meanwhile
      }
      if (Date.now() > deadline) throw new Error(`waited ${waitMs / 1000} s for the migration lock ${file}`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

export function isUniqueViolation(error: unknown): boolean {
  return error instanceof UniqueConstraintError;
}

/** Reader connections a SQLite file database keeps for queries outside a transaction (WAL: they never wait for the writer). */
const SQLITE_READERS = 2;

type SqliteConnection = {
  run(sql: string, callback?: (error: Error | null) => void): void;
  exec(sql: string, callback: (error: Error | null) => void): void;
  close(callback?: (error: Error | null) => void): void;
  uuid?: string;
  filename?: string;
  __payplaneRole?: 'writer' | 'reader' | 'own';
};

/**
 * SQLite connections. Sequelize's own manager opens a new connection (a file open, the WAL index mapped, every
 * pragma) for every transaction and closes it after, so nothing could be kept per connection. Here a file database
 * keeps its connections for the life of the process:
 * - one writer, which every transaction uses in turn (Database.transaction queues them on the write lock; a
 *   transaction opened while the writer is taken, which only code outside that lock could do, gets a connection of
 *   its own, closed after it as before);
 * - SQLITE_READERS readers, taken in turn by the queries outside a transaction: in WAL mode a reader sees every
 *   committed write and never waits for the writer, so reads go on while a write transaction is open.
 * While migrations run (`single`), every query outside a transaction goes to the first reader: a migration's pragmas
 * hold for the statements after them. Each connection waits for a busy database instead of failing at once (other
 * processes), enforces foreign keys, and keeps its prepared statements (src/db/statements.ts) until it closes.
 */
export class SqliteConnections {
  private writer: SqliteConnection | null = null;
  private writerTaken = false;
  private readers: SqliteConnection[] = [];
  private readersOpening: Promise<void> | null = null;
  private next = 0;
  /** migrations: one connection for the queries outside a transaction */
  single = false;
  /** called before a kept connection closes (its prepared statements are finalized there) */
  onClose: (connection: SqliteConnection) => Promise<void> = async () => undefined;

  constructor(sequelize: Sequelize) {
    const manager = sequelize.connectionManager as unknown as {
      connections: Record<string, SqliteConnection>;
      getConnection(options?: { uuid?: string }): Promise<SqliteConnection>;
      releaseConnection(connection: SqliteConnection, force?: boolean): void;
      destroyConnection(connection: SqliteConnection): Promise<void>;
      _onProcessExit(): Promise<void>;
    };
    const open = manager.getConnection.bind(manager);
    const release = manager.releaseConnection.bind(manager);
    const exit = manager._onProcessExit.bind(manager);
    /** the connection's pragmas, applied before it serves its first query (a pragma queued behind BEGIN would fail) */
    const configure = async (connection: SqliteConnection, role: 'writer' | 'reader' | 'own') => {
      connection.__payplaneRole = role;
      // WAL with synchronous=NORMAL: a commit never corrupts the file; only a power loss may drop the last commits.
      // SQLite is the embedded sandbox store; production runs on Postgres.
      await new Promise<void>((resolve, reject) => {
        connection.exec('PRAGMA busy_timeout = 10000; PRAGMA synchronous = NORMAL;', (error) => (error ? reject(error) : resolve()));
      });
      return connection;
    };
    /** a kept connection: opened through Sequelize's manager under a key of its own (so that close() closes it) */
    const keep = async (key: string, role: 'writer' | 'reader') => {
      const connection = await open({ uuid: key });
      return connection.__payplaneRole ? connection : configure(connection, role);
    };
    manager.getConnection = async (options?: { uuid?: string; inMemory?: number }) => {
      const storage = (sequelize as unknown as { options: { storage?: string } }).options.storage;
      if (!storage || storage === ':memory:') return open(options);
      const uuid = options?.uuid ?? 'default';
      if (uuid === 'default') {
        // opened once, by the first caller; the others wait for the same opening
        this.readersOpening ??= (async () => {
          const readers: SqliteConnection[] = [];
          for (let i = 0; i < SQLITE_READERS; i++) readers.push(await keep(`reader${i}`, 'reader'));
          this.readers = readers;
        })().catch((error: unknown) => {
          this.readersOpening = null;
          throw error;
        });
        await this.readersOpening;
        if (this.single) return this.readers[0];
        return this.readers[this.next++ % this.readers.length];
      }
      if (!this.writerTaken) {
        this.writerTaken = true;
        try {
          this.writer ??= await keep('writer', 'writer');
        } catch (error) {
          this.writerTaken = false;
          throw error;
        }
        return this.writer;
      }
      const own = await open(options);
      return own.__payplaneRole ? own : configure(own, 'own');
    };
    manager.releaseConnection = (connection: SqliteConnection, force?: boolean) => {
      if (connection === this.writer) {
        this.writerTaken = false;
        return;
      }
      if (connection.__payplaneRole === 'reader') return;
      release(connection, force);
    };
    // Sequelize gives up a transaction's connection when its COMMIT or ROLLBACK failed: the kept writer is then
    // closed (its statements finalized first) and the next transaction opens a new one; a kept reader stays
    const destroy = manager.destroyConnection.bind(manager);
    manager.destroyConnection = async (connection: SqliteConnection) => {
      if (connection === this.writer) {
        this.writer = null;
        this.writerTaken = false;
        for (const [key, kept] of Object.entries(manager.connections)) if (kept === connection) delete manager.connections[key];
        await this.onClose(connection);
        await new Promise<void>((resolve) => connection.close(() => resolve()));
        return;
      }
      if (connection.__payplaneRole === 'reader') return;
      await destroy(connection);
    };
    manager._onProcessExit = async () => {
      for (const connection of [this.writer, ...this.readers]) if (connection) await this.onClose(connection);
      this.writer = null;
      this.readers = [];
      this.readersOpening = null;
      await exit();
    };
  }
}
