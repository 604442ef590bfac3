import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { BIN, runCli } from '../helpers/cli';
import { createTestDatabase, dialectName, onPostgres, TEST_TOKEN_SECRET, type TestDatabase } from '../helpers/db';

// Issue 24, items 1 to 3: a command pointed at a missing database says so (exit 8) instead of creating an empty one;
// database errors keep the README's exit codes (8 unavailable, 2 a bad URL) in one message naming the database; and
// Postgres starts as SQLite does (db create, sandbox init saving sandbox.json, serve provisioning an empty database).

const PG_BASE = process.env.DATABASE_URL && onPostgres ? process.env.DATABASE_URL : 'postgres://postgres@127.0.0.1:5432/test';

let work: string;
beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'payplane-dberr-'));
});
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** A command run from `cwd` with nothing pointing at a database but what `env` says. */
const run = (args: string[], env: Record<string, string | undefined> = {}, cwd = work) =>
  runCli(args, { DATABASE_URL: undefined, PAYPLANE_HOME: undefined, PAYPLANE_TOKEN_SECRET: TEST_TOKEN_SECRET, ...env }, { cwd });

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function pgUrl(database: string, port?: number): string {
  const url = new URL(PG_BASE);
  url.pathname = `/${database}`;
  if (port) url.port = String(port);
  return url.toString();
}

async function dropPg(name: string): Promise<void> {
  const admin = new Client({ connectionString: pgUrl('postgres') });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

describe('a missing database is not created by admin commands', () => {
  test('from a folder without .payplane: exit 8 naming where it looked, nothing created', async () => {
    const folder = fs.mkdtempSync(path.join(work, 'elsewhere-'));
    for (const args of [
      ['tenants', 'list'],
      ['keys', 'list', '--tenant', '00000000-0000-0000-0000-000000000000'],
      ['payments', 'list', '--tenant', '00000000-0000-0000-0000-000000000000'],
    ]) {
      const res = await run([...args, '--json'], {}, folder);
      expect(res.status).toBe(8);
      const { error } = res.json();
      expect(error).toMatchObject({ code: 'DATABASE_NOT_FOUND', exitCode: 8 });
      expect(error.message).toContain(path.join(folder, '.payplane', 'payplane.db'));
      expect(error.hint).toMatch(/--database-url/);
      expect(error.hint).toMatch(/DATABASE_URL/);
      expect(error.hint).toMatch(/PAYPLANE_HOME/);
    }
    const text = await run(['tenants', 'list'], {}, folder);
    expect(text.status).toBe(8);
    expect(text.stdout).toBe('');
    // one message, not wrapped, when stderr is not a terminal
    expect(text.stderr).toContain(`the SQLite file ${path.join(folder, '.payplane', 'payplane.db')} does not exist.`);
    expect(fs.readdirSync(folder)).toEqual([]);
  });

  test('--database-url sqlite:/missing/dir/x.db: exit 8, no folder made', async () => {
    const file = path.join(work, 'nonexistent', 'dir', 'x.db');
    const res = await run(['tenants', 'list', '--json', '--database-url', `sqlite:${file}`]);
    expect(res.status).toBe(8);
    expect(res.json().error.message).toContain(file);
    expect(fs.existsSync(path.join(work, 'nonexistent'))).toBe(false);
  });

  test('an existing SQLite file without the schema is refused too; db migrate status reads it without changing it', async () => {
    const file = path.join(work, 'empty.db');
    fs.writeFileSync(file, '');
    const res = await run(['tenants', 'list', '--json', '--database-url', `sqlite:${file}`]);
    expect(res.status).toBe(8);
    expect(res.json().error).toMatchObject({ code: 'DATABASE_NOT_MIGRATED', hint: expect.stringContaining('db migrate') });
    const status = await run(['db', 'migrate', 'status', '--json', '--database-url', `sqlite:${file}`]);
    expect(status.status).toBe(0);
    expect(status.json().executed).toEqual([]);
    expect((await run(['tenants', 'list', '--json', '--database-url', `sqlite:${file}`])).status).toBe(8);
  });

  test('serve, sandbox init, db migrate and db create create it', async () => {
    for (const args of [
      ['db', 'migrate'],
      ['db', 'create'],
      ['sandbox', 'init'],
    ]) {
      const home = fs.mkdtempSync(path.join(work, 'home-'));
      const res = await run([...args, '--json'], { PAYPLANE_HOME: home });
      expect(res.status).toBe(0);
      expect(fs.existsSync(path.join(home, 'payplane.db'))).toBe(true);
      expect((await run(['tenants', 'list', '--json'], { PAYPLANE_HOME: home })).status).toBe(0);
    }
  });
});

describe('database errors keep the documented exit codes', () => {
  test('an unreachable Postgres: exit 8, one message naming host, port and database, as text and JSON', async () => {
    const port = await freePort();
    const url = pgUrl('payplane_nowhere', port);
    const json = await run(['tenants', 'list', '--json', '--database-url', url]);
    expect(json.status).toBe(8);
    const { error } = json.json();
    expect(error).toMatchObject({ code: 'DATABASE_UNAVAILABLE', exitCode: 8 });
    expect(error.message).toContain(`127.0.0.1:${port}`);
    expect(error.message).toContain('payplane_nowhere');
    expect(error.message).toContain('connection refused');
    const text = await run(['tenants', 'list', '--database-url', url]);
    expect(text.status).toBe(8);
    expect(text.stderr).not.toMatch(/Sequelize|ECONNREFUSED|\n\s+at /);
  });

  test('a missing Postgres database: exit 8, the hint names db create; a password never shown', async () => {
    const url = new URL(pgUrl('payplane_missing_db'));
    url.password = 'hunter2-secret';
    const res = await run(['tenants', 'list', '--json', '--database-url', url.toString()]);
    expect(res.status).toBe(8);
    const { error } = res.json();
    expect(error).toMatchObject({ code: 'DATABASE_NOT_FOUND' });
    expect(error.message).toContain('"payplane_missing_db"');
    expect(error.hint).toContain('payplane db create');
    expect(error.hint).toContain('payplane serve');
    expect(res.stdout + res.stderr).not.toContain('hunter2-secret');
  });

  test('a URL of another database kind: exit 2 naming --database-url', async () => {
    for (const url of ['mysql://x', 'postgres://[bad']) {
      const res = await run(['tenants', 'list', '--json', '--database-url', url]);
      expect(res.status).toBe(2);
      expect(res.json().error).toMatchObject({
        code: 'INVALID_DATABASE_URL',
        errors: [expect.objectContaining({ path: '--database-url' })],
      });
    }
    const text = await run(['tenants', 'list'], { DATABASE_URL: 'mysql://x' });
    expect(text.status).toBe(2);
    expect(text.stderr).toContain('mysql://x');
  });

  test('serve on an unreachable database exits 8 too', async () => {
    const res = await run(['serve', '--port', '0', '--database-url', pgUrl('payplane_nowhere', await freePort())]);
    expect(res.status).toBe(8);
    expect(res.stderr).toContain('connection refused');
  });
});

describe(`Postgres starts as SQLite does (${dialectName} suite)`, () => {
  test('db create makes the database and its schema; sandbox init saves sandbox.json for sandbox env', async () => {
    const name = `payplane_create_${process.pid}_${Date.now().toString(36)}`;
    const url = pgUrl(name);
    const home = fs.mkdtempSync(path.join(work, 'pg-home-'));
    try {
      const missing = await run(['tenants', 'list', '--json'], { DATABASE_URL: url, PAYPLANE_HOME: home });
      expect(missing.status).toBe(8);
      const created = await run(['db', 'create', '--json'], { DATABASE_URL: url, PAYPLANE_HOME: home });
      expect(created.status).toBe(0);
      expect(created.json()).toMatchObject({ dialect: 'postgres', created: true, applied: expect.arrayContaining(['0001_foundation']) });
      expect(created.json().database).toContain(name);
      const again = await run(['db', 'create', '--json'], { DATABASE_URL: url, PAYPLANE_HOME: home });
      expect(again.json()).toMatchObject({ created: false, applied: [] });
      expect((await run(['tenants', 'list', '--json'], { DATABASE_URL: url, PAYPLANE_HOME: home })).json().data).toEqual([]);

      const sandbox = await run(['sandbox', 'init', '--json'], { DATABASE_URL: url, PAYPLANE_HOME: home });
      expect(sandbox.status).toBe(0);
      expect(sandbox.json().savedTo).toBe(path.join(home, 'sandbox.json'));
      const saved = JSON.parse(fs.readFileSync(path.join(home, 'sandbox.json'), 'utf8'));
      expect(saved).toMatchObject({ tenantId: sandbox.json().tenantId, databaseUrl: url });
      expect(fs.statSync(path.join(home, 'sandbox.json')).mode & 0o777).toBe(0o600);
      const env = await run(['sandbox', 'env'], { DATABASE_URL: url, PAYPLANE_HOME: home });
      expect(env.status).toBe(0);
      expect(env.stdout).toContain(`TENANT_ID='${sandbox.json().tenantId}'`);
      // a second sandbox init keeps the working saved one
      const second = await run(['sandbox', 'init', '--json'], { DATABASE_URL: url, PAYPLANE_HOME: home });
      expect(second.json().savedTo).toBeNull();
      expect(JSON.parse(fs.readFileSync(path.join(home, 'sandbox.json'), 'utf8')).tenantId).toBe(sandbox.json().tenantId);
    } finally {
      await dropPg(name);
    }
  });

  test('sandbox init on a missing Postgres database creates it, as it creates a SQLite file', async () => {
    const name = `payplane_init_${process.pid}_${Date.now().toString(36)}`;
    const home = fs.mkdtempSync(path.join(work, 'pg-init-'));
    try {
      const res = await run(['sandbox', 'init', '--json'], { DATABASE_URL: pgUrl(name), PAYPLANE_HOME: home });
      expect(res.status).toBe(0);
      expect((await run(['tenants', 'list', '--json'], { DATABASE_URL: pgUrl(name), PAYPLANE_HOME: home })).json().data).toHaveLength(1);
    } finally {
      await dropPg(name);
    }
  });

  test('db create on SQLite makes the file (mode 0600) and its schema', async () => {
    const file = path.join(work, 'made', 'payplane.db');
    const res = await run(['db', 'create', '--json', '--database-url', `sqlite:${file}`]);
    expect(res.status).toBe(0);
    expect(res.json()).toMatchObject({ dialect: 'sqlite', created: true });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  describe('serve on an empty database of this suite', () => {
    let db: TestDatabase;
    beforeEach(async () => {
      db = await createTestDatabase();
    });
    afterEach(() => db.drop());

    test('--no-sandbox provisions nothing and says how to get a sandbox', async () => {
      const created = await run(['db', 'create', '--json'], { DATABASE_URL: db.url, PAYPLANE_HOME: db.home });
      expect(created.status).toBe(0);
      const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--no-sandbox'], {
        env: {
          ...process.env,
          NO_COLOR: '1',
          DATABASE_URL: db.url,
          PAYPLANE_HOME: db.home,
          PAYPLANE_TOKEN_SECRET: TEST_TOKEN_SECRET,
          PAYPLANE_LOG_LEVEL: 'warn',
          NODE_ENV: undefined,
        } as NodeJS.ProcessEnv,
      });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`serve did not start: ${out}`)), 30_000);
        child.stdout.on('data', () => {
          if (out.includes('Ctrl-C to stop')) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      expect(out).toContain('holds no tenant yet');
      expect(out).toContain('sandbox init');
      expect(fs.existsSync(path.join(db.home, 'sandbox.json'))).toBe(false);
    });
  });
});
