import { inTransaction, type CallerContext } from '../../domain/context';
import { elevate } from '../../domain/authority';
import { PermissionError, ValidationError } from '../../domain/errors';
import { scoped } from '../../db/scoped';
import { newId } from '../../util/ids';
import { eventCatalog, type EventType } from './catalog';
import { TOTAL_NAMES } from '../settlements/rules';
import { emitEvent } from './events';
import { fundingAccountId, toWithdrawal } from '../withdrawals';
import type { WithdrawalRow, WithdrawalStatus } from '../../db/models/withdrawals';
import type { PayoutRow, PayoutStatus } from '../../db/models/payouts';
import { toPayout } from '../payouts/payouts';
import { dayStart } from '../settlements/open';

/**
 * Sample events for developers: a plausible record per event type, emitted through the real outbox so a
 * receiver gets exactly what it will get in production (signed, retried, rendered at its endpoint's level).
 * Sandbox (test mode) only.
 */

export interface SampleScope {
  tenantId: string;
  merchantId: string | null;
  now: Date;
}

type Data = Record<string, unknown>;

const CURRENCY = 'EUR';
const money = (valueMinor: number) => ({ currency: CURRENCY, valueMinor });
const action = (type: string) => type.slice(type.lastIndexOf('.') + 1);
const later = (now: Date, hours: number) => new Date(now.getTime() + hours * 3_600_000).toISOString();
const earlier = (now: Date, hours: number) => later(now, -hours);
const sampleReference = (prefix: string) => `${prefix}_sample_${newId().replace(/-/g, '').slice(-12)}`;

/** The fields only tenant and platform endpoints see (the merchant view drops them); shows the level rendering. */
function tenantView(amountMinor: number): Data {
  return {
    providerFee: money(Math.round(amountMinor * 0.012)),
    tenantFee: money(Math.round(amountMinor * 0.008)),
    platformFee: money(Math.round(amountMinor * 0.002)),
    providerReference: sampleReference('psp'),
    providerStatus: 'AUTHORISED',
    routing: { provider: 'sandbox-acquirer', rule: 'default', attempt: 1 },
    internal: { note: 'platform-only field: only platform endpoints receive it' },
  };
}

const PAYMENT_STATUS: Record<string, string> = {
  created: 'created',
  processing: 'processing',
  succeeded: 'succeeded',
  failed: 'failed',
  canceled: 'canceled',
  requires_action: 'requires_action',
  requires_capture: 'requires_capture',
  captured: 'succeeded',
};

function payment(type: string, s: SampleScope): Data {
  const status = PAYMENT_STATUS[action(type)] ?? 'created';
  const amount = 2500;
  return {
    id: newId(),
    object: 'payment',
    merchantId: s.merchantId,
    amount: money(amount),
    capturedAmount: money(['succeeded', 'captured'].includes(action(type)) ? amount : 0),
    status,
    description: 'Sample order #1001',
    paymentMethod: { type: 'card', brand: 'visa', last4: '4242' },
    ...(status === 'failed' ? { failureCode: 'card_declined', failureMessage: 'The card was declined.' } : {}),
    ...(status === 'requires_action' ? { nextAction: { type: 'redirect', url: 'https://checkout.example.test/3ds/sample' } } : {}),
    createdAt: earlier(s.now, 0.01),
    ...tenantView(amount),
  };
}

function refund(type: string, s: SampleScope): Data {
  const status = { created: 'pending', succeeded: 'succeeded', failed: 'failed' }[action(type)] ?? 'pending';
  return {
    id: newId(),
    object: 'refund',
    paymentId: newId(),
    merchantId: s.merchantId,
    amount: money(1000),
    status,
    reason: 'requested_by_customer',
    createdAt: earlier(s.now, 0.01),
    providerReference: sampleReference('psp_rf'),
    providerFee: money(0),
  };
}

function checkoutSession(type: string, s: SampleScope): Data {
  const status = { created: 'open', completed: 'complete', expired: 'expired' }[action(type)] ?? 'open';
  const id = newId();
  return {
    id,
    object: 'checkout.session',
    merchantId: s.merchantId,
    amount: money(4900),
    status,
    url: `https://checkout.example.test/c/${id}`,
    successUrl: 'https://shop.example.test/thanks',
    cancelUrl: 'https://shop.example.test/cart',
    paymentId: status === 'complete' ? newId() : null,
    expiresAt: later(s.now, 1),
    createdAt: earlier(s.now, 0.25),
  };
}

function dispute(type: string, s: SampleScope): Data {
  // as services/disputes/disputes.ts raises it: the dispute record (DisputeSchema renders it at the endpoint's level)
  // late_decision: the acquirer's decision (won) after the merchant accepted the dispute (lost)
  const late = action(type) === 'late_decision';
  const status =
    ({ created: 'needs_response', updated: 'under_review', won: 'won', lost: 'lost', late_decision: 'lost' } as const)[action(type)] ??
    'needs_response';
  const submitted = status !== 'needs_response' && !late;
  const closed = status === 'won' || status === 'lost';
  const fee = 1500;
  return {
    object: 'dispute',
    id: newId(),
    tenantId: s.tenantId,
    merchantId: s.merchantId,
    paymentId: newId(),
    livemode: false,
    amount: money(2500),
    fee: money(fee),
    feeBreakdown: {
      currency: CURRENCY,
      amount: 2500,
      providerFee: 0,
      tenantFee: fee,
      platformFee: 0,
      partnerCommission: 0,
      merchantFee: fee,
      net: 2500 - fee,
      reserve: 0,
    },
    reason: 'fraudulent',
    status,
    evidence: submitted ? { productDescription: 'Sample order #1001', uncategorizedText: 'Delivered and signed for.' } : {},
    evidenceDueBy: later(s.now, 24 * 7),
    submittedAt: submitted ? earlier(s.now, 0.5) : null,
    closedAt: closed ? s.now.toISOString() : null,
    closedReason: late ? 'accepted' : status === 'won' ? 'acquirer_won' : status === 'lost' ? 'acquirer_lost' : null,
    acquirerOutcome: late ? 'won' : closed ? status : null,
    acquirerDecidedAt: closed ? s.now.toISOString() : null,
    providerReference: sampleReference('psp_dp'),
    createdAt: earlier(s.now, 1),
    updatedAt: s.now.toISOString(),
  };
}

/** A sample payout in the shape of the real events (the real presenter over a made-up row, as the payouts job makes it). */
function payout(type: string, s: SampleScope): Data {
  const status: PayoutStatus =
    ({ created: 'pending', succeeded: 'paid', failed: 'failed' } as const)[action(type) as 'created' | 'succeeded' | 'failed'] ?? 'pending';
  const at = (hours: number) => new Date(s.now.getTime() - hours * 3_600_000);
  const row: PayoutRow = {
    id: newId(),
    tenantId: s.tenantId,
    merchantId: s.merchantId ?? newId(),
    livemode: false,
    currency: CURRENCY,
    amountMinor: 124_975,
    feeMinor: 25,
    feeBreakdown: {
      currency: CURRENCY,
      amount: 125_000,
      merchantFee: 25,
      tenantFee: 25,
      providerFee: 0,
      platformFee: 0,
      partnerCommission: 0,
      net: 124_975,
    },
    status,
    withdrawalMethodId: newId(),
    payoutChannelId: newId(),
    destinationType: 'bank_account',
    destinationSealed: '',
    destinationMasked: { iban: '••••••••••••••••••3000', accountHolderName: 'Sample Merchant GmbH' },
    periodKey: `daily:${s.now.toISOString().slice(0, 10)}`,
    submittedAt: status === 'pending' ? null : at(0),
    arrivalDate: status === 'paid' ? at(0) : null,
    failureReason: status === 'failed' ? 'The payout provider refused the payout: The destination account is closed.' : null,
    providerReference: status === 'paid' ? 'sbpo_sample000000000000000' : null,
    paidAt: status === 'paid' ? at(0) : null,
    failedAt: status === 'failed' ? at(0) : null,
    canceledAt: null,
    canceledBy: null,
    createdAt: at(0.01),
    updatedAt: at(0),
    deletedAt: null,
  };
  return { object: 'payout', ...toPayout(row) };
}

/** A sample statement in the shape of the real settlement.finalized (services/settlements/statements.ts). */
function settlement(_type: string, s: SampleScope): Data {
  const day = dayStart(s.now).getTime();
  const start = new Date(day - 86_400_000).toISOString();
  const end = new Date(day).toISOString();
  const id = newId();
  const balances = (pending: number, available: number) => ({
    pending: money(pending),
    available: money(available),
    reserved: money(0),
    payable: money(0),
  });
  const totals: Record<string, unknown> = Object.fromEntries(TOTAL_NAMES.map((name) => [name, money(0)]));
  Object.assign(totals, {
    gross: money(250_000),
    fees: money(4_250),
    net: money(245_750),
    feeBreakdown: { providerFee: money(3_000), tenantFee: money(1_000), platformFee: money(250), partnerCommission: money(0) },
  });
  return {
    object: 'settlement',
    id,
    tenantId: s.tenantId,
    merchantId: s.merchantId,
    livemode: false,
    currency: CURRENCY,
    periodStart: start,
    periodEnd: end,
    status: 'finalized',
    openingBalance: balances(0, 0),
    closingBalance: balances(245_750, 0),
    totals,
    lineCount: 6,
    finalizedAt: s.now.toISOString(),
    // a sample has no statement behind it: the path of where a real one is downloaded
    downloadUrl: `https://payplane.example/v1/settlements/${id}/download`,
    createdAt: start,
    updatedAt: s.now.toISOString(),
  };
}

/** A sample withdrawal in the shape of the real events (the real presenter over a made-up row). */
function withdrawal(type: string, s: SampleScope): Data {
  const move = action(type);
  const status: WithdrawalStatus = move === 'created' ? 'pending' : move === 'succeeded' ? 'completed' : (move as WithdrawalStatus);
  const at = (hours: number) => new Date(s.now.getTime() - hours * 3_600_000);
  const merchantId = s.merchantId ?? newId();
  const row: WithdrawalRow = {
    id: newId(),
    tenantId: s.tenantId,
    merchantId,
    livemode: false,
    entityType: 'merchant',
    fundingAccountId: fundingAccountId(merchantId, CURRENCY),
    withdrawalChannelId: newId(),
    withdrawalMethodId: newId(),
    currency: CURRENCY,
    amountMinor: 50_000,
    feeMinor: 50,
    feeBreakdown: {
      currency: CURRENCY,
      amount: 50_000,
      merchantFee: 50,
      tenantFee: 50,
      providerFee: 0,
      platformFee: 0,
      partnerCommission: 0,
    },
    destinationType: 'bank_account',
    destinationSealed: '',
    destinationMasked: { iban: '••••••••••••••••••3000', accountHolderName: 'Sample Merchant GmbH' },
    status,
    failureReason: status === 'failed' ? 'Sample failure: the bank returned the transfer' : null,
    rejectionReason: status === 'rejected' ? 'Sample rejection' : null,
    executionComment: null,
    providerReference: status === 'completed' ? 'SAMPLE-REF-0001' : null,
    idempotencyKey: 'sample',
    approvedAt: ['approved', 'completed', 'failed'].includes(status) ? at(1) : null,
    rejectedAt: status === 'rejected' ? at(0) : null,
    canceledAt: status === 'canceled' ? at(0) : null,
    executedAt: ['completed', 'failed'].includes(status) ? at(0.5) : null,
    completedAt: status === 'completed' ? at(0) : null,
    failedAt: status === 'failed' ? at(0) : null,
    createdBy: 'sample',
    approvedBy: null,
    rejectedBy: null,
    canceledBy: null,
    executedBy: null,
    completedBy: null,
    failedBy: null,
    createdAt: at(2),
    updatedAt: at(0),
    deletedAt: null,
  };
  return { object: 'withdrawal', ...toWithdrawal(row) };
}

function balance(type: string, s: SampleScope): Data {
  const base = { object: 'balance', merchantId: s.merchantId, currency: CURRENCY };
  if (action(type) === 'threshold_reached') {
    // as services/ledger/thresholds.ts raises it: the threshold record, the balance it watches, both balances
    const now = s.now.toISOString();
    const threshold = {
      id: newId(),
      tenantId: s.tenantId,
      merchantId: s.merchantId,
      livemode: false,
      currency: CURRENCY,
      balanceType: 'available',
      direction: 'above',
      amount: money(100_000),
      crossed: true,
      crossedAt: now,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    };
    return {
      ...base,
      balanceType: 'available',
      direction: 'above',
      threshold,
      balance: money(104_200),
      available: money(104_200),
      pending: money(0),
      sourceType: 'release',
      sourceId: newId(),
    };
  }
  // as services/ledger/postings/shared.ts raises it after a dispute (or a refund: reason refund, refundId) left the balance below zero
  if (action(type) === 'negative')
    return { ...base, available: money(-3_200), pending: money(0), reason: 'dispute', disputeId: newId(), paymentId: newId() };
  return { ...base, available: money(245_750), pending: money(12_000) };
}

function merchant(_type: string, s: SampleScope): Data {
  return {
    id: s.merchantId ?? newId(),
    object: 'merchant',
    tenantId: s.tenantId,
    name: 'Sample Merchant',
    status: 'pending',
    defaultCurrency: CURRENCY,
    createdAt: s.now.toISOString(),
  };
}

function kyb(_type: string, s: SampleScope): Data {
  return {
    id: newId(),
    object: 'kyb_case',
    merchantId: s.merchantId,
    companyId: newId(),
    status: 'submitted',
    documents: ['certificate_of_incorporation', 'proof_of_address'],
    submittedAt: s.now.toISOString(),
  };
}

function alert(type: string, s: SampleScope): Data {
  if (type.startsWith('fraud.')) {
    return {
      id: newId(),
      object: 'alert',
      kind: 'fraud',
      severity: 'high',
      merchantId: s.merchantId,
      paymentId: newId(),
      riskScore: 87,
      reason: 'velocity: 6 cards from one device within 10 minutes',
      createdAt: s.now.toISOString(),
    };
  }
  // routing.alert as src/services/routing/alerts.ts raises it: the terminal_declines shape (the other reason,
  // no_eligible_terminal, carries the payment's merchantId, paymentId, currency, amount, brand and candidates instead)
  const attempts = 24;
  const declines = 15;
  return {
    object: 'alert',
    kind: 'routing',
    severity: 'warning',
    reason: 'terminal_declines',
    terminalId: newId(),
    attempts,
    declines,
    counts: { attempts, declines },
    declineRate: Math.round((declines / attempts) * 1000) / 1000,
    windowMinutes: 15,
    createdAt: s.now.toISOString(),
  };
}

function webhook(type: string, s: SampleScope): Data {
  const endpointId = newId();
  if (action(type) === 'endpoint_disabled') {
    return {
      object: 'webhook_endpoint',
      endpointId,
      url: 'https://receiver.example.test/hook',
      status: 'disabled',
      disabledReason: 'deliveries failed for 3 days',
    };
  }
  return {
    object: 'webhook_delivery',
    deliveryId: newId(),
    endpointId,
    eventId: newId(),
    eventType: 'payment.succeeded',
    attemptCount: 10,
    lastError: 'HTTP 500',
    failedAt: s.now.toISOString(),
    merchantId: s.merchantId,
  };
}

const BY_GROUP: Record<string, (type: string, s: SampleScope) => Data> = {
  Payment: payment,
  Refund: refund,
  Checkout: checkoutSession,
  Dispute: dispute,
  Payout: payout,
  Settlement: settlement,
  Withdrawal: withdrawal,
  Balance: balance,
  Merchant: merchant,
  KYB: kyb,
  Alerts: alert,
  Webhook: webhook,
};

function catalogEntry(type: string): EventType | undefined {
  return eventCatalog().find((e) => e.type === type);
}

/** event.data of a sample event of the type (the full, platform representation), marked sample: true. */
export function sampleEventData(type: string, scope: SampleScope): Data {
  const entry = catalogEntry(type);
  const make = entry ? BY_GROUP[entry.group] : undefined;
  const data = make ? make(type, scope) : { id: newId(), object: type.split('.')[0], merchantId: scope.merchantId };
  return { ...data, sample: true };
}

export interface TriggerInput {
  type: string;
  /** required for merchant-level event types; optional for tenant-level ones */
  merchantId?: string | null;
}

export interface TriggeredEvent {
  eventId: string;
  type: string;
  level: EventType['level'];
  tenantId: string;
  merchantId: string | null;
  livemode: false;
  createdAt: string;
  /** deliveries written to the outbox for the subscribed endpoints; the dispatcher sends them */
  deliveriesQueued: number;
  deliveries: { id: string; endpointId: string }[];
  data: Data;
}

/**
 * Emits a sample event of the type for the caller's tenant (and merchant) through the real outbox. `ctx` is a
 * tenant-level context in test mode; live mode is refused.
 */
export async function triggerSampleEvent(ctx: CallerContext, input: TriggerInput): Promise<TriggeredEvent> {
  if (ctx.livemode) {
    throw new PermissionError('Sample events can only be triggered in sandbox (test) mode.', 'SANDBOX_ONLY', {
      hint: 'Leave out --live: sample events are emitted in test mode.',
    });
  }
  if (ctx.level === 'platform' || !ctx.tenantId) throw ValidationError.field('tenantId', 'a sample event needs a tenant');
  const entry = catalogEntry(input.type);
  if (!entry) {
    throw ValidationError.field('type', `"${input.type}" is not a known event type`, 'UNKNOWN_EVENT_TYPE');
  }
  const merchantId = input.merchantId ?? (ctx.level === 'merchant' ? ctx.merchantId : null);
  if (entry.level === 'merchant' && !merchantId) {
    throw ValidationError.field('merchantId', `${input.type} is a merchant event: name the merchant it is for`, 'MERCHANT_REQUIRED');
  }
  const tenantId = ctx.tenantId;
  return inTransaction(ctx, async (tx) => {
    await scoped(tx, tx.db.models.Tenant).get(tenantId);
    if (merchantId)
      await scoped(tx.level === 'merchant' ? elevate(tx, 'tenant', 'a merchant of the sample tenant') : tx, tx.db.models.Merchant).get(
        merchantId,
      );
    const data = sampleEventData(input.type, { tenantId, merchantId, now: tx.clock.now() });
    const event = await emitEvent(tx, { type: input.type, data, tenantId, merchantId, livemode: false });
    const rows = await tx.db.models.WebhookDelivery.findAll({
      where: { eventId: event.id },
      attributes: ['id', 'endpointId'],
      order: [['id', 'ASC']],
      transaction: tx.transaction,
    });
    const deliveries = rows.map((r) => ({ id: r.get('id') as string, endpointId: r.get('endpointId') as string }));
    return {
      eventId: event.id,
      type: event.type,
      level: entry.level,
      tenantId,
      merchantId,
      livemode: false,
      createdAt: new Date(event.createdAt).toISOString(),
      deliveriesQueued: deliveries.length,
      deliveries,
      data,
    };
  });
}
