import { Op } from 'sequelize';
import { BusinessRuleError, UnavailableError } from '../../domain/errors';
import type { CallerContext } from '../../domain/context';
import type { Runtime } from '../../runtime';
import type { EventRow } from '../../db/models';
import { runSandboxUntil } from '../payments';
import { createSession, getSession } from '../../services/checkout/sessions';
import { expireSession } from '../../services/checkout/expiry';
import { createBalanceThreshold, deleteBalanceThreshold } from '../../services/ledger/thresholds';
import { balancesOf } from '../../services/ledger/balances';
import { createCompany } from '../../services/organization/companies';
import { createMerchant } from '../../services/organization/merchants';
import { createSubmission, submitSubmission } from '../../services/kyb/submissions';
import { uploadDocument } from '../../services/kyb/documents';
import { operatorContext } from '../../services/access/operators';
import { completeCheckoutSession } from '../../services/checkout/completion';
import { cancelPayment, getPayment } from '../../services/payments/payments';
import { createRefund, getRefund } from '../../services/payments/refunds';
import { acceptDispute, getDispute, listDisputes, submitDispute, updateDispute } from '../../services/disputes/disputes';

/**
 * `events trigger` for the money path: instead of a sample, a real sandbox payment (and, for refund events, a real
 * refund; for dispute events, the dispute the acquirer opens on the dispute card's payment, then updated, won or
 * accepted) made through the services, so the event is the one production emits: checkout session → complete with a
 * sandbox test card → the acquirer's answers run in this process → capture, cancel or refund as the type needs.
 * Free of oclif: the command prints the result.
 */

interface Scenario {
  card: string;
  captureMethod: 'automatic' | 'manual';
  /** no payment: the session is left open, or expired */
  session?: 'open' | 'expire';
  /** a threshold on the pending balance just above it, crossed by the payment's capture (deleted after) */
  threshold?: true;
  /** after the payment's first answer */
  then?: 'cancel' | 'refund';
  /** once the dispute card's payment is disputed: update its evidence, submit winning evidence (won), or accept (lost) */
  dispute?: 'open' | 'update' | 'win' | 'accept';
  /** pay in a currency none of the tenant's active payin terminals takes: the payment finds no eligible terminal */
  unrouted?: true;
  /** pay the merchant's available balance more than the usual amount (its refund then takes that balance below zero) */
  aboveAvailable?: true;
}

const SUCCESS = '4242424242424242';
const DISPUTE_CARD = '4000000000000259';
const SCENARIOS: Record<string, Scenario> = {
  'payment.created': { card: SUCCESS, captureMethod: 'automatic' },
  'payment.processing': { card: SUCCESS, captureMethod: 'automatic' },
  'payment.succeeded': { card: SUCCESS, captureMethod: 'automatic' },
  'payment.captured': { card: SUCCESS, captureMethod: 'automatic' },
  'checkout.session.completed': { card: SUCCESS, captureMethod: 'automatic' },
  'payment.failed': { card: '4000000000000002', captureMethod: 'automatic' },
  'payment.requires_action': { card: '4000002760003184', captureMethod: 'automatic' },
  'payment.requires_capture': { card: SUCCESS, captureMethod: 'manual' },
  'payment.canceled': { card: SUCCESS, captureMethod: 'manual', then: 'cancel' },
  'refund.created': { card: SUCCESS, captureMethod: 'automatic', then: 'refund' },
  'refund.succeeded': { card: SUCCESS, captureMethod: 'automatic', then: 'refund' },
  'refund.failed': { card: '4000000000005126', captureMethod: 'automatic', then: 'refund' },
  // routing.alert (reason no_eligible_terminal): at most once per merchant per 15 minutes, as in production
  'routing.alert': { card: SUCCESS, captureMethod: 'automatic', unrouted: true },
  'checkout.session.created': { card: SUCCESS, captureMethod: 'automatic', session: 'open' },
  'checkout.session.expired': { card: SUCCESS, captureMethod: 'automatic', session: 'expire' },
  // a refund debits the available balance, while the payment's funds are still pending: the payment is of 25.00 plus
  // the merchant's available balance, so that its refund takes the balance below zero
  'balance.negative': { card: SUCCESS, captureMethod: 'automatic', then: 'refund', aboveAvailable: true },
  'balance.threshold_reached': { card: SUCCESS, captureMethod: 'automatic', threshold: true },
  // the sandbox's fraud dispute card: captured, then disputed by the acquirer after its delay
  'dispute.created': { card: DISPUTE_CARD, captureMethod: 'automatic', dispute: 'open' },
  'dispute.updated': { card: DISPUTE_CARD, captureMethod: 'automatic', dispute: 'update' },
  'dispute.won': { card: DISPUTE_CARD, captureMethod: 'automatic', dispute: 'win' },
  'dispute.lost': { card: DISPUTE_CARD, captureMethod: 'automatic', dispute: 'accept' },
};

/** Currencies tried, in order, for a payment no terminal takes (each one a sandbox checkout session accepts). */
const UNROUTED_CANDIDATES = ['GBP', 'CHF', 'SEK', 'NOK', 'DKK', 'PLN', 'CZK', 'JPY', 'CAD', 'AUD'];

/** A currency none of the tenant's active payin terminals lists (null: they take every candidate). */
async function unroutedCurrency(rt: Runtime, tenantId: string): Promise<string | null> {
  const terminals = await rt.db.models.Terminal.findAll({
    where: { tenantId, status: 'active', direction: 'payin' },
    attributes: ['supportedCurrencies'],
  });
  const taken = new Set(terminals.flatMap((t) => (t.get('supportedCurrencies') as string[] | null) ?? []));
  return UNROUTED_CANDIDATES.find((c) => !taken.has(c)) ?? null;
}

/** The currency the trigger pays in for a merchant: its default currency, else EUR. */
export async function merchantCurrency(rt: Runtime, merchantId: string): Promise<string> {
  const merchant = await rt.db.models.Merchant.findOne({ where: { id: merchantId }, attributes: ['defaultCurrency'] });
  return (merchant?.get('defaultCurrency') as string | null) ?? 'EUR';
}

/**
 * The currency the trigger pays in for the merchant, checked before anything is made: an active payin terminal of
 * the tenant takes it. Else EVENT_NOT_PRODUCED, and no payment is left behind.
 */
export async function payingCurrency(rt: Runtime, tenantId: string, merchantId: string): Promise<string> {
  const currency = await merchantCurrency(rt, merchantId);
  const terminals = await rt.db.models.Terminal.findAll({
    where: { tenantId, status: 'active', direction: 'payin' },
    attributes: ['supportedCurrencies'],
  });
  if (!terminals.some((t) => ((t.get('supportedCurrencies') as string[] | null) ?? []).includes(currency))) {
    throw new BusinessRuleError(
      'EVENT_NOT_PRODUCED',
      `No active payin terminal of tenant ${tenantId} takes ${currency}, the merchant's currency: a sandbox payment would fail. Nothing was made.`,
      {
        hint: `Check the tenant's terminals (payplane terminals list --tenant ${tenantId}).`,
      },
    );
  }
  return currency;
}

/** Whether `events trigger` drives a real sandbox payment for this type (else it emits a sample). */
export function drivesRealPayment(type: string): boolean {
  return type in SCENARIOS;
}

export interface EmittedEvent {
  id: string;
  type: string;
  createdAt: string;
  deliveriesQueued: number;
}

/** What every real `events trigger` reports: the event of the requested type and the deliveries queued for it. */
export interface TriggeredReal {
  /** the event of the requested type (the first one, when several were emitted) */
  eventId: string;
  type: string;
  tenantId: string;
  livemode: false;
  sample: false;
  deliveriesQueued: number;
  deliveries: { id: string; endpointId: string }[];
}

export interface TriggeredPayment extends TriggeredReal {
  merchantId: string;
  card: { brand: string | null; last4: string } | null;
  checkoutSessionId: string;
  /** null for the checkout.session events made without a payment */
  paymentId: string | null;
  paymentStatus: string | null;
  /** the balance threshold made (and deleted after) for balance.threshold_reached */
  thresholdId: string | null;
  refundId: string | null;
  refundStatus: string | null;
  /** the dispute of a dispute.* scenario */
  disputeId: string | null;
  disputeStatus: string | null;
  /** every event the payment, its session and its refunds emitted, oldest first */
  events: EmittedEvent[];
}

const AMOUNT_MINOR = 2500;
const ANSWER_WAIT_MS = 10_000;

/**
 * Drives the scenario of `type` for the merchant of `ctx` (a merchant-level context in test mode) and reports the
 * payment, the events it produced and the deliveries queued for the requested one.
 */
export async function triggerPaymentEvent(rt: Runtime, ctx: CallerContext, type: string): Promise<TriggeredPayment> {
  const scenario = SCENARIOS[type];
  if (!scenario) throw new Error(`no payment scenario for ${type}`);
  const startedAt = rt.clock.now();
  // a payment needs a terminal for the currency (checked first); a session alone, or a payment meant to find none, does not
  let currency =
    scenario.session || scenario.unrouted
      ? await merchantCurrency(rt, ctx.merchantId!)
      : await payingCurrency(rt, ctx.tenantId!, ctx.merchantId!);
  if (scenario.unrouted) {
    const unrouted = await unroutedCurrency(rt, ctx.tenantId!);
    if (!unrouted) {
      throw new BusinessRuleError(
        'EVENT_NOT_PRODUCED',
        `The tenant's terminals take every currency tried (${UNROUTED_CANDIDATES.join(', ')}): no payment of the sandbox would find no eligible terminal.`,
      );
    }
    currency = unrouted;
  }

  const available = scenario.aboveAvailable
    ? ((await balancesOf(ctx, { merchantId: ctx.merchantId!, currency }))[0]?.available.valueMinor ?? 0)
    : 0;
  const session = await createSession(ctx, {
    amount: { currency, valueMinor: AMOUNT_MINOR + Math.max(0, available) },
    captureMethod: scenario.captureMethod,
    merchantReference: `events trigger ${type}`,
    metadata: { triggeredBy: 'payplane events trigger', eventType: type },
  });
  if (scenario.session) {
    if (scenario.session === 'expire') await expireSession(ctx, session.id);
    return found(
      rt,
      ctx,
      type,
      await eventsOf(rt, ctx, startedAt, [session.id], null),
      {
        checkoutSessionId: session.id,
        paymentId: null,
        paymentStatus: null,
        refundId: null,
        refundStatus: null,
        thresholdId: null,
        disputeId: null,
        disputeStatus: null,
        card: null,
      },
      `Checkout session ${session.id} did not emit ${type}.`,
    );
  }
  let thresholdId: string | null = null;
  if (scenario.threshold) {
    const [balance] = await balancesOf(ctx, { merchantId: ctx.merchantId!, currency });
    const pending = balance?.pending.valueMinor ?? 0;
    thresholdId = (
      await createBalanceThreshold(ctx, { balanceType: 'pending', direction: 'above', amount: { currency, valueMinor: pending + 1 } })
    ).id;
  }
  try {
    return await paid(rt, ctx, type, scenario, session.id, startedAt, currency, thresholdId);
  } finally {
    if (thresholdId) await deleteBalanceThreshold(ctx, thresholdId);
  }
}

async function paid(
  rt: Runtime,
  ctx: CallerContext,
  type: string,
  scenario: Scenario,
  sessionId: string,
  startedAt: Date,
  currency: string,
  thresholdId: string | null,
): Promise<TriggeredPayment> {
  const session = { id: sessionId };
  const year = startedAt.getUTCFullYear() + 3;
  await completeCheckoutSession(ctx, session.id, {
    paymentMethod: {
      type: 'card',
      card: { number: scenario.card, expMonth: 12, expYear: year, cvc: '123', holderName: 'Sandbox Trigger' },
    },
  });
  const paymentId = (await getSession(ctx, session.id)).paymentId;
  if (!paymentId) throw new BusinessRuleError('EVENT_NOT_PRODUCED', `Checkout session ${session.id} has no payment.`);

  const status = async () => (await getPayment(ctx, paymentId)).status;
  const answered = await runSandboxUntil(rt, async () => (await status()) !== 'processing', ANSWER_WAIT_MS);
  if (!answered) {
    throw new UnavailableError(
      `Payment ${paymentId} is still processing: the sandbox acquirer did not answer in time.`,
      'SANDBOX_NO_ANSWER',
      {
        hint: `Check it later with: payplane payments get ${paymentId}`,
      },
    );
  }

  let refundId: string | null = null;
  let refundStatus: string | null = null;
  if (scenario.then === 'cancel' && (await status()) === 'requires_capture') {
    await cancelPayment(ctx, paymentId);
  }
  if (scenario.then === 'refund' && (await status()) === 'captured') {
    const refund = await createRefund(ctx, paymentId, { reason: `events trigger ${type}` });
    refundId = refund.id;
    const final = async () => (await getRefund(ctx, refund.id)).status !== 'pending';
    await runSandboxUntil(rt, final, ANSWER_WAIT_MS);
    refundStatus = (await getRefund(ctx, refund.id)).status;
  }

  let disputeId: string | null = null;
  let disputeStatus: string | null = null;
  if (scenario.dispute && (await status()) === 'captured') {
    const disputeOf = async () => (await listDisputes(ctx, { paymentId }, { limit: 1, sortOrder: 'desc' })).data[0];
    await runSandboxUntil(rt, async () => (await disputeOf()) !== undefined, ANSWER_WAIT_MS);
    const dispute = await disputeOf();
    if (dispute) {
      disputeId = dispute.id;
      const reason = `events trigger ${type}`;
      if (scenario.dispute === 'update') await updateDispute(ctx, dispute.id, { evidence: { productDescription: reason } });
      if (scenario.dispute === 'accept') await acceptDispute(ctx, dispute.id);
      if (scenario.dispute === 'win') {
        await submitDispute(ctx, dispute.id, { evidence: { uncategorizedText: `${reason}: winning_evidence` } });
        await runSandboxUntil(rt, async () => (await getDispute(ctx, dispute.id)).status === 'won', ANSWER_WAIT_MS);
      }
      disputeStatus = (await getDispute(ctx, dispute.id)).status;
    }
  }

  const payment = await getPayment(ctx, paymentId);
  const events = await eventsOf(
    rt,
    ctx,
    startedAt,
    [paymentId, session.id, ...(refundId ? [refundId] : []), ...(disputeId ? [disputeId] : [])],
    paymentId,
  );
  if (!events.some((e) => e.type === type)) {
    const why = payment.errorCode ? ` (${payment.errorCode}: ${payment.errorMessage ?? ''})` : '';
    if (scenario.unrouted && payment.errorCode === 'no_eligible_terminal') {
      throw new BusinessRuleError(
        'EVENT_NOT_PRODUCED',
        `The sandbox payment ${paymentId} in ${currency} found no eligible terminal, but routing.alert was already raised for merchant ${ctx.merchantId} in the last 15 minutes: it is raised at most once per cause per 15 minutes.`,
        { hint: 'Try again in 15 minutes, or with another --merchant.' },
      );
    }
    throw new BusinessRuleError(
      'EVENT_NOT_PRODUCED',
      `The sandbox payment ${paymentId} ended ${payment.status}${refundStatus ? ` with a ${refundStatus} refund` : ''}${disputeStatus ? ` with a ${disputeStatus} dispute` : ''}${why} and did not emit ${type}.`,
      {
        hint:
          type === 'balance.negative'
            ? "The merchant's available balance grew meanwhile and covered the refund (balance.negative is raised only when a debit leaves it below zero): try again."
            : "Check that the tenant has an active sandbox card terminal for the merchant's currency (payplane terminals list --tenant …).",
      },
    );
  }
  return found(
    rt,
    ctx,
    type,
    events,
    {
      checkoutSessionId: session.id,
      paymentId,
      paymentStatus: payment.status,
      refundId,
      refundStatus,
      thresholdId,
      disputeId,
      disputeStatus,
      card: { brand: payment.card?.brand ?? null, last4: scenario.card.slice(-4) },
    },
    `The sandbox payment ${paymentId} did not emit ${type}.`,
  );
}

/** The result around the first event of `type` among `events` (EVENT_NOT_PRODUCED with `missing` when there is none). */
async function found(
  rt: Runtime,
  ctx: CallerContext,
  type: string,
  events: EmittedEvent[],
  records: Pick<
    TriggeredPayment,
    | 'checkoutSessionId'
    | 'paymentId'
    | 'paymentStatus'
    | 'refundId'
    | 'refundStatus'
    | 'thresholdId'
    | 'disputeId'
    | 'disputeStatus'
    | 'card'
  >,
  missing: string,
): Promise<TriggeredPayment> {
  const wanted = events.find((e) => e.type === type);
  if (!wanted) throw new BusinessRuleError('EVENT_NOT_PRODUCED', missing);
  const deliveries = await deliveriesOf(rt, wanted.id);
  return {
    eventId: wanted.id,
    type,
    tenantId: ctx.tenantId!,
    merchantId: ctx.merchantId!,
    livemode: false,
    sample: false,
    ...records,
    deliveriesQueued: deliveries.length,
    deliveries,
    events,
  };
}

/** The events of the tenant since `since` whose object is one of `ids` (or belongs to the payment, or was caused by it), oldest first. */
export async function eventsOf(
  rt: Runtime,
  ctx: CallerContext,
  since: Date,
  ids: string[],
  paymentId: string | null,
): Promise<EmittedEvent[]> {
  const rows = await rt.db.models.Event.findAll({
    where: { tenantId: ctx.tenantId, livemode: false, createdAt: { [Op.gte]: since } },
    order: [
      ['createdAt', 'ASC'],
      ['id', 'ASC'],
    ],
  });
  const mine = rows
    .map((r) => r.get({ plain: true }) as EventRow)
    .filter(
      (e) =>
        ids.includes(e.data?.id as string) || (paymentId !== null && (e.data?.paymentId === paymentId || e.data?.sourceId === paymentId)),
    );
  const counts = new Map<string, number>();
  if (mine.length) {
    const deliveries = await rt.db.models.WebhookDelivery.findAll({
      where: { eventId: { [Op.in]: mine.map((e) => e.id) } },
      attributes: ['eventId'],
    });
    for (const d of deliveries) counts.set(d.get('eventId') as string, (counts.get(d.get('eventId') as string) ?? 0) + 1);
  }
  return mine.map((e) => ({
    id: e.id,
    type: e.type,
    createdAt: new Date(e.createdAt).toISOString(),
    deliveriesQueued: counts.get(e.id) ?? 0,
  }));
}

// ---------------------------------------------------------------------------------------------- organization

/** The types `events trigger` makes with real organization records (a tenant event each). */
const ORGANIZATION_TYPES = ['merchant.created', 'kyb.submitted'] as const;

export function drivesRealOrganization(type: string): type is (typeof ORGANIZATION_TYPES)[number] {
  return (ORGANIZATION_TYPES as readonly string[]).includes(type);
}

export interface TriggeredOrganization extends TriggeredReal {
  companyId: string;
  merchantId: string;
  kybSubmissionId: string | null;
  events: EmittedEvent[];
}

/** The smallest PDF the KYB upload accepts (its magic number and a line). */
const SANDBOX_PDF = Buffer.from('%PDF-1.7\n% payplane events trigger: a sandbox certificate of incorporation\n');

/**
 * merchant.created: a new sandbox merchant of a new sandbox company; kyb.submitted: the same, then its company's KYB
 * submitted (complete sample company data and a one-page PDF), waiting for an operator's review.
 */
export async function triggerOrganizationEvent(
  rt: Runtime,
  tenantCtx: CallerContext,
  type: (typeof ORGANIZATION_TYPES)[number],
): Promise<TriggeredOrganization> {
  const startedAt = rt.clock.now();
  const stamp = startedAt.toISOString().slice(0, 19).replace('T', ' ');
  // as the API makes them (POST /v1/admin/companies, POST /v1/admin/merchants)
  const company = await createCompany(tenantCtx, { name: `Events trigger company ${stamp}`, country: 'DE' });
  const merchant = await createMerchant(tenantCtx, { companyId: company.id, name: `Events trigger merchant ${stamp}` });
  let kybSubmissionId: string | null = null;
  if (type === 'kyb.submitted') {
    const ctx = operatorContext(rt, { level: 'merchant', tenantId: tenantCtx.tenantId!, merchantId: merchant.id, livemode: false });
    const draft = await createSubmission(ctx, {
      data: {
        legalName: `Events Trigger ${stamp} GmbH`,
        registrationNumber: 'HRB 00000',
        country: 'DE',
        incorporationDate: '2020-01-01',
        website: 'https://sandbox.example',
        registeredAddress: { line1: 'Sandboxstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
        owners: [{ name: 'Sandbox Owner', ownershipPercent: 100, nationality: 'DE' }],
      },
    });
    await uploadDocument(ctx, draft.id, {
      contentType: 'application/pdf',
      filename: 'certificate.pdf',
      bytes: SANDBOX_PDF,
      documentType: 'certificate_of_incorporation',
    });
    kybSubmissionId = (await submitSubmission(ctx, draft.id)).id;
  }
  const events = await eventsOf(rt, tenantCtx, startedAt, [merchant.id, company.id, ...(kybSubmissionId ? [kybSubmissionId] : [])], null);
  const wanted = events.find((e) => e.type === type);
  if (!wanted) throw new BusinessRuleError('EVENT_NOT_PRODUCED', `Merchant ${merchant.id} was made, but ${type} was not emitted.`);
  const deliveries = await deliveriesOf(rt, wanted.id);
  return {
    eventId: wanted.id,
    type,
    tenantId: tenantCtx.tenantId!,
    livemode: false,
    sample: false,
    companyId: company.id,
    merchantId: merchant.id,
    kybSubmissionId,
    deliveriesQueued: deliveries.length,
    deliveries,
    events,
  };
}

/** The deliveries queued for an event, one per subscribed endpoint. */
export async function deliveriesOf(rt: Runtime, eventId: string): Promise<{ id: string; endpointId: string }[]> {
  const rows = await rt.db.models.WebhookDelivery.findAll({ where: { eventId }, attributes: ['id', 'endpointId'], order: [['id', 'ASC']] });
  return rows.map((r) => ({ id: r.get('id') as string, endpointId: r.get('endpointId') as string }));
}
