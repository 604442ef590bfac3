import { Flags } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import { renderTable } from '../../../src/cli/output';
import { ProgressBar } from '../../../src/cli/progress';
import { NotFoundError } from '../../../src/domain/errors';
import { parseDuration } from '../../../src/services/access/tokens';
import { systemContext } from '../../../src/domain/authority';
import { eventCatalog, matchesPattern } from '../../../src/services/webhooks/catalog';
import { failedDeliveries, replayDelivery } from '../../../src/services/webhooks/deliveries';
import { checkTypeFilter, modeName } from '../../../src/cli/webhooks';
import { platformContext, requireUuid } from '../../../src/cli/context';

export interface ReplayResult {
  /** failed deliveries found in the window (after --endpoint and --type) */
  selected: number;
  /** put back in the queue (0 under --dry-run) */
  requeued: number;
  /** no longer failed when reached (replayed or retried meanwhile), or their endpoint is disabled or deleted */
  skipped: number;
  dryRun: boolean;
  /** start of the window (failedAt >= since) */
  since: string;
  /** ids of the selected deliveries, oldest failure first */
  deliveries: string[];
}

export default class WebhooksDeliveriesReplay extends BaseCommand<typeof WebhooksDeliveriesReplay> {
  static override summary = 'Re-send the failed deliveries of a time window (e.g. after a receiver outage).';
  static override description = [
    'Selects every delivery that failed (exhausted its attempts) within --since of now, in both test and live mode, optionally only',
    'to one --endpoint or of one --type (exact, or a wildcard such as payment.*), and puts each back in the queue for one more',
    'attempt, due now; a running dispatcher sends them. Each delivery is requeued in its own mode and only if it is still failed,',
    'so a second run finds nothing left to replay in that window. Deliveries whose endpoint is disabled or deleted are skipped.',
    'A progress bar is drawn on stderr when it is a terminal; then a summary table. --dry-run lists the selection without changing it.',
  ].join(' ');
  static override examples = [
    '<%= config.bin %> webhooks deliveries replay --status failed --since 1h',
    '<%= config.bin %> webhooks deliveries replay --status failed --since 2h --endpoint 9a4e… --type "payment.*" --dry-run',
    '<%= config.bin %> webhooks deliveries replay --status failed --since 7d --json',
  ];
  static override flags = {
    status: Flags.string({ description: 'Status to replay (failed is the one replayable status)', options: ['failed'], default: 'failed' }),
    since: Flags.string({ description: 'Window: deliveries that failed within this long ago, e.g. 30m, 2h, 7d', required: true }),
    endpoint: Flags.string({ description: 'Only deliveries to this endpoint' }),
    type: Flags.string({ description: 'Only this event type, or a wildcard such as payment.*' }),
    'dry-run': Flags.boolean({ description: 'Show what would be replayed; change nothing', default: false }),
  };

  async run(): Promise<ReplayResult> {
    const seconds = parseDuration(this.flags.since, '--since');
    const endpointId = this.flags.endpoint === undefined ? undefined : requireUuid(this.flags.endpoint, '--endpoint');
    const type = this.flags.type === undefined ? undefined : checkTypeFilter(this.flags.type, eventCatalog().map((e) => e.type), matchesPattern);
    const dryRun = this.flags['dry-run'];

    const rt = await this.runtime();
    if (endpointId && !(await rt.db.models.WebhookEndpoint.findOne({ where: { id: endpointId } }))) throw new NotFoundError('webhook endpoint', endpointId);
    const since = new Date(rt.clock.now().getTime() - seconds * 1000);
    // failedDeliveries reads across tenants and modes; each row is then requeued in its own mode.
    const selectCtx = platformContext(rt, false);
    const rows = await failedDeliveries(selectCtx, { since, endpointId, type });

    let requeued = 0;
    let skipped = 0;
    if (dryRun) {
      if (rows.length) {
        this.log(
          renderTable(rows, [
            { header: 'ID', get: (d) => d.id },
            { header: 'Event type', get: (d) => d.eventType },
            { header: 'Endpoint', get: (d) => d.endpointId },
            { header: 'Mode', get: (d) => modeName(d.livemode) },
            { header: 'Failed at', get: (d) => (d.failedAt ? new Date(d.failedAt).toISOString() : '') },
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
      renderTable([{ selected: rows.length, requeued, skipped }], [
        { header: 'Selected', get: (r) => r.selected },
        { header: 'Requeued', get: (r) => r.requeued },
        { header: 'Skipped', get: (r) => r.skipped },
      ]),
    );
    const window = `since ${since.toISOString()} (${this.flags.since})`;
    const noun = (n: number) => `failed ${n === 1 ? 'delivery' : 'deliveries'}`;
    if (dryRun) this.log(`Dry run: ${rows.length} ${noun(rows.length)} ${window} would be replayed; nothing was changed.`);
    else if (!rows.length) this.log(`No failed deliveries ${window}.`);
    else this.log(`Requeued ${requeued} of ${rows.length} ${noun(rows.length)} ${window}; a running dispatcher sends them.`);

    return { selected: rows.length, requeued, skipped, dryRun, since: since.toISOString(), deliveries: rows.map((r) => r.id) };
  }
}
