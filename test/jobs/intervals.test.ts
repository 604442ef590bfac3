import { QueryTypes } from 'sequelize';
import { createTestRuntime, dialectName, type TestRuntime } from '../helpers/db';
import { JOB_INTERVALS, loadConfig, type AppConfig, type PeriodicJobName } from '../../src/config';
import { SETTINGS } from '../../src/settings';
import { backgroundJobs } from '../../src/jobs';

// Every periodic job of serve has a setting for its interval, read the same way (JOB_INTERVALS in src/config.ts,
// scheduledJob in src/jobs/periodic.ts): none runs on a fixed minute of its own. The sandbox acquirer is no periodic
// job (a worker woken by its own connector; PAYPLANE_SANDBOX_POLL_MS).

const periodic = backgroundJobs.filter((job) => job.name !== 'sandbox-acquirer');

describe('job intervals', () => {
  test('every job of serve but the sandbox acquirer has an interval setting, declared for the configuration file', () => {
    expect(periodic.map((job) => job.name).sort()).toEqual(Object.keys(JOB_INTERVALS).sort());
    const declared = new Map(SETTINGS.map((setting) => [setting.env, setting]));
    for (const { key, env, defaultMs } of Object.values(JOB_INTERVALS)) {
      expect([env, declared.get(env)?.key, declared.get(env)?.default]).toEqual([env, key, String(defaultMs)]);
    }
  });

  test('each interval is read from its variable (at least 100 ms), a minute by default', () => {
    const defaults = loadConfig({});
    for (const { key } of Object.values(JOB_INTERVALS)) expect([key, defaults[key]]).toEqual([key, 60_000]);
    for (const { key, env } of Object.values(JOB_INTERVALS)) {
      expect(loadConfig({ [env]: '2500' })[key]).toBe(2500);
      expect(() => loadConfig({ [env]: '50' })).toThrow(`${env} must be at least 100`);
      expect(() => loadConfig({ [env]: 'often' })).toThrow(env);
    }
  });
});

describe(`every periodic job ticks on its own setting's interval (${dialectName})`, () => {
  // an interval of its own for each job (none a multiple of another): the ticks each job claimed show which it read
  const intervals = Object.fromEntries(Object.values(JOB_INTERVALS).map(({ key }, i) => [key, 230 + 40 * i])) as Partial<AppConfig>;
  let t: TestRuntime;
  beforeAll(async () => {
    t = await createTestRuntime({ config: intervals });
  });
  afterAll(async () => t.close());

  test('started together, each claims ticks on multiples of its interval, one after the other', async () => {
    const running = periodic.map((job) => job.start(t.rt));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await Promise.all(running.map((job) => job.stop()));
    for (const [name, { key }] of Object.entries(JOB_INTERVALS) as Array<[PeriodicJobName, (typeof JOB_INTERVALS)[PeriodicJobName]]>) {
      const interval = t.rt.config[key];
      expect(interval).toBe(intervals[key]);
      const rows = await t.rt.db.sequelize.query<{ slot: string | number; outcome: string }>(
        'SELECT slot, outcome FROM job_runs WHERE job = :name ORDER BY slot',
        {
          replacements: { name },
          type: QueryTypes.SELECT,
        },
      );
      const slots = rows.map((row) => Number(row.slot));
      expect([name, slots.length >= 2]).toEqual([name, true]);
      expect([name, slots.every((slot) => slot % interval === 0)]).toEqual([name, true]);
      expect([name, slots.slice(1).every((slot, i) => slot - slots[i] === interval)]).toEqual([name, true]);
      expect([name, rows.every((row) => row.outcome === 'succeeded')]).toEqual([name, true]);
    }
  });
});
