import { Args } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import { renderRecord } from '../../../src/cli/output';
import { contextForEndpoint } from '../../../src/cli/webhook-flags';
import type { WebhookEndpoint } from '../../../src/services/webhooks/endpoints';
import { getEndpoint } from '../../../src/services/webhooks/endpoints';

export default class WebhooksEndpointsGet extends BaseCommand<typeof WebhooksEndpointsGet> {
  static override summary = 'Show one webhook endpoint (never its secret).';
  static override examples = ['<%= config.bin %> webhooks endpoints get 9a4e…', '<%= config.bin %> webhooks endpoints get 9a4e… --json'];
  static override args = { id: Args.string({ description: 'Webhook endpoint id', required: true }) };

  async run(): Promise<WebhookEndpoint> {
    const rt = await this.runtime();
    const ctx = await contextForEndpoint(rt, this.args.id);
    const endpoint = await getEndpoint(ctx, this.args.id);
    this.log(renderRecord({ ...endpoint }));
    return endpoint;
  }
}
