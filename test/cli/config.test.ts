import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../helpers/cli';
import { createTestDatabase, type TestDatabase } from '../helpers/db';

// Configuration: flags over environment variables over payplane.config.json over defaults; `payplane config show`
// prints the effective values with secrets masked; a bad file stops every command with an error naming the key.

interface Shown {
  file: string | null;
  settings: { key: string; env: string; value: string | null; source: string }[];
}

describe('configuration file and payplane config show', () => {
  let db: TestDatabase;
  let dir: string;
  // the settings these tests write, removed from the environment the CLI inherits
  const clean = {
    DATABASE_URL: undefined,
    PAYPLANE_HOME: undefined,
    PAYPLANE_HOLDING_PERIOD_HOURS: undefined,
    PAYPLANE_MASTER_KEY: undefined,
    PAYPLANE_TOKEN_SECRET: undefined,
    PAYPLANE_METRICS_TOKEN: undefined,
    PAYPLANE_CONFIG: undefined,
  };
  beforeAll(async () => {
    db = await createTestDatabase();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payplane-config-'));
  });
  afterAll(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await db.drop();
  });

  const write = (name: string, content: unknown) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
    return file;
  };
  const show = async (env: Record<string, string | undefined>, args: string[] = []) => {
    const res = await runCli(['config', 'show', '--json', ...args], { ...clean, ...env });
    expect(res.status).toBe(0);
    const shown = res.json<Shown>();
    return { shown, raw: res.stdout, get: (key: string) => shown.settings.find((s) => s.key === key)! };
  };

  test('precedence: a flag over the environment over the file over the default', async () => {
    const file = write('precedence.json', { databaseUrl: 'sqlite:/from/file.db', holdingPeriodHours: 12, dispatchBatch: 7 });
    const fromFile = await show({ PAYPLANE_CONFIG: file });
    expect(fromFile.shown.file).toBe(file);
    expect(fromFile.get('holdingPeriodHours')).toMatchObject({ env: 'PAYPLANE_HOLDING_PERIOD_HOURS', value: '12', source: 'file' });
    expect(fromFile.get('databaseUrl')).toMatchObject({ value: 'sqlite:/from/file.db', source: 'file' });
    expect(fromFile.get('sandboxDelayMs')).toMatchObject({ value: '300', source: 'default' });

    const fromEnv = await show({ PAYPLANE_CONFIG: file, PAYPLANE_HOLDING_PERIOD_HOURS: '6', DATABASE_URL: 'sqlite:/from/env.db' });
    expect(fromEnv.get('holdingPeriodHours')).toMatchObject({ value: '6', source: 'environment' });
    expect(fromEnv.get('dispatchBatch')).toMatchObject({ value: '7', source: 'file' });

    const fromFlag = await show({ PAYPLANE_CONFIG: file, DATABASE_URL: 'sqlite:/from/env.db' }, ['--database-url', 'sqlite:/from/flag.db']);
    expect(fromFlag.get('databaseUrl')).toMatchObject({ value: 'sqlite:/from/flag.db', source: 'flag' });
  });

  test('./payplane.config.json applies without PAYPLANE_CONFIG, and its settings reach every command', async () => {
    const cwd = fs.mkdtempSync(path.join(dir, 'cwd-'));
    fs.writeFileSync(path.join(cwd, 'payplane.config.json'), JSON.stringify({ databaseUrl: db.url, home: db.home }));
    // status reads a database without creating it: an empty SQLite file stands for the empty Postgres database
    if (db.url.startsWith('sqlite:')) fs.writeFileSync(db.url.slice('sqlite:'.length), '');
    const res = await runCli(['db', 'migrate', 'status', '--json'], clean, { cwd });
    expect(res.status).toBe(0);
    expect(res.json<{ pending: string[] }>().pending.length).toBeGreaterThan(0);
    const migrated = await runCli(['db', 'migrate', '--json'], clean, { cwd });
    expect(migrated.status).toBe(0);
    const after = await runCli(['db', 'migrate', 'status', '--json'], { ...clean, DATABASE_URL: db.url });
    expect(after.json<{ pending: string[] }>().pending).toEqual([]);
  });

  test('secrets are masked, whatever their source: never printed', async () => {
    const masterKey = Buffer.alloc(32, 7).toString('base64');
    const tokenSecret = 'a-token-secret-of-at-least-32-characters!!';
    const file = write('secrets.json', {
      masterKey,
      metricsToken: 'metrics-token-value',
      databaseUrl: 'postgres://payplane:db-password@db.internal:5432/payplane',
    });
    const { raw, get } = await show({ PAYPLANE_CONFIG: file, PAYPLANE_TOKEN_SECRET: tokenSecret });
    for (const secret of [masterKey, tokenSecret, 'metrics-token-value', 'db-password']) expect(raw).not.toContain(secret);
    expect(get('masterKey')).toMatchObject({ value: '**** (set, 44 characters)', source: 'file' });
    expect(get('tokenSecret')).toMatchObject({ value: `**** (set, ${tokenSecret.length} characters)`, source: 'environment' });
    expect(get('databaseUrl').value).toBe('postgres://payplane:****@db.internal:5432/payplane');
  });

  test('a bad file stops every command with exit code 2 and an error naming each key', async () => {
    const file = write('bad.json', { holdingPeriodHour: 12, dispatchBatch: 'ten', trustProxy: 3 });
    for (const args of [
      ['config', 'show', '--json'],
      ['db', 'migrate', 'status', '--json'],
    ]) {
      const res = await runCli(args, { ...clean, PAYPLANE_CONFIG: file });
      expect(res.status).toBe(2);
      const { error } = JSON.parse(res.stdout) as { error: { code: string; message: string } };
      expect(error.code).toBe('INVALID_CONFIG_FILE');
      expect(error.message).toContain(file);
      expect(error.message).toContain('"holdingPeriodHour" is not a setting: did you mean "holdingPeriodHours"?');
      expect(error.message).toContain('"dispatchBatch" must be a number');
      expect(error.message).toContain('"trustProxy" must be true, false or a string');
    }
    const notJson = await runCli(['config', 'show', '--json'], { ...clean, PAYPLANE_CONFIG: write('broken.json', '{"home": ') });
    expect(notJson.status).toBe(2);
    expect(notJson.stdout).toContain('is not valid JSON');
    const missing = await runCli(['config', 'show', '--json'], { ...clean, PAYPLANE_CONFIG: path.join(dir, 'nowhere.json') });
    expect(missing.status).toBe(2);
    expect(missing.stdout).toContain('does not exist');
  });
});
