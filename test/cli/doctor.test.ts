import fs from 'node:fs';
import path from 'node:path';
import { runDoctor, type DoctorReport } from '../../src/services/doctor';
import { useCliSandbox } from '../helpers/cli';
import { onPostgres, testConfig } from '../helpers/db';
import { testTls } from '../helpers/receiver';

const byName = (report: DoctorReport) => Object.fromEntries(report.checks.map((c) => [c.name, c]));

describe('payplane doctor', () => {
  // the doctor sees only what the test process has of the token secret, and no master key or CA file of the environment
  const t = useCliSandbox({
    sandbox: false,
    runtime: true,
    env: { PAYPLANE_TOKEN_SECRET: process.env.PAYPLANE_TOKEN_SECRET, PAYPLANE_MASTER_KEY: undefined, PAYPLANE_WEBHOOK_CA_FILE: undefined },
  });
  beforeAll(() => {
    // the runtime's first sealing generates the sandbox master key file (0600)
    t.rt.sealer.seal('x');
  });

  const cli = (args: string[], env: Record<string, string | undefined> = {}) => t.cliWith(env, 'doctor', ...args);

  test('a healthy set-up: every check listed, exit 0, --json is the report', async () => {
    const res = await cli(['--json']);
    expect(res.status).toBe(0);
    const report = res.json<DoctorReport>();
    expect(report.checks.map((c) => c.name)).toEqual([
      'node',
      'config-file',
      'database',
      'migrations',
      'clock',
      'master-key',
      'token-secret',
      'file-permissions',
      'webhook-ca',
    ]);
    const checks = byName(report);
    for (const name of ['node', 'config-file', 'database', 'migrations', 'clock', 'file-permissions', 'webhook-ca'])
      expect(checks[name].status).toBe('pass');
    expect(checks.migrations.detail).toMatch(/^all \d+ applied$/);
    expect(report.ok).toBe(true);
  });

  test('the table shows each result and the hints; a failed check exits 1', async () => {
    const key = path.join(t.db.home, 'master-key');
    fs.chmodSync(key, 0o644);
    try {
      const res = await cli([]);
      expect(res.status).toBe(1);
      expect(res.stdout).toMatch(/file-permissions.*FAIL/);
      expect(res.stdout).toContain(`chmod 600 ${key}`);
      expect(res.stdout).toMatch(/1 check failed\./);
    } finally {
      fs.chmodSync(key, 0o600);
    }
  });

  test('an unreachable database fails with a hint, and the checks that need it say so', async () => {
    const url = onPostgres
      ? 'postgres://postgres@127.0.0.1:1/nowhere'
      : `sqlite:${path.join(t.db.home, 'no-such-folder', 'x', 'db.sqlite')}`;
    const report = await runDoctor(testConfig(t.db, { databaseUrl: onPostgres ? url : url }));
    const checks = byName(report);
    if (onPostgres) {
      expect(checks.database).toMatchObject({ status: 'fail', hint: expect.stringContaining('pg_isready') });
      expect(checks.migrations.status).toBe('fail');
      expect(report.ok).toBe(false);
    } else {
      // a SQLite file that does not exist yet is created by serve: a warning, not a failure
      expect(checks.database).toMatchObject({ status: 'warn', hint: expect.stringContaining('creates it') });
      expect(fs.existsSync(path.join(t.db.home, 'no-such-folder'))).toBe(false);
    }
  });

  test('pending migrations warn; a bad master key, an old Node and an unreadable or empty CA file fail', async () => {
    const reverted = await t.rt.db.rollback();
    try {
      const report = await runDoctor(testConfig(t.db), {
        nodeVersion: '18.20.0',
        env: { PAYPLANE_MASTER_KEY: Buffer.alloc(16).toString('base64'), PAYPLANE_WEBHOOK_CA_FILE: path.join(t.db.home, 'missing.pem') },
      });
      const checks = byName(report);
      expect(checks.migrations).toMatchObject({
        status: 'warn',
        detail: `1 pending: ${reverted.join(', ')}`,
        hint: expect.stringContaining('payplane db migrate'),
      });
      expect(checks.node).toMatchObject({ status: 'fail', detail: expect.stringContaining('older than') });
      expect(checks['master-key']).toMatchObject({ status: 'fail', detail: 'PAYPLANE_MASTER_KEY is not 32 bytes of base64' });
      expect(checks['webhook-ca']).toMatchObject({ status: 'fail', detail: expect.stringContaining('cannot be read') });
      expect(report.ok).toBe(false);
    } finally {
      await t.rt.db.migrate();
    }
    const empty = path.join(t.db.home, 'empty.pem');
    fs.writeFileSync(empty, 'not a certificate');
    expect(byName(await runDoctor(testConfig(t.db), { env: { PAYPLANE_WEBHOOK_CA_FILE: empty } }))['webhook-ca']).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('no PEM certificate'),
    });
    expect(byName(await runDoctor(testConfig(t.db), { env: { PAYPLANE_WEBHOOK_CA_FILE: testTls().caFile } }))['webhook-ca']).toMatchObject({
      status: 'pass',
      detail: expect.stringMatching(/^1 certificate trusted from /),
    });
  });

  test('the configuration file: which one applies, and a bad one is a failed check rather than a stop', async () => {
    const good = path.join(t.db.home, 'good.json');
    fs.writeFileSync(good, JSON.stringify({ holdingPeriodHours: 12 }));
    const ok = await cli(['--json'], { PAYPLANE_CONFIG: good });
    expect(ok.status).toBe(0);
    expect(byName(ok.json<DoctorReport>())['config-file']).toMatchObject({
      status: 'pass',
      detail: expect.stringContaining(`${good}: 1 setting (holdingPeriodHours)`),
    });
    const bad = path.join(t.db.home, 'bad.json');
    fs.writeFileSync(bad, JSON.stringify({ holdingPeriodHour: 12 }));
    const res = await cli(['--json'], { PAYPLANE_CONFIG: bad });
    expect(res.status).toBe(1);
    const report = res.json<DoctorReport>();
    expect(byName(report)['config-file']).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('"holdingPeriodHour" is not a setting: did you mean "holdingPeriodHours"?'),
    });
    expect(byName(report).database.status).toBe('pass');
  });

  (onPostgres ? test : test.skip)(
    'clock skew against Postgres: a warning from 1 s, a failure from 5 s (Postgres only: SQLite shares the clock)',
    async () => {
      const at = (offset: number) => runDoctor(testConfig(t.db), { now: () => new Date(Date.now() + offset) });
      expect(byName(await at(0)).clock.status).toBe('pass');
      expect(byName(await at(2_500)).clock).toMatchObject({ status: 'warn', detail: expect.stringContaining('ahead of the database') });
      expect(byName(await at(-10_000)).clock).toMatchObject({
        status: 'fail',
        detail: expect.stringContaining('behind the database'),
        hint: expect.stringContaining('NTP'),
      });
    },
  );
});
