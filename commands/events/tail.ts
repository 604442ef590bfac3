import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { chalk } from '../../src/cli/output';
import { atTailLevel, withScope } from '../../src/cli/context';
import { checkTypeFilter, modeName } from '../../src/cli/webhooks';
import type { CallerContext } from '../../src/domain/context';
import { ValidationError } from '../../src/domain/errors';
import { formatMinor, type Money } from '../../src/domain/money';
import { parseDuration } from '../../src/services/access/tokens';
import { EventTail, type TailedEvent } from '../../src/services/event-tail';
import { eventCatalog, eventResource, matchesPattern } from '../../src/services/webhooks/catalog';

export interface TailResult {
  tenantId: string;
  merchantId: string | null;
  livemode: boolean;
  types: string[];
  /** how many events were printed */
  shown: number;
  stoppedBy: string;
}

export default class EventsTail extends BaseCommand<typeof EventsTail> {
  static override summary = 'Follow the events as they are committed: one line per event, or one JSON object per line with --json.';
  static override description = `Reads the events table (the outbox every state change writes its events to, whether or not an endpoint subscribes) every --interval and prints each new event once, as soon as its transaction has committed: its time (UTC), type, id and the main object's id, status and amount (at tenant level its merchant too); with --json one JSON object per line (JSON Lines: id, type, createdAt, livemode, tenantId, merchantId, data as an endpoint of the level receives it, version), written as each event arrives. A notice goes to stderr once it follows.

Whose events: the saved sandbox's merchant (.payplane/sandbox.json) by default, or --tenant (every merchant of the tenant), --tenant with --merchant, or --merchant alone (its tenant found from it); test-mode events unless --live. The scope is applied by the database query, as for every read.

From now on by default; --since 10m replays the events of the last ten minutes first. Events are shown in (time, id) order; one whose transaction commits after a later one's (Postgres) is shown when it commits, never skipped nor shown twice, as long as it commits within --lookback of its time. Ctrl-C (or SIGTERM) stops it with exit code 0.`;
  static override examples = [
    '<%= config.bin %> events tail',
    '<%= config.bin %> events tail --type "payment.*" --type refund.succeeded',
    '<%= config.bin %> events tail --tenant 6f1c… --since 10m',
    "<%= config.bin %> events tail --tenant 6f1c… --merchant 0b9e… --live --json | jq -c '{type, id}'",
  ];
  static override flags = {
    tenant: withScope(Flags.string({ description: "Tenant id: its events, every merchant's (default: the saved sandbox's)" }), atTailLevel),
    merchant: Flags.string({
      description: "Merchant id: only this merchant's events (with --tenant, or alone: its tenant is found from it)",
    }),
    live: Flags.boolean({ description: 'Live-mode events (default: sandbox/test mode)', default: false }),
    type: Flags.string({
      description: 'Event type, wildcard such as payment.* or *; repeat the flag or separate them with commas',
      multiple: true,
      delimiter: ',',
    }),
    since: Flags.string({ description: 'First show the events of this recent window, e.g. 30s, 10m, 2h, or since an ISO 8601 time' }),
    interval: Flags.integer({ description: 'Milliseconds between two reads of the events table', default: 500, min: 50, max: 60_000 }),
    lookback: Flags.string({
      description: 'How long after its time an event may still commit and be shown (each read looks back this far), e.g. 10s, 1m',
      default: '10s',
    }),
  };

  async run(): Promise<TailResult | undefined> {
    const stopped = this.untilStopped();
    const known = eventCatalog().map((e) => e.type);
    const types = (this.flags.type ?? [])
      .map((t) => t.trim())
      .filter(Boolean)
      .map((t) => checkTypeFilter(t, known, matchesPattern));
    const lookbackMs = parseDuration(this.flags.lookback, '--lookback') * 1000;
    const rt = await this.runtime();
    const since = this.flags.since === undefined ? undefined : sinceOf(this.flags.since, rt.clock.now());
    const ctx = await this.scope();
    const tail = new EventTail(ctx, { types, since, lookbackMs });
    const json = this.jsonEnabled();

    let stoppedBy: string | undefined;
    void stopped.then((signal) => (stoppedBy ??= signal));
    // a closed pipe (`| head`) ends the tail like Ctrl-C
    const onPipeError = (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') stoppedBy ??= 'EPIPE';
    };
    process.stdout.on('error', onPipeError);

    await tail.prime();
    const whose = ctx.merchantId ? `merchant ${ctx.merchantId} (tenant ${ctx.tenantId})` : `tenant ${ctx.tenantId}`;
    const what = types.length ? types.join(', ') : 'all types';
    process.stderr.write(
      `Following ${modeName(ctx.livemode)}-mode events of ${whose}, ${what}${since ? `, since ${since.toISOString()}` : ''}. Ctrl-C to stop.\n`,
    );

    let shown = 0;
    let failing = false;
    try {
      while (!stoppedBy) {
        try {
          for await (const events of tail.poll()) {
            for (const event of events) {
              if (stoppedBy === 'EPIPE') break;
              // one write per event: a reader of the pipe gets each line whole, as it arrives
              process.stdout.write(`${json ? JSON.stringify(event) : describe(event, ctx)}\n`);
              shown++;
            }
          }
          if (failing) process.stderr.write('Reading the events again.\n');
          failing = false;
        } catch (error) {
          // the database going away for a moment does not end the tail: it says so once and reads again
          if (!failing)
            process.stderr.write(
              `Could not read the events (${(error as Error).message}); trying again every ${this.flags.interval} ms.\n`,
            );
          failing = true;
        }
        if (!stoppedBy) await sleepUnless(this.flags.interval, stopped);
      }
    } finally {
      process.stdout.off('error', onPipeError);
    }
    if (json) return undefined;
    this.log(`${stoppedBy}: ${shown} event${shown === 1 ? '' : 's'} shown.`);
    return { tenantId: ctx.tenantId!, merchantId: ctx.merchantId, livemode: ctx.livemode, types, shown, stoppedBy: stoppedBy! };
  }
}

/** --since: a duration back from now (10m) or an ISO 8601 time. */
function sinceOf(value: string, now: Date): Date {
  if (/^\d+\s*[smhd]$/.test(value.trim())) return new Date(now.getTime() - parseDuration(value, '--since') * 1000);
  const at = /^\d{4}-\d{2}-\d{2}/.test(value) ? new Date(value) : new Date(Number.NaN);
  if (Number.isNaN(at.getTime())) throw ValidationError.field('--since', 'must be a duration such as 30s, 10m or 2h, or an ISO 8601 time');
  return at;
}

function sleepUnless(ms: number, stopped: Promise<unknown>): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    void stopped.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** One line an event: time (UTC), type, id, its merchant at tenant level, and its object's id, status and amount. */
function describe(event: TailedEvent, ctx: CallerContext): string {
  const time = event.createdAt.slice(11, 19);
  const parts = [chalk.dim(time), chalk.bold(event.type), event.id];
  if (!ctx.merchantId) parts.push(event.merchantId ? `merchant ${event.merchantId}` : 'tenant');
  const object = summary(event);
  if (object) parts.push(object);
  return parts.join('  ');
}

/** The event's object, when its data says: kind, id, status, amount. */
function summary(event: TailedEvent): string {
  const data = event.data && typeof event.data === 'object' ? (event.data as Record<string, unknown>) : {};
  const kind = (eventResource(event.type) ?? event.type.split('.')[0]).replace(/_/g, ' ');
  const bits: string[] = [];
  if (typeof data.id === 'string') bits.push(`${kind} ${data.id}`);
  if (typeof data.status === 'string') bits.push(statusText(data.status));
  if (isMoney(data.amount)) bits.push(formatMinor(data.amount));
  if (data.sample === true) bits.push(chalk.dim('(sample)'));
  return bits.join(' ');
}

function isMoney(value: unknown): value is Money {
  const money = value as Money | null;
  return typeof money === 'object' && money !== null && typeof money.currency === 'string' && Number.isSafeInteger(money.valueMinor);
}

function statusText(status: string): string {
  if (/^(succeeded|captured|complete|active|approved|paid)$/.test(status)) return chalk.green(status);
  if (/^(failed|canceled|rejected|expired|disabled|declined)$/.test(status)) return chalk.red(status);
  return chalk.yellow(status);
}
