import { BusinessRuleError, UnavailableError } from '../../../domain/errors';
import type { CallerContext } from '../../../domain/context';
import type { Runtime } from '../../../runtime';
import { runSandboxUntil } from '../answers';
import { createSession, getSession } from '../../checkout/sessions';
import { expireSession } from '../../checkout/expiry';
import { createBalanceThreshold, deleteBalanceThreshold } from '../../ledger/thresholds';
import { balancesOf } from '../../ledger/balances';
import { completeCheckoutSession } from '../../checkout/completion';
import { cancelPayment, getPayment } from '../../payments/payments';
import { createRefund, getRefund } from '../../payments/refunds';
import { acceptDispute, getDispute, listDisputes, submitDispute, updateDispute } from '../../disputes/disputes';
import { eventsOf, triggered, merchantCurrency, payingCurrency, type EmittedEvent, type TriggeredReal } from './events';

/**
 * `events trigger` for the money path: instead of a sample, a real sandbox payment (and, for refund events, a real
 * refund; for dispute events, the dispute the acquirer opens on the dispute card's payment, then updated, won or
 * accepted) made through the services, so the event is the one production emits: checkout session → complete with a
 * sandbox test card → the acquirer's answers run in this process → capture, cancel or refund as the type needs.
 * The command prints the result.
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

/** Whether `events trigger` drives a real sandbox payment for this type (else it emits a sample). */
export function drivesRealPayment(type: string): boolean {
  return type in SCENARIOS;
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
  return triggered(rt, ctx, type, events, records, () => new BusinessRuleError('EVENT_NOT_PRODUCED', missing));
}
