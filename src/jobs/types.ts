import type { Runtime } from '../runtime';

/** A background job of `serve`: started once per process; its work must be safe when several processes run it. */
export interface BackgroundJob {
  name: string;
  /** starts the job's timers; the returned stop() lets running work finish */
  start(rt: Runtime): { stop(): Promise<void> };
  /** one run of its work now, in this process (`payplane jobs run <name>`): what it did */
  runNow(rt: Runtime): Promise<unknown>;
}
