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
    return { url: `sqlite:${path.join(home, 'test.db')}`, home, drop: async () => fs.rmSync(home, { recursive: true, force: true }) };
  }
  const base = new URL(process.env.DATABASE_URL!);
  const name = `payplane_t_${crypto.randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: base.toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base.toString());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    home,
    drop: async () => {
      const client = new Client({ connectionString: base.toString() });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
}

export const TEST_TOKEN_SECRET = 'test-token-secret-that-is-long-enough-0123456789';

export function testConfig(db: TestDatabase, overrides: Partial<AppConfig> = {}): AppConfig {
  return loadConfig({ ...process.env, PAYPLANE_TOKEN_SECRET: TEST_TOKEN_SECRET }, { home: db.home, databaseUrl: db.url, ...overrides });
}

export interface TestRuntime {
  rt: Runtime;
  db: TestDatabase;
  close(): Promise<void>;
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
