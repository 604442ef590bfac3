import { Flags } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import { renderRecord } from '../../../src/cli/output';
import { validateWith } from '../../../src/cli/validate';
import { ValidationError } from '../../../src/domain/errors';
import { UpdateEndpointBody } from '../../../src/api/webhooks/schemas';
import type { WebhookEndpoint } from '../../../src/services/webhooks/endpoints';
import { validateSubscription } from '../../../src/services/webhooks/catalog';
import { updateEndpoint } from '../../../src/services/webhooks/endpoints';
import { recordArg, recordOwnerFlags } from '../../../src/cli/context';

export default class WebhooksEndpointsUpdate extends BaseCommand<typeof WebhooksEndpointsUpdate> {
  static override summary = 'Change a webhook endpoint: URL, subscribed events, description, attempts, or enable/disable it.';
  static override description =
    "--event replaces the whole subscription set. Disabling cancels the endpoint's pending deliveries; enabling clears its failing state.";
  static override examples = [
    '<%= config.bin %> webhooks endpoints update 9a4e… --url https://shop.example.com/hooks/v2',
    '<%= config.bin %> webhooks endpoints update 9a4e… --event payment.succeeded --event refund.*',
    '<%= config.bin %> webhooks endpoints update 9a4e… --status disabled --json',
  ];
  static override args = { id: recordArg('webhookEndpoint', { description: 'Webhook endpoint id', required: true }) };
  static override flags = {
    ...recordOwnerFlags,
    url: Flags.string({ description: 'New receiver URL (https)' }),
    event: Flags.string({ description: 'Event type, wildcard or * (repeatable); replaces the subscription set', multiple: true }),
    description: Flags.string({ description: 'New description', exclusive: ['no-description'] }),
    'no-description': Flags.boolean({ description: 'Remove the description', default: false }),
    status: Flags.string({ description: 'Enable or disable the endpoint', options: ['enabled', 'disabled'] }),
    'max-attempts': Flags.integer({ description: 'Delivery attempts before a delivery fails (1-10)' }),
  };

  async run(): Promise<WebhookEndpoint> {
    const raw = {
      url: this.flags.url,
      events: this.flags.event,
      description: this.flags['no-description'] ? null : this.flags.description,
      status: this.flags.status,
      maxAttempts: this.flags['max-attempts'],
    };
    if (Object.values(raw).every((v) => v === undefined)) {
      throw new ValidationError(
        'Nothing to change.',
        [{ path: '--url', message: 'give --url, --event, --description, --no-description, --status or --max-attempts' }],
        'NOTHING_TO_CHANGE',
      );
    }
    const input = validateWith(UpdateEndpointBody, raw, { events: 'event', maxAttempts: 'max-attempts' });
    const ctx = await this.scope();
    if (input.events !== undefined) validateSubscription(ctx.level, input.events, '--event');
    const endpoint = await updateEndpoint(ctx, this.args.id, input, { field: '--url' });
    this.log(
      renderRecord({
        id: endpoint.id,
        url: endpoint.url,
        events: endpoint.events,
        description: endpoint.description,
        status: endpoint.status,
        maxAttempts: endpoint.maxAttempts,
      }),
    );
    return endpoint;
  }
}
