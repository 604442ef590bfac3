import { BaseCommand } from '../../../src/cli/base-command';
import type { WebhookDelivery } from '../../../src/services/webhooks/deliveries';
import { retryDelivery } from '../../../src/services/webhooks/deliveries';
import { recordArg } from '../../../src/cli/context';

export default class WebhooksDeliveriesRetry extends BaseCommand<typeof WebhooksDeliveriesRetry> {
  static override summary = 'Put one failed delivery back in the queue for one more attempt, due now.';
  static override description = 'Only failed deliveries can be retried (exit code 5 otherwise); the endpoint must be enabled. A running dispatcher sends it.';
  static override examples = ['<%= config.bin %> webhooks deliveries retry 5b2d…', '<%= config.bin %> webhooks deliveries retry 5b2d… --json'];
  static override args = { id: recordArg('webhookDelivery', { description: 'Delivery id', required: true }) };

  async run(): Promise<WebhookDelivery> {
    const ctx = await this.scope();
    const delivery = await retryDelivery(ctx, this.args.id);
    this.log(`Requeued ${delivery.id} (${delivery.eventType}); next attempt due ${delivery.nextAttemptAt}.`);
    return delivery;
  }
}
