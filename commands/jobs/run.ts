import { Args } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { renderRecord } from '../../src/cli/output';
import { ValidationError } from '../../src/domain/errors';
import { backgroundJobs, jobNamed } from '../../src/jobs';

/** What `jobs run` answers: the job, when it ran (the clock of this process) and what it did. */
export interface JobRun {
  job: string;
  startedAt: string;
  finishedAt: string;
  result: unknown;
}

const names = () => backgroundJobs.map((job) => job.name);

export default class JobsRun extends BaseCommand<typeof JobsRun> {
  static override summary = 'Run one background job of `serve` now, in this process, and show what it did.';
  static override description = `The jobs are the ones \`serve\` runs on their schedules (the same registry): ${names().join(', ')}. Each is safe beside a running \`serve\` (work is claimed record by record; a payout is made once per schedule period), so running one now only does sooner what is already due. --json returns { job, startedAt, finishedAt, result }, result being the job's own summary (payouts: the payouts created, sent, paid and failed, and why a due period made none).`;
  static override examples = [
    '<%= config.bin %> jobs run payouts',
    '<%= config.bin %> jobs run ledger-release --json',
    '<%= config.bin %> jobs run checkout-expiry',
  ];
  static override args = { job: Args.string({ description: `The job: ${names().join(', ')}`, required: true }) };
  static override flags = {};

  async run(): Promise<JobRun> {
    const job = jobNamed(this.args.job);
    if (!job) {
      throw new ValidationError(
        `Unknown job "${this.args.job}".`,
        [{ path: 'JOB', message: `"${this.args.job}" is not a job; the jobs are: ${names().join(', ')}` }],
        'UNKNOWN_JOB',
        {
          hint: `Run one of: ${names().join(', ')}.`,
        },
      );
    }
    const rt = await this.runtime();
    const startedAt = rt.clock.now().toISOString();
    const result = await job.runNow(rt);
    const run: JobRun = { job: job.name, startedAt, finishedAt: rt.clock.now().toISOString(), result };
    this.log(renderRecord({ job: run.job, started: run.startedAt, finished: run.finishedAt, ...summary(result) }));
    return run;
  }
}

/** A job's result as lines: counts for lists, values as they are. */
function summary(result: unknown): Record<string, string | number> {
  if (!result || typeof result !== 'object') return { result: String(result ?? '') };
  return Object.fromEntries(
    Object.entries(result as Record<string, unknown>).map(([key, value]) => [
      key,
      Array.isArray(value)
        ? value.length
        : typeof value === 'object' && value !== null
          ? JSON.stringify(value)
          : (value as string | number),
    ]),
  );
}
