import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../helpers/cli';
import { createTestDatabase, dialectName, onPostgres, TEST_TOKEN_SECRET, type TestDatabase } from '../helpers/db';
import { startServe, stopAllServes } from '../helpers/serve';

// Issue 32, items 2 and 3, as the new user met them: `npm start` (serve on the default SQLite database of the home),
// then serve on another database (Postgres when the suite runs on it, else a second SQLite file) in the same home,
// then `npm start` again. Each database keeps its sandbox in .payplane/sandbox.json (a later start prints the same
// keys again, `sandbox env` prints them), and `sandbox env` prints where the running serve of its database listens,
// although serve was given --port (startServe passes --port 0: the system's pick) and sandbox env sees no PORT.

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'payplane-sandboxes-'));
let other: TestDatabase;
const base = {
  PAYPLANE_HOME: home,
  PAYPLANE_TOKEN_SECRET: TEST_TOKEN_SECRET,
  PORT: undefined,
  HOST: undefined,
  PAYPLANE_PUBLIC_URL: undefined,
};
// `npm start`: no DATABASE_URL, so <home>/payplane.db
const first = { ...base, DATABASE_URL: undefined };
const firstDb = { url: `sqlite:${path.join(home, 'payplane.db')}`, home } as TestDatabase;

beforeAll(async () => {
  other = await createTestDatabase();
});
afterAll(async () => {
  await stopAllServes();
  await other?.drop();
  fs.rmSync(home, { recursive: true, force: true });
});

const envOf = async (env: Record<string, string | undefined>) => {
  const run = await runCli(['sandbox', 'env', '--json'], env);
  if (run.status !== 0) throw new Error(`sandbox env exited ${run.status}: ${run.stdout}${run.stderr}`);
  return run.json<Record<string, string>>();
};
const bannerTenant = (out: string) => /tenant id\s+(\S+)/.exec(out)?.[1];
const bannerKey = (out: string) => /tenant key\s+(\S+)…/.exec(out)?.[1];

describe(`one saved sandbox for every database (default SQLite, then ${onPostgres ? 'Postgres' : 'a second SQLite file'})`, () => {
  test('each database keeps its sandbox and keys; sandbox env finds the running serve of its database', async () => {
    const secondEnv = { ...base, DATABASE_URL: other.url };
    const file = path.join(home, 'sandbox.json');

    // npm start: a sandbox provisioned and saved
    const a = await startServe(firstDb, first);
    const sandboxA = await envOf(first);
    expect(sandboxA.API_URL).toBe(a.url);
    expect(bannerTenant(a.output())).toBe(sandboxA.TENANT_ID);
    expect(sandboxA.TENANT_KEY.startsWith(bannerKey(a.output())!)).toBe(true);
    // a record of a serve that is gone, and one that does not answer, are not used
    const records = path.join(home, 'serve');
    const [own] = fs.readdirSync(records);
    const stem = own.replace(/-\d+\.json$/, '');
    fs.writeFileSync(path.join(records, `${stem}-999999.json`), JSON.stringify({ url: 'http://127.0.0.1:9', pid: 999999, database: stem }));
    fs.writeFileSync(
      path.join(records, `${stem}-${process.pid}.json`),
      JSON.stringify({ url: 'http://127.0.0.1:9', pid: process.pid, database: stem }),
    );
    expect((await envOf(first)).API_URL).toBe(a.url);
    expect(fs.existsSync(path.join(records, `${stem}-999999.json`))).toBe(false);
    fs.rmSync(path.join(records, `${stem}-${process.pid}.json`));
    expect(await a.stop()).toBe(0);
    // stopped: its record is gone, API_URL is where serve would listen by HOST and PORT
    expect(fs.readdirSync(records)).toEqual([]);
    expect((await envOf(first)).API_URL).toBe('http://127.0.0.1:4242');

    // serve on the other database: a sandbox of its own, the first one kept
    const b = await startServe(other, secondEnv);
    const sandboxB = await envOf(secondEnv);
    expect(sandboxB.TENANT_ID).not.toBe(sandboxA.TENANT_ID);
    expect(bannerTenant(b.output())).toBe(sandboxB.TENANT_ID);
    expect(sandboxB.API_URL).toBe(b.url);
    // the first database's sandbox env still works while the other serve runs (and does not point at it)
    expect(await envOf(first)).toMatchObject({
      TENANT_ID: sandboxA.TENANT_ID,
      TENANT_KEY: sandboxA.TENANT_KEY,
      API_URL: 'http://127.0.0.1:4242',
    });
    expect(await b.stop()).toBe(0);

    // npm start again: the same keys printed, and they work
    const again = await startServe(firstDb, first);
    expect(bannerTenant(again.output())).toBe(sandboxA.TENANT_ID);
    expect(again.output()).toContain('tenant key      ' + sandboxA.TENANT_KEY.slice(0, 16));
    expect(again.output()).not.toContain('The database holds no tenant yet');
    expect(await envOf(first)).toMatchObject({ ...sandboxA, API_URL: again.url });
    expect((await again.request('/v1/api-keys', { credential: sandboxA.TENANT_KEY })).status).toBe(200);
    expect(await again.stop()).toBe(0);
    // and serve on the other database again finds its own
    const b2 = await startServe(other, secondEnv);
    expect(bannerTenant(b2.output())).toBe(sandboxB.TENANT_ID);
    expect((await b2.request('/v1/api-keys', { credential: sandboxB.TENANT_KEY })).status).toBe(200);
    expect(await b2.stop()).toBe(0);

    // one file (0600): the first database's sandbox at the top, as before; the other's under otherDatabases
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(saved).toMatchObject({ tenantId: sandboxA.TENANT_ID, databaseUrl: firstDb.url });
    expect(saved.otherDatabases).toEqual([expect.objectContaining({ tenantId: sandboxB.TENANT_ID, databaseUrl: other.url })]);
  }, 300_000);

  test(`a sandbox.json of one database (as written before) is read, and kept when another database saves its own (${dialectName})`, async () => {
    const legacyHome = fs.mkdtempSync(path.join(home, 'legacy-'));
    const one = { ...base, PAYPLANE_HOME: legacyHome, DATABASE_URL: other.url };
    const init = await runCli(['sandbox', 'init', '--json'], one);
    expect(init.status).toBe(0);
    const file = path.join(legacyHome, 'sandbox.json');
    const legacy = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(legacy.otherDatabases).toBeUndefined();
    expect((await envOf(one)).TENANT_ID).toBe(init.json().tenantId);
    // sandbox init on a second database of that home saves its own beside it
    const second = { ...one, DATABASE_URL: `sqlite:${path.join(legacyHome, 'second.db')}` };
    const init2 = await runCli(['sandbox', 'init', '--json'], second);
    expect(init2.json().savedTo).toBe(file);
    expect((await envOf(second)).TENANT_ID).toBe(init2.json().tenantId);
    expect((await envOf(one)).TENANT_ID).toBe(init.json().tenantId);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({
      ...legacy,
      otherDatabases: [expect.objectContaining({ tenantId: init2.json().tenantId })],
    });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  }, 120_000);
});
