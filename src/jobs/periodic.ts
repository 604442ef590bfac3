import cron from 'node-cron';
import type { Runtime } from '../runtime';
import type { BackgroundJob } from './types';

/**
 * A job of `serve` that runs `work` once at start and then every `intervalMs()` (never two runs at once in a
 * process); stop() waits for a run in progress. The work itself must be safe with several processes.
 */
export function periodicJob(name: string, intervalMs: () => number, work: (rt: Runtime) => Promise<void>): BackgroundJob {
  return {
    name,
    start: (rt: Runtime) => {
      let running: Promise<void> | null = null;
      let stopped = false;
      const tick = () => {
        if (running || stopped) return;
        running = work(rt)
          .catch((error) => rt.logger.error({ err: error, job: name }, `${name} run failed`))
          .finally(() => {
            running = null;
          });
      };
      const timer = setInterval(tick, intervalMs());
      timer.unref();
      tick();
      return {
        stop: async () => {
          stopped = true;
          clearInterval(timer);
          if (running) await running;
        },
      };
    },
  };
}

/** A job of `serve` run by node-cron on `expression` (no overlapping runs); stop() waits for a run in progress. */
export function cronJob(name: string, expression: string, work: (rt: Runtime) => Promise<void>): BackgroundJob {
  return {
    name,
    start: (rt: Runtime) => {
      let running: Promise<unknown> = Promise.resolve();
      const task = cron.schedule(
        expression,
        () => {
          running = work(rt).catch((error) => rt.logger.error({ err: error, job: name }, `${name} run failed`));
          return running;
        },
        { name, noOverlap: true },
      );
      return {
        stop: async () => {
          await task.stop();
          await task.destroy();
          await running;
        },
      };
    },
  };
}

/** A job interval from the environment (at least 100 ms), else `fallback`. */
export function intervalFromEnv(variable: string, fallback: number): () => number {
  return () => {
    const value = Number(process.env[variable] ?? fallback);
    return Number.isFinite(value) && value >= 100 ? value : fallback;
  };
}
