import { Flags } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import { chalk, renderRecord } from '../../../src/cli/output';
import { validateWith } from '../../../src/cli/validate';
import { CreateEndpointBody } from '../../../src/api/webhooks/schemas';
import type { EndpointWithSecret } from '../../../src/services/webhooks/endpoints';
import { validateSubscription } from '../../../src/services/webhooks/catalog';
import { createEndpoint } from '../../../src/services/webhooks/endpoints';
import { endpointScopeFlags, modeName } from '../../../src/cli/webhooks';

export default class WebhooksEndpointsCreate extends BaseCommand<typeof WebhooksEndpointsCreate> {
  static override summary = 'Create a webhook endpoint; its signing secret (whsec_…) is shown once.';
  static override description =
    "The endpoint receives the events it subscribes to (--event: an event type, a category wildcard such as payment.*, or *) at its level: --merchant for one merchant's events, --tenant alone for every event of the tenant, --platform for every tenant. URLs must be https.";
  static override examples = [
    '<%= config.bin %> webhooks endpoints create --tenant 6f1c… --merchant 0b9e… --url https://shop.example.com/hooks --event payment.* --event refund.succeeded',
    '<%= config.bin %> webhooks endpoints create --tenant 6f1c… --url https://ops.example.com/hooks --event "*" --max-attempts 5 --json',
  ];
  static override flags = {
    ...endpointScopeFlags,
    url: Flags.string({ description: 'Receiver URL (https)' }),
    event: Flags.string({ description: 'Event type, wildcard (payment.*) or * (repeatable)', multiple: true }),
    description: Flags.string({ description: 'Description' }),
    'max-attempts': Flags.integer({ description: 'Delivery attempts before a delivery fails (1-10, default 10)' }),
  };

  async run(): Promise<EndpointWithSecret> {
    const url = await this.required(this.flags.url, 'url', 'Receiver URL (https)');
    const events = this.flags.event ?? [await this.required(undefined, 'event', 'Events to subscribe to (e.g. payment.*)')];
    const input = validateWith(
      CreateEndpointBody,
      { url, events, description: this.flags.description, maxAttempts: this.flags['max-attempts'] },
      { events: 'event', maxAttempts: 'max-attempts' },
    );
    const ctx = await this.scope();
    validateSubscription(ctx.level, input.events, '--event');
    const endpoint = await createEndpoint(ctx, input, { field: '--url' });
    this.log(
      renderRecord({
        id: endpoint.id,
        url: endpoint.url,
        events: endpoint.events,
        level: endpoint.level,
        mode: modeName(endpoint.livemode),
        status: endpoint.status,
        maxAttempts: endpoint.maxAttempts,
      }),
    );
    this.log(`\n${chalk.bold('Signing secret')} (shown once, store it now):\n${endpoint.secret}`);
    return endpoint;
  }
}
