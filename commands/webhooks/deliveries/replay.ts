import { Flags } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import { renderTable } from '../../../src/cli/output';
import { ProgressBar } from '../../../src/cli/progress';
import { NotFoundError } from '../../../src/domain/errors';
import { parseDuration } from '../../../src/services/access/tokens';
import { systemContext } from '../../../src/domain/authority';
import { eventCatalog, matchesPattern } from '../../../src/services/webhooks/catalog';
import {
  REPLAYABLE_STATUSES,
  type ReplayableStatus,
  replayDelivery,
  replayTime,
  replayableDeliveries,
} from '../../../src/services/webhooks/deliveries';
import { checkTypeFilter, modeName } from '../../../src/cli/webhooks';
import { atPlatform, requireUuid } from '../../../src/cli/context';

export interface ReplayResult {
  /** deliveries of the statuses asked for found in the window (after --endpoint and --type) */
  selected: number;
  /** sent now: opened again for one more attempt, or (pending) made due now; 0 under --dry-run */
  requeued: number;
  /** changed when reached (replayed, retried or sent meanwhile), due already, or their endpoint is disabled or deleted */
  skipped: number;
  dryRun: boolean;
  /** the statuses selected (--status) */
  statuses: ReplayableStatus[];
  /** start of the window: failed at, canceled at, or (pending) last attempt at or after it */
  since: string;
  /** ids of the selected deliveries, oldest first */
  deliveries: string[];
}

const STATUS_WORDS: Record<ReplayableStatus, string> = { failed: 'failed', canceled: 'canceled', pending: 'scheduled (pending)' };

export default class WebhooksDeliveriesReplay extends BaseCommand<typeof WebhooksDeliveriesReplay> {
  static override summary = 'Send now the failed, canceled or scheduled deliveries of a time window (e.g. after a receiver outage).';
  static override description = [
    'Selects the deliveries of --status (failed by default; canceled, pending, or several: --status failed,canceled) that came to it',
    'within --since of now, in both test and live mode: failed (exhausted their attempts) when they failed, canceled (their endpoint',
    'was disabled or deleted, e.g. a webhooks listen that stopped) when they were canceled, pending when their last attempt failed and',
    'the next one is still scheduled. Optionally only to one --endpoint or of one --type (exact, or a wildcard such as payment.*).',
    'Each is sent now by the rule of webhooks deliveries retry: a failed or canceled delivery is opened again, its next attempt',
    'due now (its attempts so far are kept, its maxAttempts never lowered: a failed one gets one more); a scheduled one is made due now, its schedule otherwise unchanged. A running dispatcher',
    'sends them. Each delivery is requeued in its own mode and only if it has not changed since it was selected, so a second run finds',
    'nothing left to replay in that window. Deliveries whose endpoint is disabled or deleted are skipped (enable the endpoint first).',
    'A progress bar is drawn on stderr when it is a terminal; then a summary table. --dry-run lists the selection without changing it.',
  ].join(' ');
  static override examples = [
    '<%= config.bin %> webhooks deliveries replay --status failed --since 1h',
    '<%= config.bin %> webhooks deliveries replay --status canceled --since 1d --dry-run',
    '<%= config.bin %> webhooks deliveries replay --status failed,canceled,pending --since 6h --endpoint 9a4e…',
    '<%= config.bin %> webhooks deliveries replay --status failed --since 2h --endpoint 9a4e… --type "payment.*" --dry-run',
    '<%= config.bin %> webhooks deliveries replay --status pending --since 7d --json',
  ];
  static override scopeOf = atPlatform(false);
  static override flags = {
    status: Flags.string({
      description:
        'Statuses to replay: failed, canceled, pending (scheduled for a later attempt); repeat the flag or separate them with commas',
      options: [...REPLAYABLE_STATUSES],
      multiple: true,
      delimiter: ',',
      default: ['failed'],
    }),
    since: Flags.string({
      description: 'Window: deliveries that failed, were canceled or (pending) last attempted within this long ago, e.g. 30m, 2h, 7d',
      required: true,
    }),
    endpoint: Flags.string({ description: 'Only deliveries to this endpoint' }),
    type: Flags.string({ description: 'Only this event type, or a wildcard such as payment.*' }),
    'dry-run': Flags.boolean({ description: 'Show what would be replayed; change nothing', default: false }),
  };

  async run(): Promise<ReplayResult> {
    const seconds = parseDuration(this.flags.since, '--since');
    const endpointId = this.flags.endpoint === undefined ? undefined : requireUuid(this.flags.endpoint, '--endpoint');
    const type =
      this.flags.type === undefined
        ? undefined
        : checkTypeFilter(
            this.flags.type,
            eventCatalog().map((e) => e.type),
            matchesPattern,
          );
    const statuses = REPLAYABLE_STATUSES.filter((s) => (this.flags.status as string[]).includes(s));
    const dryRun = this.flags['dry-run'];

    const rt = await this.runtime();
    if (endpointId && !(await rt.db.models.WebhookEndpoint.findOne({ where: { id: endpointId } })))
      throw new NotFoundError('webhook endpoint', endpointId);
    const since = new Date(rt.clock.now().getTime() - seconds * 1000);
    // replayableDeliveries reads across tenants and modes; each row is then requeued in its own mode.
    const selectCtx = await this.scope();
    const rows = await replayableDeliveries(selectCtx, { since, statuses, endpointId, type });

    let requeued = 0;
    let skipped = 0;
    if (dryRun) {
      if (rows.length) {
        const iso = (date: Date | null) => (date ? new Date(date).toISOString() : '');
        this.log(
          renderTable(rows, [
            { header: 'ID', get: (d) => d.id },
            { header: 'Status', get: (d) => d.status },
            { header: 'Event type', get: (d) => d.eventType },
            { header: 'Endpoint', get: (d) => d.endpointId },
            { header: 'Mode', get: (d) => modeName(d.livemode) },
            { header: 'Attempts', get: (d) => `${d.attemptCount}/${d.maxAttempts}` },
            { header: 'Since', get: (d) => iso(replayTime(d)) },
            { header: 'Next attempt', get: (d) => (d.status === 'pending' ? iso(d.nextAttemptAt) : '') },
            { header: 'Last error', get: (d) => d.lastError ?? '' },
          ]),
        );
      }
    } else {
      const bar = new ProgressBar(rows.length, { label: 'Replaying', enabled: !this.jsonEnabled() });
      for (const row of rows) {
        const outcome = await replayDelivery(systemContext(rt, row.livemode), row);
        if (outcome === 'requeued') requeued++;
        else skipped++;
        bar.tick();
      }
      bar.stop();
    }

    this.log(
      renderTable(
        [{ selected: rows.length, requeued, skipped }],
        [
          { header: 'Selected', get: (r) => r.selected },
          { header: 'Requeued', get: (r) => r.requeued },
          { header: 'Skipped', get: (r) => r.skipped },
        ],
      ),
    );
    const window = `since ${since.toISOString()} (${this.flags.since})`;
    const words = statuses.map((s) => STATUS_WORDS[s]).join(' or ');
    const noun = (n: number) => `${words} ${n === 1 ? 'delivery' : 'deliveries'}`;
    if (dryRun) this.log(`Dry run: ${rows.length} ${noun(rows.length)} ${window} would be replayed; nothing was changed.`);
    else if (!rows.length) this.log(`No ${noun(0)} ${window}.`);
    else this.log(`Requeued ${requeued} of ${rows.length} ${noun(rows.length)} ${window}; a running dispatcher sends them.`);

    return { selected: rows.length, requeued, skipped, dryRun, statuses, since: since.toISOString(), deliveries: rows.map((r) => r.id) };
  }
}
