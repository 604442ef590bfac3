import { Flags } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import { sharedFlags, tableFlags } from '../../../src/cli/flags';
import { renderTable, pageFooter, logBesideTable } from '../../../src/cli/output';
import type { Page } from '../../../src/db/scoped';
import type { WebhookDelivery } from '../../../src/services/webhooks/deliveries';
import { listDeliveries } from '../../../src/services/webhooks/deliveries';
import { atDeliveryLevel, requireUuid, withScope } from '../../../src/cli/context';
import { modeName } from '../../../src/cli/webhooks';
import { validateInput } from '../../../src/cli/validate';
import { ListDeliveriesQuery } from '../../../src/api/webhooks/schemas';

export default class WebhooksDeliveriesList extends BaseCommand<typeof WebhooksDeliveriesList> {
  static override summary = 'List webhook delivery records, newest first (one mode at a time).';
  static override description =
    "Without --tenant: every tenant's deliveries (platform view). With --tenant: that tenant's; with --merchant too: the deliveries to that merchant's endpoints.";
  static override examples = [
    '<%= config.bin %> webhooks deliveries list --status failed',
    '<%= config.bin %> webhooks deliveries list --tenant 6f1c… --endpoint 9a4e… --json',
    '<%= config.bin %> webhooks deliveries list --tenant 6f1c… --merchant 0b9e… --type payment.succeeded --live',
    '<%= config.bin %> webhooks deliveries list --status failed --all --json',
    '<%= config.bin %> webhooks deliveries list --status failed --columns id,event-type,last-error --no-truncate',
    '<%= config.bin %> webhooks deliveries list --all --csv > deliveries.csv',
  ];
  static override flags = {
    tenant: withScope(Flags.string({ description: 'Tenant id (default: every tenant)' }), atDeliveryLevel),
    merchant: Flags.string({ description: "Merchant id: deliveries to this merchant's endpoints (needs --tenant)", dependsOn: ['tenant'] }),
    live: sharedFlags.live,
    endpoint: Flags.string({ description: 'Only deliveries to this endpoint' }),
    status: Flags.string({ description: 'Only deliveries in this status', options: ['pending', 'succeeded', 'failed', 'canceled'] }),
    type: Flags.string({ description: 'Only deliveries of this event type (exact name)' }),
    limit: sharedFlags.limit,
    cursor: sharedFlags.cursor,
    all: sharedFlags.all,
    ...tableFlags,
  };

  async run(): Promise<Page<WebhookDelivery>> {
    if (this.flags.endpoint) requireUuid(this.flags.endpoint, '--endpoint');
    if (this.flags.cursor) requireUuid(this.flags.cursor, '--cursor');
    const ctx = await this.scope();
    const filters = await validateInput(
      ctx,
      ListDeliveriesQuery.pick({ endpoint_id: true }),
      { endpoint_id: this.flags.endpoint },
      { endpoint_id: 'endpoint' },
    );
    const page = await this.listAll((p) =>
      listDeliveries(
        ctx,
        { endpointId: filters.endpoint_id, status: this.flags.status as WebhookDelivery['status'] | undefined, eventType: this.flags.type },
        { ...p, sortOrder: 'desc' },
      ),
    );
    this.log(
      renderTable(
        page.data,
        [
          { header: 'ID', get: (d) => d.id },
          { header: 'Event type', get: (d) => d.eventType },
          { header: 'Endpoint', get: (d) => d.endpointId },
          { header: 'Status', get: (d) => d.status },
          { header: 'Attempts', get: (d) => `${d.attemptCount}/${d.maxAttempts}` },
          { header: 'Mode', get: (d) => modeName(d.livemode) },
          { header: 'Last error', get: (d) => d.lastError ?? '' },
          { header: 'Created', get: (d) => d.createdAt },
        ],
        this.flags,
      ),
    );
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
