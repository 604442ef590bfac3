import os from 'node:os';
import { QueryTypes } from 'sequelize';
import type { Runtime } from '../runtime';
import { JOB_INTERVALS, type PeriodicJobName } from '../config';
import { newId } from '../util/ids';
import type { BackgroundJob } from './types';

/**
 * Ticks a periodic job catches up on at most, after its process was busy or late: 10, or as many as a minute holds
 * when its interval is shorter (a process busy for up to a minute loses none of a short job's ticks).
 */
const MAX_CATCH_UP = 10;
const CATCH_UP_WINDOW_MS = 60_000;
const catchUpTicks = (interval: number) => Math.max(MAX_CATCH_UP, Math.ceil(CATCH_UP_WINDOW_MS / interval));

/** Claimed ticks are kept this long (job_runs), then removed by the job's next run. */
const KEEP_RUNS_MS = 24 * 3_600_000;

function workerName(): string {
  return `${os.hostname()}:${process.pid}`;
}

/**
 * Runs `work` for one tick of a job unless a process (this one or another on the same database) already has that
 * tick: the first to insert (job, slot) into job_runs runs it, the others skip. The run's outcome is recorded on the
 * row and counted in payplane_scheduler_runs_total. Returns whether this process ran it.
 */
export async function runOncePerTick(rt: Runtime, job: string, slot: number, work: (rt: Runtime) => Promise<unknown>): Promise<boolean> {
  const { db } = rt;
  const id = newId();
  const claimed = await db.transaction(async (transaction) => {
    const replacements = db.rawReplacements({ id, job, slot, worker: workerName(), now: rt.clock.now() });
    await db.sequelize.query(
      `INSERT INTO job_runs (id, job, slot, "workerId", "startedAt", outcome) VALUES (:id, :job, :slot, :worker, :now, 'running')
       ON CONFLICT (job, slot) DO NOTHING`,
      { replacements, transaction },
    );
    const [owner] = await db.sequelize.query<{ id: string }>('SELECT id FROM job_runs WHERE job = :job AND slot = :slot', {
      replacements,
      type: QueryTypes.SELECT,
      transaction,
    });
    if (owner?.id !== id) return false;
    await db.sequelize.query('DELETE FROM job_runs WHERE job = :job AND slot < :cutoff', {
      replacements: { job, cutoff: slot - KEEP_RUNS_MS },
      transaction,
    });
    return true;
  });
  if (!claimed) {
    rt.metrics.schedulerRuns.inc({ job, outcome: 'skipped' });
    return false;
  }
  let error: unknown;
  try {
    await work(rt);
  } catch (e) {
    error = e;
    rt.logger.error({ err: e, job }, `${job} run failed`);
  }
  const outcome = error === undefined ? 'succeeded' : 'failed';
  rt.metrics.schedulerRuns.inc({ job, outcome });
  await db
    .transaction((transaction) =>
      db.sequelize.query('UPDATE job_runs SET "finishedAt" = :now, outcome = :outcome, error = :error WHERE id = :id', {
        replacements: db.rawReplacements({
          now: rt.clock.now(),
          outcome,
          error: error === undefined ? null : String((error as Error)?.message ?? error).slice(0, 1000),
          id,
        }),
        transaction,
      }),
    )
    .catch((e) => rt.logger.error({ err: e, job }, `${job}: could not record the run's outcome`));
  return true;
}

/**
 * A job of `serve` that runs `work` every `intervalMs(rt)` on ticks aligned to the clock (multiples of the interval since
 * the epoch), so that every process ticks at the same moments and one of them runs each tick (runOncePerTick); also a
 * tick at start (skipped when a process already ran the current one). Never two runs at once in a process; stop() waits for a run in progress.
 * `work` returns what it did (`payplane jobs run` shows it).
 */
export function periodicJob(name: string, intervalMs: (rt: Runtime) => number, work: (rt: Runtime) => Promise<unknown>): BackgroundJob {
  return {
    name,
    runNow: work,
    start: (rt: Runtime) => {
      let running: Promise<unknown> | null = null;
      let again = false;
      let stopped = false;
      let timer: NodeJS.Timeout | undefined;
      let last: number | undefined;
      const interval = intervalMs(rt);
      const tick = () => {
        if (stopped) return;
        if (running) {
          // busy with an earlier tick: look again when it is done
          again = true;
          return;
        }
        // the tick is read from the injected clock, so a test that moves the clock gets a new tick
        const current = Math.floor(rt.clock.now().getTime() / interval) * interval;
        // every tick since the last one this process looked at (at most catchUpTicks): a tick that came while
        // every process was busy, or while this one's timer was late, is run by the first process free for it
        const from = last === undefined ? current : Math.max(last + interval, current - catchUpTicks(interval) * interval);
        last = Math.max(last ?? current, current);
        running = (async () => {
          for (let slot = from; slot <= current && !stopped; slot += interval) {
            await runOncePerTick(rt, name, slot, work).catch((error) =>
              rt.logger.error({ err: error, job: name }, `${name}: could not claim its tick`),
            );
          }
        })().finally(() => {
          running = null;
          if (again) {
            again = false;
            tick();
          }
        });
      };
      const schedule = () => {
        if (stopped) return;
        timer = setTimeout(
          () => {
            tick();
            schedule();
          },
          interval - (Date.now() % interval),
        );
        timer.unref();
      };
      tick();
      schedule();
      return {
        stop: async () => {
          stopped = true;
          clearTimeout(timer);
          // a tick asked for while a run went on starts no new run once stopped
          while (running) await running;
        },
      };
    },
  };
}

/**
 * One of serve's jobs, run every interval its setting gives (JOB_INTERVALS in src/config.ts: PAYPLANE_<JOB>_MS or its
 * key in payplane.config.json, read from the runtime's configuration): the one way a job of serve gets its schedule.
 */
export function scheduledJob(name: PeriodicJobName, work: (rt: Runtime) => Promise<unknown>): BackgroundJob {
  const { key } = JOB_INTERVALS[name];
  return periodicJob(name, (rt) => rt.config[key], work);
}
