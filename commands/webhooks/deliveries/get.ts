import { BaseCommand } from '../../../src/cli/base-command';
import { renderRecord, renderTable } from '../../../src/cli/output';
import type { WebhookDelivery } from '../../../src/services/webhooks/deliveries';
import { getDelivery } from '../../../src/services/webhooks/deliveries';
import { modeName } from '../../../src/cli/webhooks';
import { recordArg, recordOwnerFlags } from '../../../src/cli/context';

export default class WebhooksDeliveriesGet extends BaseCommand<typeof WebhooksDeliveriesGet> {
  static override summary = 'Show one delivery record with its attempts.';
  static override examples = ['<%= config.bin %> webhooks deliveries get 5b2d…', '<%= config.bin %> webhooks deliveries get 5b2d… --json'];
  static override args = { id: recordArg('webhookDelivery', { description: 'Delivery id', required: true }) };
  static override flags = { ...recordOwnerFlags };

  async run(): Promise<WebhookDelivery> {
    const ctx = await this.scope();
    const delivery = await getDelivery(ctx, this.args.id);
    const { attempts = [], livemode, ...record } = delivery;
    this.log(renderRecord({ ...record, mode: modeName(livemode) }));
    if (attempts.length) {
      this.log('');
      this.log(
        renderTable(attempts, [
          { header: '#', get: (a) => a.attempt },
          { header: 'Started', get: (a) => a.startedAt },
          { header: 'ms', get: (a) => a.durationMs },
          { header: 'HTTP', get: (a) => a.statusCode ?? '' },
          { header: 'OK', get: (a) => (a.success ? 'yes' : 'no') },
          { header: 'Error', get: (a) => a.error ?? '' },
        ]),
      );
    } else {
      this.log('\nNo attempts yet.');
    }
    return delivery;
  }
}
