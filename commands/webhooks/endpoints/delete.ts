import { BaseCommand } from '../../../src/cli/base-command';
import { sharedFlags } from '../../../src/cli/flags';
import type { WebhookEndpoint } from '../../../src/services/webhooks/endpoints';
import { deleteEndpoint, getEndpoint } from '../../../src/services/webhooks/endpoints';
import { recordArg, recordOwnerFlags } from '../../../src/cli/context';

export default class WebhooksEndpointsDelete extends BaseCommand<typeof WebhooksEndpointsDelete> {
  static override summary = 'Delete a webhook endpoint; its pending deliveries are canceled.';
  static override examples = [
    '<%= config.bin %> webhooks endpoints delete 9a4e…',
    '<%= config.bin %> webhooks endpoints delete 9a4e… --yes --json',
  ];
  static override args = { id: recordArg('webhookEndpoint', { description: 'Webhook endpoint id', required: true }) };
  static override flags = {
    ...recordOwnerFlags,
    yes: sharedFlags.yes,
  };

  async run(): Promise<WebhookEndpoint> {
    await this.confirmAction(this.flags.yes, async () => {
      const endpoint = await getEndpoint(await this.scope(), this.args.id);
      return {
        verb: 'Delete',
        noun: 'webhook endpoint',
        name: endpoint.url,
        id: endpoint.id,
        consequence: 'Its pending deliveries are canceled.',
      };
    });
    const ctx = await this.scope();
    const endpoint = await deleteEndpoint(ctx, this.args.id);
    this.log(`Deleted ${endpoint.id} (${endpoint.url}) at ${endpoint.deletedAt}.`);
    return endpoint;
  }
}
