import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { renderRecord, renderTable } from '../../src/cli/output';
import { NotFoundError } from '../../src/domain/errors';
import type { Runtime } from '../../src/runtime';
import { resendEvent, type ResentEvent } from '../../src/services/webhooks/deliveries';
import { atResendLevel, requireUuid, withScope } from '../../src/cli/context';
import { modeName } from '../../src/cli/webhooks';

export default class EventsResend extends BaseCommand<typeof EventsResend> {
  static override summary = 'Send an event again: a fresh delivery to one endpoint, or to every enabled endpoint subscribed to its type.';
  static override description = `Writes a new delivery of the event (pending, due now, the endpoint's own number of attempts) for a running dispatcher (serve, webhooks dispatch) to send, signed, as the outbox does when the event is emitted; the event's earlier deliveries are left as they are. The receiver gets the same event id (its deduplication key) in a new message (a new webhook-id), rendered for the endpoint's level as on first delivery.

With --endpoint the event goes to that endpoint only; it must be able to receive it (enabled, same mode, an owner that sees the event, subscribed to its type), otherwise exit code 5 says why. Without --endpoint it goes to every endpoint that receives the event now: enabled and subscribed to its type, among the endpoints of the scope.

The scope is --tenant (the tenant's events; its endpoints and its merchants'), --merchant with or without --tenant (the merchant's events; its endpoints only) or --platform (any tenant's event; every level's endpoints, the platform's included). Without them: the tenant of the saved sandbox of this database (.payplane/sandbox.json), as webhooks listen does, so its merchant's endpoints (a webhooks listen among them) and its tenant's get the event. Events of live mode need --live. To send one delivery record again instead (the same record, one more attempt) use webhooks deliveries retry.`;
  static override examples = [
    '<%= config.bin %> events resend 7c1e…',
    '<%= config.bin %> events resend 7c1e… --endpoint 9a4e…',
    '<%= config.bin %> events resend 7c1e… --merchant 0b9e… --json',
    '<%= config.bin %> events resend 7c1e… --platform --live',
  ];
  static override args = { eventId: Args.string({ description: 'Event id (the id of the delivered event object)', required: true }) };
  static override flags = {
    endpoint: Flags.string({
      description: "Only to this endpoint (default: every enabled endpoint of the scope subscribed to the event's type)",
    }),
    tenant: withScope(
      Flags.string({
        description: "Tenant id: its events, to its endpoints and its merchants' (default: the sandbox's tenant)",
        exclusive: ['platform'],
      }),
      atResendLevel,
    ),
    merchant: Flags.string({
      description: 'Merchant id: its events, to its endpoints only (with --tenant, or alone: its tenant is found from it)',
      exclusive: ['platform'],
    }),
    platform: Flags.boolean({
      description: "Any tenant's event, to every level's endpoints (the platform's included)",
      default: false,
      exclusive: ['tenant', 'merchant'],
    }),
    live: Flags.boolean({ description: 'A live-mode event (default: sandbox/test mode)', default: false }),
  };

  async run(): Promise<ResentEvent> {
    const eventId = requireUuid(this.args.eventId, 'EVENTID');
    const endpointId = this.flags.endpoint === undefined ? undefined : requireUuid(this.flags.endpoint, '--endpoint');
    if (this.flags.tenant !== undefined) requireUuid(this.flags.tenant, '--tenant');
    if (this.flags.merchant !== undefined) requireUuid(this.flags.merchant, '--merchant');
    const rt = await this.runtime();
    const ctx = await this.scope();
    await this.checkMode(rt, eventId);
    const result = await resendEvent(ctx, eventId, { endpointId });

    this.log(
      renderRecord({
        eventId: result.eventId,
        type: result.type,
        tenant: result.tenantId ?? '',
        merchant: result.merchantId ?? '',
        mode: modeName(result.livemode),
        deliveriesQueued: result.deliveriesQueued,
      }),
    );
    if (result.deliveries.length) {
      this.log('');
      this.log(
        renderTable(result.deliveries, [
          { header: 'Delivery', get: (d) => d.id },
          { header: 'Endpoint', get: (d) => d.endpointId },
          { header: 'Status', get: (d) => d.status },
          { header: 'Due', get: (d) => d.nextAttemptAt ?? '' },
        ]),
      );
      this.log('\nA running dispatcher (serve, webhooks dispatch) sends them.');
    } else {
      this.log(`\nNo endpoint of this scope receives ${result.type} events now (enabled and subscribed): nothing was queued.`);
    }
    return result;
  }

  /** An event of the other mode is not found in this one: say so, with the flag that finds it. */
  private async checkMode(rt: Runtime, eventId: string): Promise<void> {
    const row = await rt.db.models.Event.findOne({ where: { id: eventId }, attributes: ['livemode'] });
    const livemode = row?.get('livemode') as boolean | undefined;
    if (livemode !== undefined && livemode !== this.flags.live) {
      throw new NotFoundError('event', eventId, {
        detail: `No ${modeName(this.flags.live)}-mode event with id ${eventId}.`,
        hint: livemode ? 'It is a live-mode event: pass --live.' : 'It is a test-mode event: leave out --live.',
      });
    }
  }
}
