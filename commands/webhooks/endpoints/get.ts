import { BaseCommand } from '../../../src/cli/base-command';
import { renderRecord } from '../../../src/cli/output';
import type { WebhookEndpoint } from '../../../src/services/webhooks/endpoints';
import { getEndpoint } from '../../../src/services/webhooks/endpoints';
import { recordArg, recordOwnerFlags } from '../../../src/cli/context';

export default class WebhooksEndpointsGet extends BaseCommand<typeof WebhooksEndpointsGet> {
  static override summary = 'Show one webhook endpoint (never its secret).';
  static override examples = ['<%= config.bin %> webhooks endpoints get 9a4e…', '<%= config.bin %> webhooks endpoints get 9a4e… --json'];
  static override args = { id: recordArg('webhookEndpoint', { description: 'Webhook endpoint id', required: true }) };
  static override flags = { ...recordOwnerFlags };

  async run(): Promise<WebhookEndpoint> {
    const ctx = await this.scope();
    const endpoint = await getEndpoint(ctx, this.args.id);
    this.log(renderRecord({ ...endpoint }));
    return endpoint;
  }
}
