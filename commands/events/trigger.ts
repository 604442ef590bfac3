import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { renderRecord, renderTable } from '../../src/cli/output';
import { services } from '../../src/cli/services';
import { requireUuid } from '../../src/cli/webhook-flags';
import { PermissionError, ValidationError } from '../../src/domain/errors';
import type { TriggeredEvent } from '../../src/services/webhooks/samples';

export default class EventsTrigger extends BaseCommand<typeof EventsTrigger> {
  static override summary = 'Emit a sample event of a type through the real outbox (sandbox only), to test a webhook receiver.';
  static override description =
    'The event (data.sample = true) is written in test mode with one delivery per subscribed endpoint of the tenant, the merchant and the platform, exactly as a real one; a running dispatcher (serve or webhooks dispatch) sends it, signed. Merchant event types need --merchant.';
  static override examples = [
    '<%= config.bin %> events trigger payment.succeeded --tenant 6f1c… --merchant 0b9e…',
    '<%= config.bin %> events trigger merchant.created --tenant 6f1c… --json',
  ];
  static override args = { type: Args.string({ description: 'Event type, e.g. payment.succeeded', required: true }) };
  static override flags = {
    tenant: Flags.string({ description: 'Tenant id', required: true }),
    merchant: Flags.string({ description: 'Merchant id (required for merchant event types)' }),
    live: Flags.boolean({ description: 'Not allowed: sample events exist in sandbox (test) mode only', default: false, hidden: true }),
  };

  async run(): Promise<TriggeredEvent> {
    if (this.flags.live) {
      throw new PermissionError('Sample events can only be triggered in sandbox (test) mode.', 'SANDBOX_ONLY', {
        hint: 'Leave out --live: sample events are emitted in test mode.',
      });
    }
    const catalog = services.webhookCatalog().eventCatalog();
    const entry = catalog.find((e) => e.type === this.args.type);
    if (!entry) {
      const prefix = this.args.type.split('.')[0];
      const near = catalog.filter((e) => e.type.startsWith(`${prefix}.`)).map((e) => e.type);
      throw new ValidationError(`Unknown event type "${this.args.type}".`, [{ path: 'TYPE', message: `"${this.args.type}" is not an event type` }], 'UNKNOWN_EVENT_TYPE', {
        hint: near.length ? `Did you mean one of: ${near.join(', ')}?` : `Known groups: ${[...new Set(catalog.map((e) => e.type.split('.')[0]))].join(', ')}.`,
      });
    }
    const tenantId = requireUuid(this.flags.tenant, '--tenant');
    const merchantId = this.flags.merchant === undefined ? undefined : requireUuid(this.flags.merchant, '--merchant');
    if (entry.level === 'merchant' && !merchantId) {
      throw new ValidationError(`${entry.type} is a merchant event: name the merchant.`, [{ path: '--merchant', message: `is required for ${entry.type}` }], 'MISSING_FLAG', {
        hint: 'Pass --merchant <id>.',
      });
    }
    const rt = await this.runtime();
    const ctx = services.scope().tenantContext(rt, tenantId, false);
    const event = await services.webhookSamples().triggerSampleEvent(ctx, { type: entry.type, merchantId });
    this.log(renderRecord({ eventId: event.eventId, type: event.type, tenant: event.tenantId, merchant: event.merchantId ?? '', mode: 'test', deliveriesQueued: event.deliveriesQueued }));
    if (event.deliveries.length) {
      this.log('');
      this.log(renderTable(event.deliveries, [{ header: 'Delivery', get: (d) => d.id }, { header: 'Endpoint', get: (d) => d.endpointId }]));
    } else {
      this.log('\nNo endpoint subscribes to this event: nothing was queued.');
    }
    return event;
  }
}
