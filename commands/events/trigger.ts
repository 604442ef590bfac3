import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { renderRecord, renderTable } from '../../src/cli/output';
import { PermissionError, ValidationError } from '../../src/domain/errors';
import type { Runtime } from '../../src/runtime';
import type { TriggeredEvent } from '../../src/services/webhooks/samples';
import { eventCatalog } from '../../src/services/webhooks/catalog';
import { triggerSampleEvent } from '../../src/services/webhooks/samples';
import { atSandboxTenant, ofMerchant, requireUuid, sandboxDefaults, withScope } from '../../src/cli/context';
import { type TriggeredPayment, drivesRealPayment, triggerPaymentEvent } from '../../src/services/sandbox/triggers/payments';
import {
  type TriggeredOrganization,
  drivesRealOrganization,
  triggerOrganizationEvent,
} from '../../src/services/sandbox/triggers/organization';
import {
  type TriggeredRelease,
  type TriggeredStatement,
  triggerBalanceAvailableEvent,
  triggerSettlementEvent,
} from '../../src/services/sandbox/triggers/past-day';
import {
  type TriggeredPayout,
  type TriggeredWithdrawal,
  drivesRealPayout,
  drivesRealWithdrawal,
  triggerPayoutEvent,
  triggerWithdrawalEvent,
} from '../../src/services/sandbox/triggers/payouts';
import { SANDBOX_FAILING_IBAN } from '../../src/connectors/sandbox-payout';

export default class EventsTrigger extends BaseCommand<typeof EventsTrigger> {
  static override summary =
    'Produce an event of a type in sandbox (test) mode, to test a webhook receiver: made by real sandbox records for every type but fraud.alert, webhook.* and dispute.late_decision (samples).';
  static override description = `REAL sandbox records, made through the same services as the API, for --merchant (the sandbox acquirer's answers run in this process):
- payment.*, checkout.session.completed: a checkout session completed with a sandbox test card: 4242… for created, processing, succeeded and captured; 4000000000000002 for failed; 4000002760003184 for requires_action (left waiting for its 3DS challenge); manual capture for requires_capture; manual capture then cancel for canceled.
- refund.*: a payment then a full refund (4000000000005126 for refund.failed).
- dispute.*: a payment with 4000000000000259 (captured, then disputed by the sandbox acquirer) for dispute.created; then its evidence updated for dispute.updated, winning evidence submitted for dispute.won (the acquirer decides after its delay), the dispute accepted for dispute.lost.
- checkout.session.created, checkout.session.expired: a checkout session, left open or expired.
- balance.negative (tenant event): a payment of 25.00 plus the merchant's available balance, refunded at once while its funds are still pending: the refund takes the available balance below zero.
- balance.threshold_reached: a threshold on the pending balance just above it, crossed by a payment's capture, then deleted.
- merchant.created, kyb.submitted (tenant events): a new sandbox company and merchant; for kyb.submitted its KYB submitted as well (sample company data and a one-page PDF), waiting for an operator's review.
- payout.created, payout.succeeded, payout.failed: a one-off run of the payouts job for --merchant: a sandbox payment whose funds are available at once (4000 0000 0000 0077) of 25.00 in the merchant's currency (plus what brings a negative available balance back to zero), which makes 25.00 less its fee available (24.40 EUR with the sandbox's fees on a balance that was not negative); then a payout of that much (its own payout fee taken from it) to a bank_account method the command saves for it on first use, as if saved one cooling period ago, so active at once: IBAN DE89 3704 0044 0532 0130 00, which the sandbox payout provider pays (payout.created, then payout.succeeded), or for payout.failed the sandbox's failing IBAN ${SANDBOX_FAILING_IBAN.replace(/(.{4})/g, '$1 ').trim()}, which it refuses as a closed account (any withdrawal or payout to it fails that way).
- withdrawal.*: the same funding payment, then a withdrawal of half of what it made available requested by the merchant to the method the payout trigger keeps (DE89 3704 0044 0532 0130 00), moved by two sandbox operators of the tenant (an approver and an executor, so maker-checker holds) as the type needs: approved; executed and completed (succeeded) or failed; rejected; or canceled by the merchant.
- settlement.finalized: a sandbox payment (4242…) made on a past UTC day (the injected clock set back to the most recent day, two days ago or earlier, on which the merchant has no finalized statement in its default currency), which opens that day's statement (its records, ledger entries and fee are of that day: this command delivers the sandbox acquirer's answer itself, with that day's clock); then the settlements job's own code finalizes the merchant's statements of past days (a running serve's settlements job may do it first: the command waits for the event, whoever raises it); the event carries the statement and the absolute URL of its CSV.
- routing.alert (tenant event): a payment in a currency none of the tenant's active terminals takes (no_eligible_terminal), at most once per merchant per 15 minutes, as in production: within them EVENT_NOT_PRODUCED.
- balance.available: a sandbox payment (4242…) made on a past UTC day beyond the holding period (the injected clock set back, to a day whose statement is still open), answered as for settlement.finalized; then the release job's own code moves what is due to available (that payment's funds, and any other release already due; a running serve's release job may move them first: the command waits for the event, whoever raises it).
It reports the records and every event they emitted, and says when no endpoint subscribes to the event (nothing queued). Beside a running serve: its jobs may do part of the work (the acquirer's answers, releases, statements); the command waits for the event whoever raises it. What would keep a payment from being made (no active payin terminal of the tenant takes the merchant's currency; the trigger's withdrawal method suspended) is checked before anything is made.

Samples (data.sample = true), where no real flow can run at once: fraud.alert (needs a risk rule of the tenant that declines), webhook.delivery_failed and webhook.endpoint_disabled (need a receiver that fails), dispute.late_decision (needs a dispute's evidence deadline to pass, then the acquirer's own decision at it), every other type is made by real records.

Either way the events are written in test mode with one delivery per subscribed endpoint of the tenant, the merchant and the platform; a running dispatcher (serve or webhooks dispatch) sends them, signed. Merchant event types need --merchant. Without --tenant the command acts for the saved sandbox (<home>/sandbox.json, written by \`serve\` on an empty database and by \`sandbox init\`): its tenant and merchant.`;
  static override examples = [
    '<%= config.bin %> events trigger payment.succeeded',
    '<%= config.bin %> events trigger payment.succeeded --tenant 6f1c… --merchant 0b9e…',
    '<%= config.bin %> events trigger refund.failed --tenant 6f1c… --merchant 0b9e… --json',
    '<%= config.bin %> events trigger merchant.created --tenant 6f1c… --json',
  ];
  static override args = { type: Args.string({ description: 'Event type, e.g. payment.succeeded', required: true }) };
  static override flags = {
    tenant: withScope(Flags.string({ description: "Tenant id (default: the saved sandbox's, <home>/sandbox.json)" }), atSandboxTenant),
    merchant: Flags.string({ description: "Merchant id, needed by merchant event types (default without --tenant: the saved sandbox's)" }),
    live: Flags.boolean({ description: 'Not allowed: sample events exist in sandbox (test) mode only', default: false, hidden: true }),
  };

  async run(): Promise<
    | TriggeredEvent
    | TriggeredPayment
    | TriggeredOrganization
    | TriggeredStatement
    | TriggeredPayout
    | TriggeredWithdrawal
    | TriggeredRelease
  > {
    if (this.flags.live) {
      throw new PermissionError('Sample events can only be triggered in sandbox (test) mode.', 'SANDBOX_ONLY', {
        hint: 'Leave out --live: sample events are emitted in test mode.',
      });
    }
    const catalog = eventCatalog();
    const entry = catalog.find((e) => e.type === this.args.type);
    if (!entry) {
      const prefix = this.args.type.split('.')[0];
      const near = catalog.filter((e) => e.type.startsWith(`${prefix}.`)).map((e) => e.type);
      throw new ValidationError(
        `Unknown event type "${this.args.type}".`,
        [{ path: 'TYPE', message: `"${this.args.type}" is not an event type` }],
        'UNKNOWN_EVENT_TYPE',
        {
          hint: near.length
            ? `Did you mean one of: ${near.join(', ')}?`
            : `Known groups: ${[...new Set(catalog.map((e) => e.type.split('.')[0]))].join(', ')}.`,
        },
      );
    }
    const rt = await this.runtime();
    const scope = await sandboxDefaults(rt, this.flags);
    const tenantId = requireUuid(scope.tenant, '--tenant');
    // the sandbox's merchant only where the event is a merchant's
    // (and for a tenant event made by a real payment: routing.alert, by a payment of the merchant no terminal takes)
    const needsMerchant = entry.level === 'merchant' || drivesRealPayment(entry.type);
    const merchantGiven = scope.fromSandbox ? (needsMerchant ? scope.merchant : this.flags.merchant) : scope.merchant;
    const merchantId = merchantGiven === undefined ? undefined : requireUuid(merchantGiven, '--merchant');
    if (needsMerchant && !merchantId) {
      throw new ValidationError(
        `${entry.type} ${entry.level === 'merchant' ? 'is a merchant event' : 'is made by a real payment of a merchant'}: name the merchant.`,
        [{ path: '--merchant', message: `is required for ${entry.type}` }],
        'MISSING_FLAG',
        {
          hint: 'Pass --merchant <id>.',
        },
      );
    }
    if (drivesRealPayment(entry.type)) return this.realPayment(rt, tenantId, merchantId!, entry.type);
    if (entry.type === 'settlement.finalized') return this.realStatement(rt, tenantId, merchantId!);
    if (entry.type === 'balance.available') {
      const result = await triggerBalanceAvailableEvent(rt, await ofMerchant(rt, await this.scope(), merchantId!));
      return this.report(result, { payment: `${result.paymentId} (paid ${result.paidAt})`, releasesMoved: result.released });
    }
    if (drivesRealPayout(entry.type)) return this.realPayout(rt, tenantId, merchantId!, entry.type);
    if (drivesRealWithdrawal(entry.type)) return this.realWithdrawal(rt, tenantId, merchantId!, entry.type);
    const ctx = await this.scope();
    if (drivesRealOrganization(entry.type)) {
      const result = await triggerOrganizationEvent(rt, ctx, entry.type);
      return this.report(result, { company: result.companyId, merchant: result.merchantId, kybSubmission: result.kybSubmissionId ?? '' });
    }
    const event = await triggerSampleEvent(ctx, { type: entry.type, merchantId });
    return this.report(event, { merchant: event.merchantId ?? '', sample: 'yes (data.sample = true)' });
  }

  /**
   * What every trigger prints, in one place: the event, the records that made it, the deliveries queued for it (or
   * that no endpoint subscribes to it, so nothing was queued), the other events the records emitted, and what to run next.
   */
  private report<
    R extends {
      eventId: string;
      type: string;
      tenantId: string;
      deliveriesQueued: number;
      deliveries: { id: string; endpointId: string }[];
    },
  >(
    result: R,
    records: Record<string, string | number>,
    more: { events?: { id: string; type: string; createdAt: string; deliveriesQueued: number }[]; next?: string } = {},
  ): R {
    this.log(
      renderRecord({
        eventId: result.eventId,
        type: result.type,
        tenant: result.tenantId,
        mode: 'test',
        ...records,
        deliveriesQueued: result.deliveriesQueued,
      }),
    );
    if (result.deliveries.length) {
      this.log('');
      this.log(
        renderTable(result.deliveries, [
          { header: 'Delivery', get: (d) => d.id },
          { header: 'Endpoint', get: (d) => d.endpointId },
        ]),
      );
    } else {
      this.log(`\nNo endpoint subscribes to this event (${result.type}) at the tenant, the merchant or the platform: nothing was queued.`);
    }
    if (more.events?.length) {
      this.log('');
      this.log(
        renderTable(more.events, [
          { header: 'Event', get: (e) => e.id },
          { header: 'Type', get: (e) => e.type },
          { header: 'Created', get: (e) => e.createdAt },
          { header: 'Deliveries', get: (e) => e.deliveriesQueued },
        ]),
      );
    }
    if (more.next) this.log(`\n${more.next}`);
    return result;
  }

  private async realStatement(rt: Runtime, tenantId: string, merchantId: string): Promise<TriggeredStatement> {
    const result = await triggerSettlementEvent(rt, await ofMerchant(rt, await this.scope(), merchantId));
    return this.report(
      result,
      {
        merchant: result.merchantId,
        statement: `${result.statementId} (${result.periodStart.slice(0, 10)}, ${result.currency})`,
        payment: result.paymentId,
        download: result.downloadUrl,
      },
      {
        next: `Download it with: ${this.config.bin} settlements download ${result.statementId} --tenant ${tenantId} --output statement.csv`,
      },
    );
  }

  private async realPayout(rt: Runtime, tenantId: string, merchantId: string, type: string): Promise<TriggeredPayout> {
    const ctx = await ofMerchant(rt, await this.scope(), merchantId);
    const result = await triggerPayoutEvent(rt, ctx, type);
    return this.report(
      result,
      {
        merchant: result.merchantId,
        payout: `${result.payoutId} (${result.payoutStatus})`,
        fundedBy: result.paymentId,
        withdrawalMethod: result.withdrawalMethodId,
      },
      { events: result.events, next: `Inspect it with: ${this.config.bin} payouts get ${result.payoutId}` },
    );
  }

  private async realWithdrawal(rt: Runtime, tenantId: string, merchantId: string, type: string): Promise<TriggeredWithdrawal> {
    const ctx = await ofMerchant(rt, await this.scope(), merchantId);
    const result = await triggerWithdrawalEvent(rt, ctx, type);
    return this.report(
      result,
      {
        merchant: result.merchantId,
        withdrawal: `${result.withdrawalId} (${result.withdrawalStatus})`,
        fundedBy: result.paymentId,
        withdrawalMethod: result.withdrawalMethodId,
      },
      { events: result.events, next: `Inspect it with: ${this.config.bin} withdrawals get ${result.withdrawalId}` },
    );
  }

  private async realPayment(rt: Runtime, tenantId: string, merchantId: string, type: string): Promise<TriggeredPayment> {
    const ctx = await ofMerchant(rt, await this.scope(), merchantId);
    const result = await triggerPaymentEvent(rt, ctx, type);
    return this.report(
      result,
      {
        merchant: result.merchantId,
        payment: result.paymentId ? `${result.paymentId} (${result.paymentStatus})` : '',
        card: result.card ? `${result.card.brand ?? ''} •••• ${result.card.last4}` : '',
        checkoutSession: result.checkoutSessionId,
        refund: result.refundId ? `${result.refundId} (${result.refundStatus})` : '',
        threshold: result.thresholdId ? `${result.thresholdId} (deleted after)` : '',
        dispute: result.disputeId ? `${result.disputeId} (${result.disputeStatus})` : '',
      },
      {
        events: result.events,
        next: result.disputeId
          ? `Inspect it with: ${this.config.bin} disputes get ${result.disputeId}`
          : result.paymentId
            ? `Inspect it with: ${this.config.bin} payments get ${result.paymentId}`
            : undefined,
      },
    );
  }
}
