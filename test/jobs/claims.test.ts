import { QueryTypes } from 'sequelize';
import { createTestDatabase, createTestRuntime, dialectName, type TestRuntime } from '../helpers/db';
import { Database } from '../../src/db/database';
import { closeRuntime, openRuntime, type Runtime } from '../../src/runtime';
import { periodicJob, runOncePerTick } from '../../src/jobs/periodic';

// Schedulers run each tick once across processes: the first to claim (job, slot) in job_runs runs it.
// A second runtime on the same database stands for a second process.

let t: TestRuntime;
let other: Runtime;
beforeAll(async () => {
  t = await createTestRuntime();
  other = await openRuntime(t.rt.config, { migrate: false, logger: t.rt.logger });
});
afterAll(async () => {
  await closeRuntime(other);
  await t.close();
});

async function runsOf(job: string): Promise<Array<{ slot: string | number; outcome: string; error: string | null; workerId: string }>> {
  return t.rt.db.sequelize.query('SELECT slot, outcome, error, "workerId" FROM job_runs WHERE job = :job ORDER BY slot', {
    replacements: { job },
    type: QueryTypes.SELECT,
  });
}

async function counted(rt: Runtime, job: string, outcome: string): Promise<number> {
  const metric = await rt.metrics.schedulerRuns.get();
  return metric.values.filter((v) => v.labels.job === job && v.labels.outcome === outcome).reduce((sum, v) => sum + v.value, 0);
}

describe(`scheduler ticks claimed in job_runs (${dialectName})`, () => {
  test('two processes claiming the same tick at once: one runs it, the other skips', async () => {
    let runs = 0;
    const work = async () => {
      runs++;
    };
    const results = await Promise.all([
      runOncePerTick(t.rt, 'claim-test', 60_000, work),
      runOncePerTick(other, 'claim-test', 60_000, work),
      runOncePerTick(t.rt, 'claim-test', 60_000, work),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(runs).toBe(1);
    expect(await runsOf('claim-test')).toEqual([expect.objectContaining({ outcome: 'succeeded', error: null })]);
    expect((await counted(t.rt, 'claim-test', 'skipped')) + (await counted(other, 'claim-test', 'skipped'))).toBe(2);
    // the next tick is a new claim
    expect(await runOncePerTick(other, 'claim-test', 120_000, work)).toBe(true);
    expect(runs).toBe(2);
  });

  test('a failing run is recorded as failed with its error, and counted', async () => {
    expect(
      await runOncePerTick(t.rt, 'failing-test', 1_000, async () => {
        throw new Error('provider unreachable');
      }),
    ).toBe(true);
    expect(await runsOf('failing-test')).toEqual([expect.objectContaining({ outcome: 'failed', error: 'provider unreachable' })]);
    expect(await counted(t.rt, 'failing-test', 'failed')).toBe(1);
  });

  test("runs older than a day are removed by the job's next run", async () => {
    const day = 24 * 3_600_000;
    const work = async () => undefined;
    await runOncePerTick(t.rt, 'cleanup-test', 1_000, work);
    await runOncePerTick(t.rt, 'cleanup-test', 2_000, work);
    await runOncePerTick(t.rt, 'cleanup-test', 2_000 + day, work);
    expect((await runsOf('cleanup-test')).map((r) => Number(r.slot))).toEqual([2_000, 2_000 + day]);
  });

  test('periodic jobs of two processes tick together and run every tick once', async () => {
    let runs = 0;
    const job = periodicJob(
      'periodic-test',
      () => 200,
      async () => {
        runs++;
      },
    );
    const a = job.start(t.rt);
    const b = job.start(other);
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    await Promise.all([a.stop(), b.stop()]);
    const rows = await runsOf('periodic-test');
    const slots = rows.map((r) => Number(r.slot));
    expect(new Set(slots).size).toBe(slots.length);
    expect(runs).toBe(rows.length);
    expect(rows.length).toBeGreaterThanOrEqual(4);
    expect(slots.every((s) => s % 200 === 0)).toBe(true);
    expect((await counted(t.rt, 'periodic-test', 'skipped')) + (await counted(other, 'periodic-test', 'skipped'))).toBeGreaterThan(0);
  });
});

test(`0017_scale creates job_runs (and rate_limits on Postgres) and reverts (${dialectName})`, async () => {
  const tdb = await createTestDatabase();
  const db = await Database.connect(tdb.url);
  const tables = async () =>
    (await db.sequelize.getQueryInterface().showAllTables()).map((x) => String((x as { tableName?: string }).tableName ?? x));
  try {
    await db.migrate();
    expect(await tables()).toContain('job_runs');
    if (db.dialect === 'postgres') expect(await tables()).toContain('rate_limits');
    else expect(await tables()).not.toContain('rate_limits');
    expect(await db.rollback('0017_scale')).toContain('0017_scale');
    expect(await tables()).not.toContain('job_runs');
    expect(await tables()).not.toContain('rate_limits');
    expect(await db.migrate()).toContain('0017_scale');
    expect(await tables()).toContain('job_runs');
  } finally {
    await db.close();
    await tdb.drop();
  }
});
