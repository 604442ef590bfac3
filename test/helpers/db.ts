import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { loadConfig, type AppConfig } from '../../src/config';
import { openRuntime, closeRuntime, type Runtime } from '../../src/runtime';
import type { Clock } from '../../src/domain/clock';

/** The database the suite runs on: Postgres when DATABASE_URL says postgres://, else SQLite. */
export const onPostgres = /^postgres(ql)?:\/\//.test(process.env.DATABASE_URL ?? '');
export const dialectName = onPostgres ? 'postgres' : 'sqlite';

export interface TestDatabase {
  url: string;
  home: string;
  drop(): Promise<void>;
}

/** A fresh, empty database of its own for one test file (a new Postgres database, or a new SQLite file). */
export async function createTestDatabase(): Promise<TestDatabase> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'payplane-test-'));
  if (!onPostgres) {
    const db: TestDatabase = {
      url: `sqlite:${path.join(home, 'test.db')}`,
      home,
      drop: once(async () => {
        try {
          if (SECRET_SCAN_DIR) await archiveForScan(db);
        } finally {
          fs.rmSync(home, { recursive: true, force: true });
        }
      }),
    };
    return db;
  }
  const base = new URL(process.env.DATABASE_URL!);
  const name = `payplane_t_${crypto.randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: base.toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base.toString());
  url.pathname = `/${name}`;
  const db: TestDatabase = {
    url: url.toString(),
    home,
    drop: once(async () => {
      // the database and its home (which holds the master key) go whether or not the archive could be made
      try {
        if (SECRET_SCAN_DIR) await archiveForScan(db);
      } finally {
        const client = new Client({ connectionString: base.toString() });
        await client.connect();
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await client.end();
        fs.rmSync(home, { recursive: true, force: true });
      }
    }),
  };
  return db;
}

/** A drop made once: a second call (a file's own hook after a shared helper's) answers the first's promise. */
function once(drop: () => Promise<void>): () => Promise<void> {
  let dropped: Promise<void> | undefined;
  return () => (dropped ??= drop());
}

// ---- secrets at rest (test/security/scan-secrets.ts) ----------------------------------------------------------------

/**
 * PAYPLANE_SECRET_SCAN_DIR: when set, every test database is archived into <dir>/databases when it is dropped (SQLite:
 * a copy of the file and of its -wal; Postgres: a plain-SQL pg_dump), the secrets of its home (master key, token
 * secret) are added to <dir>/canaries.txt, and the tests' runtimes and their serve and CLI child processes log at
 * debug into <dir>/logs (one file per process). `test/security/scan-secrets.ts <dir>` then looks for secrets in all of it.
 */
export const SECRET_SCAN_DIR = process.env.PAYPLANE_SECRET_SCAN_DIR ? path.resolve(process.env.PAYPLANE_SECRET_SCAN_DIR) : undefined;

/** The log settings of a process of kind `kind` (jest, serve, cli) under the scan: debug, into <dir>/logs/<kind>-<pid>.log. */
export function scanLogEnv(kind: string): Record<string, string> {
  if (!SECRET_SCAN_DIR) return {};
  return { PAYPLANE_LOG_LEVEL: 'debug', PAYPLANE_LOG_FILE: path.join(SECRET_SCAN_DIR, 'logs', `${kind}-%p.log`) };
}

/** Appends values the scanner must never find (one `label<TAB>value` line each) to <dir>/canaries.txt. */
export function appendCanaries(dir: string, canaries: Record<string, string>): void {
  const lines = Object.entries(canaries)
    .filter(([, value]) => value && !/[\t\r\n]/.test(value))
    .map(([label, value]) => `${label.replace(/[\t\r\n]/g, ' ')}\t${value}\n`);
  fs.mkdirSync(dir, { recursive: true });
  if (lines.length) fs.appendFileSync(path.join(dir, 'canaries.txt'), lines.join(''));
}

/** The test file running now (jest's own state), as a file-name-safe label. */
function testLabel(): string {
  const testPath = (globalThis as { expect?: { getState?: () => { testPath?: string } } }).expect?.getState?.().testPath;
  if (!testPath) return 'unknown';
  return path
    .relative(path.resolve(__dirname, '../..'), testPath)
    .replace(/\.test\.ts$/, '')
    .replace(/[^A-Za-z0-9_.-]+/g, '__');
}

/**
 * Archives the database into <dir>/databases for the scan: the SQLite file as it is on disk (free pages included, so
 * deleted rows count too) and its -wal, or a plain-SQL pg_dump of the Postgres database. Returns the files written.
 */
export async function archiveDatabase(db: TestDatabase, dir: string): Promise<string[]> {
  const target = path.join(dir, 'databases');
  fs.mkdirSync(target, { recursive: true });
  const stem = path.join(target, `${testLabel()}-${crypto.randomBytes(4).toString('hex')}`);
  if (!onPostgres) {
    const file = db.url.replace(/^sqlite:/, '');
    const written: string[] = [];
    for (const suffix of ['', '-wal']) {
      if (!fs.existsSync(file + suffix)) continue;
      fs.copyFileSync(file + suffix, `${stem}.db${suffix}`);
      written.push(`${stem}.db${suffix}`);
    }
    return written;
  }
  await new Promise<void>((resolve, reject) => {
    execFile(
      'pg_dump',
      ['--no-owner', '--no-privileges', '--file', `${stem}.sql`, '--dbname', db.url],
      { timeout: 120_000 },
      (error, _stdout, stderr) => (error ? reject(new Error(`pg_dump failed: ${stderr || error.message}`)) : resolve()),
    );
  });
  return [`${stem}.sql`];
}

/** The secrets a test home holds (never to be found in a database or a log), by label. */
export function homeSecrets(db: TestDatabase): Record<string, string> {
  const found: Record<string, string> = { 'token secret (tests)': TEST_TOKEN_SECRET };
  for (const name of ['master-key', 'token-secret']) {
    const file = path.join(db.home, name);
    if (fs.existsSync(file)) found[`${name} of ${path.basename(db.home)}`] = fs.readFileSync(file, 'utf8').trim();
  }
  if (process.env.PAYPLANE_MASTER_KEY) found['PAYPLANE_MASTER_KEY'] = process.env.PAYPLANE_MASTER_KEY;
  return found;
}

async function archiveForScan(db: TestDatabase): Promise<void> {
  await archiveDatabase(db, SECRET_SCAN_DIR!);
  appendCanaries(SECRET_SCAN_DIR!, homeSecrets(db));
}

export const TEST_TOKEN_SECRET = 'test-token-secret-that-is-long-enough-0123456789';

export function testConfig(db: TestDatabase, overrides: Partial<AppConfig> = {}): AppConfig {
  // endpoints may be saved at the tests' local receivers (https://localhost:<port>), as their dispatchers reach them
  // (test/helpers/receiver.ts); the address filter's tests set none
  const env = {
    PAYPLANE_WEBHOOK_ALLOW_CIDRS: '127.0.0.1/32,::1/128',
    ...process.env,
    PAYPLANE_TOKEN_SECRET: TEST_TOKEN_SECRET,
    ...scanLogEnv('jest'),
  };
  return loadConfig(env, { home: db.home, databaseUrl: db.url, ...overrides });
}

export interface TestRuntime {
  rt: Runtime;
  db: TestDatabase;
  close(): Promise<void>;
}

/** Opens a runtime on a test database (as a CLI process would), runs fn with it and closes it, whatever fn does. */
export async function withRuntimeOf<T>(db: TestDatabase, fn: (rt: Runtime) => Promise<T>, options: { clock?: Clock } = {}): Promise<T> {
  const rt = await openRuntime(testConfig(db), { clock: options.clock });
  try {
    return await fn(rt);
  } finally {
    await closeRuntime(rt);
  }
}

export async function createTestRuntime(options: { clock?: Clock; config?: Partial<AppConfig> } = {}): Promise<TestRuntime> {
  const db = await createTestDatabase();
  const rt = await openRuntime(testConfig(db, options.config), { clock: options.clock });
  return {
    rt,
    db,
    close: async () => {
      await closeRuntime(rt);
      await db.drop();
    },
  };
}
