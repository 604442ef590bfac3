import { BaseCommand } from '../../../src/cli/base-command';
import type { WebhookDelivery } from '../../../src/services/webhooks/deliveries';
import { retryDelivery } from '../../../src/services/webhooks/deliveries';
import { recordArg, recordOwnerFlags } from '../../../src/cli/context';

export default class WebhooksDeliveriesRetry extends BaseCommand<typeof WebhooksDeliveriesRetry> {
  static override summary = 'Send one delivery now: failed, canceled, succeeded, or pending with a later attempt scheduled.';
  static override description = [
    'A failed, canceled or succeeded delivery is opened again, its next attempt due now; its attempts so far are kept',
    '(see webhooks deliveries get), and the receiver gets the same webhook-id and event id, so it can tell a repeat.',
    'Its maxAttempts is never lowered: a failed delivery (attempts used up) gets one more; a canceled or succeeded one whose',
    'attempt now fails goes on with the rest of its retry schedule.',
    'A pending delivery waiting for a later attempt (e.g. 6 hours away) is made due now, not duplicated: the rest of its retry',
    'schedule is unchanged. A running dispatcher (serve, webhooks dispatch) sends it.',
    'Refused (exit code 5) when the delivery is pending and already due or being sent, or when its endpoint is disabled',
    '(enable it first: webhooks endpoints update ID --status enabled, or run webhooks listen again for its endpoint) or deleted',
    '(send the event to another endpoint: events resend EVENT_ID --endpoint ID).',
  ].join(' ');
  static override examples = [
    '<%= config.bin %> webhooks deliveries retry 5b2d…',
    '<%= config.bin %> webhooks deliveries retry 5b2d… --json',
    '<%= config.bin %> webhooks deliveries list --status canceled --tenant 6f1c…',
  ];
  static override args = { id: recordArg('webhookDelivery', { description: 'Delivery id', required: true }) };
  static override flags = { ...recordOwnerFlags };

  async run(): Promise<WebhookDelivery> {
    const ctx = await this.scope();
    const delivery = await retryDelivery(ctx, this.args.id);
    this.log(
      `Requeued ${delivery.id} (${delivery.eventType}): attempt ${delivery.attemptCount + 1} of ${delivery.maxAttempts} is due now (${delivery.nextAttemptAt}); a running dispatcher sends it.`,
    );
    return delivery;
  }
}
