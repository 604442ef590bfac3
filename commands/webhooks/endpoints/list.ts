import { BaseCommand } from '../../../src/cli/base-command';
import { sharedFlags, tableFlags } from '../../../src/cli/flags';
import { renderTable, statusColour, pageFooter, logBesideTable } from '../../../src/cli/output';
import type { Page } from '../../../src/db/scoped';
import type { WebhookEndpoint } from '../../../src/services/webhooks/endpoints';
import { listEndpoints } from '../../../src/services/webhooks/endpoints';
import { endpointScopeFlags } from '../../../src/cli/webhooks';

export default class WebhooksEndpointsList extends BaseCommand<typeof WebhooksEndpointsList> {
  static override summary = 'List the webhook endpoints of a tenant, a merchant or the platform (one mode at a time).';
  static override examples = [
    '<%= config.bin %> webhooks endpoints list --tenant 6f1c…',
    '<%= config.bin %> webhooks endpoints list --tenant 6f1c… --merchant 0b9e… --json',
    '<%= config.bin %> webhooks endpoints list --platform --live',
    '<%= config.bin %> webhooks endpoints list --tenant 6f1c… --all --json',
  ];
  static override flags = {
    ...endpointScopeFlags,
    limit: sharedFlags.limit,
    cursor: sharedFlags.cursor,
    all: sharedFlags.all,
    ...tableFlags,
  };

  async run(): Promise<Page<WebhookEndpoint>> {
    const ctx = await this.scope();
    const page = await this.listAll((p) => listEndpoints(ctx, { ...p, sortOrder: 'desc' }));
    this.log(
      renderTable(
        page.data,
        [
          { header: 'ID', get: (e) => e.id },
          { header: 'URL', get: (e) => e.url },
          { header: 'Events', get: (e) => e.events },
          { header: 'Status', get: (e) => statusColour(e.status) },
          { header: 'Level', get: (e) => (e.level === 'merchant' ? `merchant ${e.merchantId}` : e.level) },
          { header: 'Created', get: (e) => e.createdAt },
        ],
        this.flags,
      ),
    );
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
