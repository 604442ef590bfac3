import { inTransaction, withTransaction, type CallerContext } from '../../domain/context';
import { processingContext } from '../../domain/authority';
import { BusinessRuleError, ConflictError, NotFoundError } from '../../domain/errors';
import { scoped } from '../../db/scoped';
import { summarizeCard, validateCard, type CardInput } from '../payments/cards';
import { decideWithSnapshot, loadRoutingSnapshot, type RoutingDecision, type RoutingSnapshot } from '../routing/decide';
import { alertNoEligibleTerminal } from '../routing/alerts';
import { newId } from '../../util/ids';
import { enforceEntityLimits, limitUsage } from '../limits/usage';
import { failPayment, paymentChanged, runAttempts, type PendingAttempt } from '../payments/engine';
import { evaluateRisk, type RiskDecision } from '../risk/engine';
import { emitFraudAlert } from '../risk/alerts';
import { normalizeIp, type RiskSubject } from '../risk/conditions';
import type { CheckoutSessionRow, IntegrationProfileRow, MerchantRow, PaymentRow } from '../../db/models';
import type { CardSummary } from '../payments/cards';
import type { Money } from '../../domain/money';
import { keyedEffect } from '../idempotency';
import { sessionRedirectUrl } from './hosted-page';
import { getSession, updateRow } from './sessions';
import type { CheckoutSession } from './record';

export interface CompleteSessionInput {
  paymentMethod: { type: 'card'; card: CardInput };
  customerInfo?: Record<string, unknown>;
  selectedFulfillment?: Record<string, unknown>;
  /** where the customer comes back after a 3DS challenge (the hosted page's status view); default the session's successUrl */
  returnUrl?: string;
}

/** The complete operation: the customer's choices applied, the session paid, and the session as its payment left it. */
export async function paySession(
  ctx: CallerContext,
  id: string,
  input: Pick<CompleteSessionInput, 'paymentMethod'> & PaymentChoices,
): Promise<CheckoutSession> {
  await prepareCompletion(ctx, id, { customerInfo: input.customerInfo, selectedFulfillment: input.selectedFulfillment });
  await completeCheckoutSession(ctx, id, { paymentMethod: input.paymentMethod });
  return getSession(ctx, id);
}

/** what the customer may still choose when paying */
interface PaymentChoices {
  customerInfo?: Record<string, unknown>;
  selectedFulfillment?: { fulfillmentOptionId: string };
}

/**
 * Before a payment: applies the customer's customerInfo and selectedFulfillment (in its own transaction) and
 * checks the session can be paid (open, within its deadline, no payment in flight). Returns the session row.
 */
async function prepareCompletion(ctx: CallerContext, id: string, input: PaymentChoices): Promise<CheckoutSessionRow | null> {
  // nothing to apply: the payment's own transaction checks the session (completeCheckoutSession)
  if (input.customerInfo === undefined && input.selectedFulfillment === undefined) return null;
  return inTransaction(ctx, (tx) =>
    updateRow(tx, id, { customerInfo: input.customerInfo, selectedFulfillment: input.selectedFulfillment }, 'body'),
  );
}

/**
 * Pays an open checkout session in the phases of a payment operation: validate (the card), load and lock (the session,
 * the request's Idempotency-Key, the merchant), decide (limits, routing, risk), record the intent (the payment,
 * processing, with payment.created and payment.processing, and its first attempt) and commit, then call the provider
 * and apply its answer (runAttempts). The card number never reaches the database in clear: the payment keeps brand,
 * last4, expiry and a keyed fingerprint; when another terminal may have to be tried (cascading), the card without its
 * cvc is kept sealed with the master key until the payment leaves processing.
 * Opens its own transactions (the operation is declared with ownTransactions); the first, which creates the payment,
 * marks the request's Idempotency-Key (keyedEffect), so that a retry after a crash answers instead of paying again.
 */
export async function completeCheckoutSession(ctx: CallerContext, sessionId: string, input: CompleteSessionInput): Promise<void> {
  const now = ctx.clock.now();
  const card = validate(ctx, input, now);
  const started = await inTransaction(ctx, async (tx) => {
    const locked = await loadAndLock(ctx, tx, sessionId, now);
    const decision = await decide(ctx, locked, card, input, now);
    return recordIntent(locked, decision, card, input.paymentMethod.card);
  });
  // call the provider and apply its answer: sent with no transaction open, applied in one of its own
  if (started.first) await runAttempts(withTransaction(started.pctx, undefined), started.first, input.paymentMethod.card);
}

/** Validate: the card as given (400 naming the field), summarized as the payment keeps it. */
function validate(ctx: CallerContext, input: CompleteSessionInput, now: Date): CardSummary {
  validateCard(input.paymentMethod.card, now, 'body.paymentMethod.card');
  return summarizeCard(ctx, input.paymentMethod.card);
}

/** What the payment is made in: the session (locked), its merchant, and the context that processes the payment. */
interface Locked {
  session: CheckoutSessionRow;
  merchant: MerchantRow;
  pctx: CallerContext;
}

/**
 * Load and lock: the session, payable (open, within its deadline, no payment in flight); the request's Idempotency-Key
 * marked; the merchant, able to take the payment.
 */
async function loadAndLock(ctx: CallerContext, tx: CallerContext, sessionId: string, now: Date): Promise<Locked> {
  if (ctx.checkoutSessionId && ctx.checkoutSessionId !== sessionId) throw new NotFoundError('checkout session', sessionId);
  const session = await scoped(tx, tx.db.models.CheckoutSession).get(sessionId, { lock: true });
  if (session.status === 'expired' || (session.status === 'open' && new Date(session.expiresAt).getTime() <= now.getTime())) {
    throw new ConflictError('CHECKOUT_SESSION_EXPIRED', `Checkout session ${sessionId} has expired.`);
  }
  if (session.status !== 'open')
    throw new ConflictError('CHECKOUT_SESSION_COMPLETE', `Checkout session ${sessionId} is ${session.status}: it was paid.`);
  if (session.paymentStatus === 'processing' || session.paymentStatus === 'requires_action') {
    throw new ConflictError(
      'CHECKOUT_PAYMENT_IN_FLIGHT',
      `A payment of checkout session ${sessionId} is ${session.paymentStatus}: wait for its outcome.`,
    );
  }
  // the payment commits with the mark of the request's Idempotency-Key: a retry after a crash answers with the session
  await keyedEffect(tx);
  const pctx = withTransaction(processingContext(tx, session.tenantId, session.livemode, ctx.actor), tx.transaction);
  const merchant = await scoped(pctx, pctx.db.models.Merchant).get(session.merchantId);
  if (merchant.status !== 'active')
    throw new BusinessRuleError('MERCHANT_NOT_ACTIVE', `Merchant ${merchant.id} is ${merchant.status}: it takes no payments.`);
  if (session.livemode && merchant.liveStatus !== 'approved') {
    throw new BusinessRuleError('MERCHANT_NOT_LIVE', `Merchant ${merchant.id} is not approved for live payments.`);
  }
  return { session, merchant, pctx };
}

/** What the decide phase settled: where the payment may go, whether risk lets it, what it is recorded with. */
interface Decision {
  amount: Money;
  channelId: string | null;
  profile: IntegrationProfileRow | null;
  returnUrl: string | null;
  routing: RoutingSnapshot;
  routed: RoutingDecision;
  risk: RiskDecision;
  /** what the risk engine identified the customer by, kept with the payment */
  identifiers: Pick<PaymentRow, 'riskDecision' | 'cardFingerprint' | 'customerEmail' | 'customerIp' | 'customerReference'>;
}

/** Decide: refused over a merchant or channel limit; the terminals routing picks; the risk decision. Nothing is written or sent. */
async function decide(
  ctx: CallerContext,
  { session, merchant, pctx }: Locked,
  card: CardSummary,
  input: CompleteSessionInput,
  now: Date,
): Promise<Decision> {
  const amount = { currency: session.currency, valueMinor: session.amountMinor };
  const channelId = session.channelId ?? null;
  const subject = { ...amount, paymentMethod: 'card', brand: card.brand };
  await enforceEntityLimits(pctx, { merchantId: merchant.id, channelId }, subject, now);
  const profile = await scoped(pctx, pctx.db.models.IntegrationProfile).findOne({ merchantId: merchant.id, mode: 'checkout' });
  // the provider sends the customer there after a challenge: {CHECKOUT_SESSION_ID} is filled in now
  const returnUrl = sessionRedirectUrl(input.returnUrl ?? session.successUrl ?? profile?.returnUrl ?? null, session.id);
  const routing = await loadRoutingSnapshot(pctx, merchant.id);
  const routed = await decideWithSnapshot(
    routing,
    {
      merchantId: merchant.id,
      channelId,
      amount,
      paymentMethod: 'card',
      brand: card.brand,
      cardCountry: card.country,
      transactionType: 'payment',
      at: now,
    },
    { usage: (limit, at) => limitUsage(pctx, limit, at) },
  );
  // routed first: a rule may count the payments routed to the same terminal
  const riskSubject = { ...riskSubjectOf(ctx, session, card, channelId), terminalId: routed.terminals[0] ?? null };
  // no moment given: the engine reads it once the payment's identifiers are locked (see evaluateRisk)
  const risk = await evaluateRisk(pctx, riskSubject);
  const identifiers = {
    riskDecision: risk as unknown as Record<string, unknown>,
    cardFingerprint: card.fingerprint,
    customerEmail: riskSubject.email,
    customerIp: riskSubject.ip,
    customerReference: riskSubject.customerReference,
  };
  return { amount, channelId, profile, returnUrl, routing, routed, risk, identifiers };
}

/**
 * Record the intent: the payment (processing) and its first attempt, to the first terminal routing picked, with
 * payment.created and payment.processing. A payment risk declines, or one no terminal can take, is recorded failed
 * and sent nowhere (first: null).
 */
async function recordIntent(
  { session, pctx }: Locked,
  decision: Decision,
  card: CardSummary,
  given: CardInput,
): Promise<{ pctx: CallerContext; first: PendingAttempt | null }> {
  const { amount, channelId, profile, returnUrl, routing, routed, risk, identifiers } = decision;
  if (risk.decision === 'decline') {
    // refused before any provider call: sent to no terminal
    const declined = await scoped(pctx, pctx.db.models.Payment).create({
      ...newPaymentFields(session, amount, card, channelId),
      ...identifiers,
      status: 'processing',
      terminalId: null,
      providerIntegrationId: null,
      routingDecision: null,
      cardVault: null,
      returnUrl,
    });
    const failed = await failUnsent(pctx, declined, 'RISK_DECLINED', 'The payment was declined.');
    await emitFraudAlert(pctx, failed, risk);
    return { pctx, first: null };
  }
  const mayCascade = Boolean(profile?.cascadingEnabled) && routed.terminals.length > 1;
  const { cvc: _cvc, ...vaulted } = given;
  void _cvc;
  const terminalId = routed.terminals[0] ?? null;
  // the terminal as routing read it in this transaction (an eligible terminal is one of the snapshot's)
  const terminal = terminalId ? (routing.terminals.get(terminalId) ?? null) : null;
  // the first attempt's id is known before either row is written: the payment names it from its INSERT on
  const attemptId = terminal ? newId() : null;
  const row = await scoped(pctx, pctx.db.models.Payment).create({
    ...newPaymentFields(session, amount, card, channelId),
    ...identifiers,
    status: 'processing',
    terminalId,
    providerIntegrationId: terminal?.providerIntegrationId ?? null,
    routingDecision: routed as unknown as Record<string, unknown>,
    returnUrl,
    cardVault: mayCascade ? pctx.sealer.seal(JSON.stringify(vaulted)) : null,
    currentAttemptId: attemptId,
  });
  await emitFraudAlert(pctx, row, risk);
  if (!terminal) {
    const failed = await failUnsent(
      pctx,
      row,
      'no_eligible_terminal',
      'No terminal of the tenant can take this payment (currency, brand, method, restrictions, limits or provider status).',
    );
    // the tenant hears of it (once per merchant per 15 minutes), in the transaction that records the failed payment
    await alertNoEligibleTerminal(pctx, failed, routed);
    return { pctx, first: null };
  }
  const attempt = await scoped(pctx, pctx.db.models.PaymentAttempt).create({
    id: attemptId!,
    tenantId: row.tenantId,
    merchantId: row.merchantId,
    livemode: row.livemode,
    paymentId: row.id,
    sequence: 1,
    terminalId: terminal.id,
    providerIntegrationId: terminal.providerIntegrationId,
    status: 'pending',
    providerReference: null,
    declineCode: null,
    message: null,
  });
  await paymentChanged(pctx, row, ['payment.created', 'payment.processing']);
  // what the call needs of the terminal, read here (configuration: kept between transactions, db/statements)
  const provider = routing.providers.get(terminal.providerIntegrationId);
  const binding = await scoped(pctx, pctx.db.models.CredentialBinding).get(terminal.credentialBindingId);
  const route = provider && { terminal, provider, binding };
  return { pctx, first: { paymentId: row.id, attemptId: attempt.id, written: { payment: row, attempt }, route } };
}

/** A payment that ends before any provider is asked: created, then failed with the reason. */
async function failUnsent(pctx: CallerContext, row: PaymentRow, errorCode: string, errorMessage: string): Promise<PaymentRow> {
  await paymentChanged(pctx, row, 'payment.created');
  return failPayment(pctx, row, { errorCode, errorMessage });
}

/** The fields every new payment of a session starts with. */
function newPaymentFields(session: CheckoutSessionRow, amount: Money, card: CardSummary, channelId: string | null) {
  return {
    tenantId: session.tenantId,
    merchantId: session.merchantId,
    livemode: session.livemode,
    checkoutSessionId: session.id,
    currency: amount.currency,
    amountMinor: amount.valueMinor,
    authorizedMinor: 0,
    capturedMinor: 0,
    refundedMinor: 0,
    refundPendingMinor: 0,
    feeMinor: 0,
    netMinor: 0,
    captureMethod: session.captureMethod,
    merchantReference: session.merchantReference,
    paymentMethodType: 'card',
    card,
    cardBrand: card.brand,
    channelId,
    partnerId: null,
    providerReference: null,
    providerStatus: null,
    action: null,
    errorCode: null,
    errorMessage: null,
    approved: null,
    threeDSResult: null,
    metadata: session.metadata ?? {},
    feeBreakdown: null,
    fundsAvailableImmediately: false,
    currentAttemptId: null,
  };
}

/**
 * The payment as the risk engine sees it. The customer's address: the request's when the customer pays with the
 * session's clientSecret (the customer cannot state one: checkout-sessions refuses ipAddress and customerReference
 * from a clientSecret), else the one the merchant states in customerInfo.ipAddress (a merchant server's own address
 * says nothing about the customer).
 */
export function riskSubjectOf(ctx: CallerContext, session: CheckoutSessionRow, card: CardSummary, channelId: string | null): RiskSubject {
  const info = (session.customerInfo ?? {}) as { email?: unknown; ipAddress?: unknown; customerReference?: unknown };
  const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null);
  // a customer paying with the session's secret is where the request comes from, whatever the session says
  const rawIp = ctx.credential === 'client_secret' ? (ctx.clientIp ?? null) : text(info.ipAddress);
  let ip: string | null;
  try {
    ip = rawIp ? normalizeIp(rawIp) : null;
  } catch {
    ip = null;
  }
  return {
    tenantId: session.tenantId,
    livemode: session.livemode,
    merchantId: session.merchantId,
    channelId,
    amount: { currency: session.currency, valueMinor: session.amountMinor },
    card: { fingerprint: card.fingerprint, bin: card.bin, brand: card.brand, country: card.country },
    email: text(info.email)?.toLowerCase() ?? null,
    ip,
    customerReference: text(info.customerReference),
    threeDSResult: null,
  };
}
