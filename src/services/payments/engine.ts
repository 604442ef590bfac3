import { Op, type Transaction } from 'sequelize';
import { inTransaction, type CallerContext } from '../../domain/context';
import { activePartnerOf } from '../partners';
import type { IntegrationProfileRow, LateVoidStatus, PaymentAttemptRow, PaymentRow } from '../../db/models';
import { scoped } from '../../db/scoped';
import type { ConnectorResult } from '../../connectors';
import {
  answerOrPending,
  lostAnswer,
  throughProvider,
  type ProviderAnswer,
  type ProviderRequest,
  type TerminalRoute,
  type Unsent,
} from '../provider-call';
import { publicUrl } from '../../util/public-url';
import { emitEvent } from '../webhooks/events';
import { auditRecord } from '../audit/changes';
import { allows, transition } from '../status';
import { alertOnDecline } from '../routing/alerts';
import { resolveFees } from '../fees/schedules';
import { postCapture } from '../ledger/postings/capture';
import { recordSessionPayment } from '../checkout/payment-report';
import { DEFAULT_MAX_DECLINE_ATTEMPTS } from '../profiles';
import type { CardInput } from './cards';
import { capturesAutomatically, riskOf, toPayment } from './records';
import { ATTEMPT_MACHINE, LATE_VOID_MACHINE, movePayment, OPEN_ATTEMPT_STATUSES, OPEN_STATUSES, PAYMENT, paymentEvent } from './machines';

/**
 * A payment's attempts at its provider, shared by the checkout, the provider's asynchronous answers and recovery: each
 * answer moves the attempt and its payment through their machines (./machines.ts).
 *
 * Provider calls never run inside a database transaction: an attempt is committed first, the connector is called,
 * and its answer is applied in a new transaction that locks the payment and checks the attempt is still current,
 * so an answer that arrives twice (or late, after a cancel) changes nothing.
 */

/** Declines worth trying at another terminal unless the cascade policy says otherwise (soft declines, provider errors). */
const SOFT_DECLINES = ['card_declined', 'card_not_supported', 'processing_error', 'provider_unavailable', 'do_not_honor'];

/** An attempt to send to the provider once the transaction that created it has committed. */
export interface PendingAttempt {
  paymentId: string;
  attemptId: string;
  /** the payment and the attempt as the transaction that recorded them wrote them (no read of them again to send it) */
  written?: { payment: PaymentRow; attempt: PaymentAttemptRow };
  /** the attempt's terminal, provider and credentials as that transaction read them */
  route?: TerminalRoute;
}

// ---------------------------------------------------------------------------------------------- events

/**
 * Announces a payment just made (its moves announce themselves: movePayment): its events (data: the full record; each
 * endpoint sees its level's view), its audit entry (the last event's name), the session's mirror of it.
 */
export async function paymentChanged(tx: CallerContext, row: PaymentRow, event: string | string[]): Promise<void> {
  const events = Array.isArray(event) ? event : [event];
  for (const type of events) await emitEvent(tx, paymentEvent(type, row));
  await auditRecord(tx, PAYMENT, row, events[events.length - 1], { after: toPayment(row) });
  if (row.checkoutSessionId) await recordSessionPayment(tx, row.checkoutSessionId, { paymentId: row.id, paymentStatus: row.status });
}

// ---------------------------------------------------------------------------------------------- capture booking

/**
 * Books a capture of `amount`: the fee breakdown from the fee engine, the ledger posting, and the payment's
 * captured, fee and net amounts. Returns the changes for the payment row.
 */
export async function bookCapture(tx: CallerContext, row: PaymentRow, amount: number): Promise<Partial<PaymentRow>> {
  const partnerId = row.partnerId ?? (await activePartnerOf(tx, row.merchantId));
  const breakdown = await resolveFees(tx, {
    type: 'payment',
    outcome: 'successful',
    amount: { currency: row.currency, valueMinor: amount },
    method: row.paymentMethodType,
    merchantId: row.merchantId,
    terminalId: row.terminalId,
    channelId: row.channelId,
    partnerId,
    at: tx.clock.now(),
  });
  await postCapture(tx, {
    tenantId: row.tenantId,
    livemode: row.livemode,
    merchantId: row.merchantId,
    paymentId: row.id,
    providerIntegrationId: row.providerIntegrationId!,
    partnerId,
    breakdown,
    availableImmediately: row.fundsAvailableImmediately,
  });
  return {
    capturedMinor: amount,
    feeMinor: breakdown.merchantFee,
    netMinor: breakdown.net,
    partnerId,
    feeBreakdown: breakdown as unknown as Record<string, unknown>,
  };
}

// ---------------------------------------------------------------------------------------------- attempts

/**
 * Sends pending attempts to their providers one after the other (a decline may cascade to a next attempt), applying
 * each answer. `card` is the card as the customer gave it (with its cvc) for the first attempt; later attempts read
 * the sealed card of the payment.
 */
export async function runAttempts(pctx: CallerContext, first: PendingAttempt, card?: CardInput): Promise<void> {
  let next: PendingAttempt | null = first;
  let given = card;
  while (next) {
    const cardOfAttempt = given;
    given = undefined;
    // the attempt was recorded (committed) by whoever created it: sent with no transaction open, its answer applied after
    const applied: AppliedAttempt = await throughProvider(pctx, {
      name: 'payment attempt',
      record: { recorded: next },
      request: (ctx, pending) => attemptRequest(ctx, pending, cardOfAttempt),
      apply: (tx, pending, answer) => applyAttemptAnswer(tx, pending, answerOrPending(answer)),
    });
    next = await afterAttemptApplied(pctx, applied.pending, applied);
  }
}

/** The authorization of an attempt, with the card as the customer gave it or as the payment keeps it sealed. */
async function attemptRequest(pctx: CallerContext, pending: PendingAttempt, card?: CardInput): Promise<ProviderRequest | Unsent> {
  const payment = pending.written?.payment ?? (await scoped(pctx, pctx.db.models.Payment).get(pending.paymentId));
  const attempt = pending.written?.attempt ?? (await scoped(pctx, pctx.db.models.PaymentAttempt).get(pending.attemptId));
  const cardData = card ?? (payment.cardVault ? (JSON.parse(pctx.sealer.open(payment.cardVault)) as CardInput) : null);
  if (!cardData)
    return {
      unsent: {
        status: 'failed',
        providerReference: null,
        declineCode: 'processing_error',
        message: 'The card is no longer available for another attempt.',
      },
    };
  return {
    via: pctx,
    terminalId: attempt.terminalId,
    route: pending.route,
    operation: 'authorize',
    request: {
      reference: attempt.id,
      tenantId: payment.tenantId,
      livemode: payment.livemode,
      returnUrl: payment.returnUrl ?? undefined,
      // a real acquirer's 3DS page sends the customer back to our page, which reads the outcome and sends them on to returnUrl
      actionReturnUrl: publicUrl(pctx, `/provider-returns/${attempt.id}`),
      amount: { currency: payment.currency, valueMinor: payment.amountMinor },
      capture: capturesAutomatically(payment),
      forceThreeDsChallenge: riskOf(payment) === 'challenge',
      paymentMethod: { type: payment.paymentMethodType, card: cardData },
      metadata: payment.metadata,
    },
  };
}

function cascadeAllowed(profile: IntegrationProfileRow | null, attempts: number, result: ConnectorResult): boolean {
  if (!profile?.cascadingEnabled) return false;
  if (attempts >= (profile.maxDeclineAttempts ?? DEFAULT_MAX_DECLINE_ATTEMPTS)) return false;
  const code = result.declineCode ?? (result.status === 'failed' ? 'processing_error' : 'card_declined');
  const policy = (profile.cascadePolicy ?? {}) as { retryOn?: unknown; neverRetryOn?: unknown };
  const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : null);
  if (list(policy.neverRetryOn)?.includes(code)) return false;
  const retryOn = list(policy.retryOn);
  return retryOn ? retryOn.includes(code) : SOFT_DECLINES.includes(code);
}

/**
 * Applies a provider's answer to an attempt (immediate or asynchronous). Returns the next attempt to send when the
 * decline cascades. Idempotent: a final attempt, or one that is no longer the payment's current attempt, is not
 * applied again.
 */
export async function applyAttemptResult(
  pctx: CallerContext,
  pending: PendingAttempt,
  result: ConnectorResult,
  settle?: (transaction: Transaction) => Promise<void>,
): Promise<PendingAttempt | null> {
  const applied = await inTransaction(pctx, async (tx) => {
    const answer = await applyAttemptAnswer(tx, pending, result);
    // what the caller records of the answer's delivery commits with it (see handleProviderOutcome)
    if (settle) await settle(tx.transaction!);
    return answer;
  });
  return afterAttemptApplied(pctx, pending, applied);
}

interface AppliedAttempt {
  pending: PendingAttempt;
  /** the attempt to send next (a cascading decline) */
  next: PendingAttempt | null;
  /** an approval that arrived after the payment was canceled (or given up): its void recorded on the attempt, to send now */
  late: boolean;
}

/**
 * After the answer's transaction committed: a late approval's void (recorded with the answer) is sent at once, and
 * retried by the recovery job when it fails; the next attempt is returned.
 */
async function afterAttemptApplied(pctx: CallerContext, pending: PendingAttempt, applied: AppliedAttempt): Promise<PendingAttempt | null> {
  if (applied.late) await voidLateApproval(pctx, pending.attemptId);
  return applied.next;
}

/**
 * The answer applied: the provider's reference of a pending answer; else the attempt moved by the answer and, while it
 * is its payment's current attempt and the payment is open, the payment moved (requires_action, authorized, captured,
 * on to the next terminal, or failed).
 */
async function applyAttemptAnswer(tx: CallerContext, pending: PendingAttempt, result: ConnectorResult): Promise<AppliedAttempt> {
  if (result.status === 'pending') {
    await recordPendingAnswer(tx, pending, result);
    return { pending, next: null, late: false };
  }
  // load and lock: the payment first, as every answer locks it before its attempt (two transactions never wait for each other)
  const row = await scoped(tx, tx.db.models.Payment).get(pending.paymentId, { lock: true });
  const attempt = await scoped(tx, tx.db.models.PaymentAttempt).get(pending.attemptId);
  // an attempt answered for good is not moved again
  if (!allows(ATTEMPT_MACHINE, attempt, result.status)) return { pending, next: null, late: false };
  const answered = await transition(tx, ATTEMPT_MACHINE, attempt, result.status, {
    unaudited: true,
    changes: {
      providerReference: result.providerReference ?? attempt.providerReference,
      declineCode: result.declineCode ?? null,
      providerDeclineCode: result.rawCode ?? null,
      message: result.message ?? null,
    },
  });
  // a decline counts its terminal's recent attempts (one statement, on this path only): routing.alert past the threshold
  if (result.status === 'declined') await alertOnDecline(tx, answered);
  if (row.currentAttemptId !== attempt.id || !OPEN_STATUSES.includes(row.status)) {
    // an approval that arrives after the payment was canceled (or given up): the provider holds an authorization nobody
    // wants. Its void is recorded with the answer (durable: sent after commit, retried by the recovery job until confirmed)
    const late =
      result.status === 'succeeded' && (row.status === 'voided' || row.status === 'failed') && Boolean(answered.providerReference);
    if (late) {
      await transition(tx, LATE_VOID_MACHINE, answered, 'need', { unaudited: true, changes: { lateVoidNextAt: tx.clock.now() } });
    }
    return { pending, next: null, late };
  }
  return { pending, next: await movePaymentByAnswer(tx, row, result), late: false };
}

/**
 * A pending answer: the provider's reference only, each a compare-and-set (nothing read): the payment while this is
 * its current attempt and it is open (an attempt answered for good has moved its payment on), the attempt while it is
 * open. The payment first, as every answer locks it before its attempt.
 */
async function recordPendingAnswer(tx: CallerContext, pending: PendingAttempt, result: ConnectorResult): Promise<void> {
  const providerReference = result.providerReference ?? undefined;
  await scoped(tx, tx.db.models.Payment).updateIf(
    { id: pending.paymentId } as PaymentRow,
    { currentAttemptId: pending.attemptId, status: { [Op.in]: OPEN_STATUSES } },
    { providerReference, providerStatus: result.rawStatus ?? 'pending' },
  );
  await scoped(tx, tx.db.models.PaymentAttempt).updateIf(
    { id: pending.attemptId } as PaymentAttemptRow,
    { status: { [Op.in]: OPEN_ATTEMPT_STATUSES } },
    { providerReference },
  );
}

/** The payment moved by its current attempt's final answer; the next attempt to send when a decline cascades. */
async function movePaymentByAnswer(tx: CallerContext, row: PaymentRow, result: ConnectorResult): Promise<PendingAttempt | null> {
  const common: Partial<PaymentRow> = {
    providerReference: result.providerReference ?? row.providerReference,
    providerStatus: result.rawStatus ?? result.status,
    // the acquirer's own code beside ours (errorCode): tenants see it, merchants never (records.ts)
    providerDeclineCode: result.rawCode ?? null,
    threeDSResult: result.threeDSResult ?? row.threeDSResult,
  };
  if (result.status === 'requires_action') {
    await movePayment(tx, row, 'require_action', { ...common, action: result.action ?? null });
    return null;
  }
  if (result.status === 'succeeded') {
    await approve(tx, row, { ...common, fundsAvailableImmediately: Boolean(result.fundsAvailableImmediately) });
    return null;
  }
  // declined or failed: another terminal, or the end
  const next = await cascade(tx, row, result, common);
  if (next) return next;
  await failPayment(tx, row, {
    ...common,
    errorCode: result.declineCode ?? 'processing_error',
    errorMessage: result.message ?? declineMessage(result.declineCode),
  });
  return null;
}

/** A decline sent on to the next terminal of the payment's routing decision, when its profile's cascade allows it. */
async function cascade(
  tx: CallerContext,
  row: PaymentRow,
  result: ConnectorResult,
  common: Partial<PaymentRow>,
): Promise<PendingAttempt | null> {
  const attempts = scoped(tx, tx.db.models.PaymentAttempt);
  const profile = await scoped(tx, tx.db.models.IntegrationProfile).findOne({ merchantId: row.merchantId, mode: 'checkout' });
  const tried = await attempts.findAll({ paymentId: row.id });
  const triedTerminals = new Set(tried.map((a) => a.terminalId));
  const decision = row.routingDecision as { terminals?: string[] } | null;
  const nextTerminal = (decision?.terminals ?? []).find((t) => !triedTerminals.has(t));
  if (!nextTerminal || !cascadeAllowed(profile, tried.length, result)) return null;
  const terminal = await scoped(tx, tx.db.models.Terminal).get(nextTerminal);
  const next = await attempts.create({
    tenantId: row.tenantId,
    merchantId: row.merchantId,
    livemode: row.livemode,
    paymentId: row.id,
    sequence: tried.length + 1,
    terminalId: terminal.id,
    providerIntegrationId: terminal.providerIntegrationId,
    status: 'pending',
    providerReference: null,
    declineCode: null,
    message: null,
  });
  await movePayment(tx, row, 'cascade', {
    ...common,
    action: null,
    currentAttemptId: next.id,
    terminalId: terminal.id,
    providerIntegrationId: terminal.providerIntegrationId,
    providerReference: null,
  });
  return { paymentId: row.id, attemptId: next.id };
}

// ---------------------------------------------------------------------------------------------- late voids

/** How many times a late approval's void is sent before it is given up (the reason kept, the recovery job logs it). */
export const LATE_VOID_MAX_TRIES = 5;
/** The wait before a late void's next try: one minute, doubled after each try. */
const LATE_VOID_BACKOFF_MS = 60_000;
/** How long a void the provider accepted for later waits for its notification before it is asked again. */
const LATE_VOID_NOTIFICATION_WAIT_MS = 24 * 60 * 60_000;

/** A late void after one try: done, pending (still to confirm: sent again when due), failed (given up), and why not done. */
export interface LateVoidOutcome {
  status: LateVoidStatus;
  error?: string;
}

/**
 * Sends the void of a late approval recorded on `attemptId` (lateVoidStatus pending), when due: the try is claimed
 * first (its count, and the next try's time as its lease: one process sends it), the void sent with the attempt's id as
 * its reference (the acquirer answers a repeat with its first answer), and its answer recorded. Never throws: a failure
 * is recorded on the attempt, retried by the recovery job with backoff, given up after LATE_VOID_MAX_TRIES. Returns
 * null when there was nothing (due) to send.
 */
export async function voidLateApproval(pctx: CallerContext, attemptId: string): Promise<LateVoidOutcome | null> {
  const now = pctx.clock.now();
  const claimed = await inTransaction(pctx, async (tx) => {
    const attempts = scoped(tx, tx.db.models.PaymentAttempt);
    const attempt = await attempts.find(attemptId, { lock: true });
    if (!attempt || attempt.lateVoidStatus !== 'pending' || !attempt.providerReference) return null;
    if (attempt.lateVoidNextAt && new Date(attempt.lateVoidNextAt).getTime() > now.getTime()) return null;
    const tries = (attempt.lateVoidTries ?? 0) + 1;
    const lateVoidNextAt = new Date(now.getTime() + LATE_VOID_BACKOFF_MS * 2 ** (tries - 1));
    return attempts.updateIf(
      attempt,
      { lateVoidStatus: 'pending', lateVoidTries: attempt.lateVoidTries ?? 0 },
      { lateVoidTries: tries, lateVoidNextAt },
    );
  });
  if (!claimed) return null;
  try {
    return await throughProvider(pctx, {
      name: 'void of a late approval',
      record: { recorded: claimed },
      request: async (ctx, attempt) => ({
        via: ctx,
        terminalId: attempt.terminalId,
        operation: 'void',
        request: { reference: attempt.id, providerReference: attempt.providerReference! },
      }),
      apply: (tx, attempt, answer) => recordLateVoid(tx, attempt.id, lateVoidAnswer(answer)),
    });
  } catch (error) {
    // the call could not even start (the terminal's credentials unreadable …): a failed try like any other
    const message = error instanceof Error ? error.message : String(error);
    return inTransaction(pctx, (tx) => recordLateVoid(tx, attemptId, { error: `the void could not be sent: ${message}` }));
  }
}

/** A late void's answer: confirmed, accepted for later (its notification confirms it), or why it did not happen. */
export type LateVoidAnswer = { status: 'succeeded' | 'pending' } | { status?: undefined; error: string };

function lateVoidAnswer(answer: ProviderAnswer): LateVoidAnswer {
  if (answer.unreachable) return { error: `the provider could not be reached: ${answer.unreachable.message}` };
  return lateVoidResult(answer.result);
}

/** A void's answer (or its notification's result) as a late void takes it. */
export function lateVoidResult(result: ConnectorResult): LateVoidAnswer {
  if (result.status === 'succeeded' || result.status === 'pending') return { status: result.status };
  const code = [result.declineCode, result.rawCode].filter(Boolean).join(' / ');
  return { error: `the provider refused the void${code ? ` (${code})` : ''}${result.message ? `: ${result.message}` : ''}` };
}

/**
 * Records a late void's answer on its attempt (locked), while its void is pending: done when confirmed; a void
 * accepted for later waits for its notification (asked again after a day); a failure is kept, and after the last try
 * the void is given up (failed, with its reason). Also applies a void notification (handleProviderOutcome).
 */
export async function recordLateVoid(tx: CallerContext, attemptId: string, answer: LateVoidAnswer): Promise<LateVoidOutcome | null> {
  const attempts = scoped(tx, tx.db.models.PaymentAttempt);
  const attempt = await attempts.find(attemptId, { lock: true });
  if (!attempt || attempt.lateVoidStatus !== 'pending') return null;
  if (answer.status === 'succeeded') {
    await transition(tx, LATE_VOID_MACHINE, attempt, 'confirm', {
      unaudited: true,
      changes: { lateVoidNextAt: null, lateVoidError: null },
    });
    return { status: 'done' };
  }
  if (answer.status === 'pending') {
    const lateVoidNextAt = new Date(tx.clock.now().getTime() + LATE_VOID_NOTIFICATION_WAIT_MS);
    await attempts.update(attempt, { lateVoidNextAt, lateVoidError: null });
    return { status: 'pending' };
  }
  const { error } = answer as { error: string };
  if ((attempt.lateVoidTries ?? 0) >= LATE_VOID_MAX_TRIES) {
    const lateVoidError = `given up after ${attempt.lateVoidTries} tries: ${error}`;
    await transition(tx, LATE_VOID_MACHINE, attempt, 'give_up', { unaudited: true, changes: { lateVoidNextAt: null, lateVoidError } });
    return { status: 'failed', error: lateVoidError };
  }
  await attempts.update(attempt, { lateVoidError: error });
  return { status: 'pending', error };
}

// ---------------------------------------------------------------------------------------------- lost answers

/**
 * Settles an attempt whose answer was lost (pending with no provider reference past the stale period: a timeout, a 5xx,
 * a process that died between the call and its record) by a look-up at its acquirer by our reference, never by
 * sending the card again: found, its answer is applied as the attempt's (an approval, a decline that may cascade, a
 * reference still pending there); unknown at the acquirer (it never got it), it fails as provider_unavailable (a soft
 * decline: the cascade may send the payment to another terminal, not a second authorization at the same acquirer);
 * no look-up offered, it waits for the acquirer's notification up to LOST_ANSWER_DEADLINE_MS after the attempt, then
 * fails the same way (a late approval is then voided). Returns whether the attempt was settled (false: still waiting).
 */
export async function lookUpStalledAttempt(pctx: CallerContext, attempt: Pick<PaymentAttemptRow, 'id' | 'paymentId'>): Promise<boolean> {
  const pending: PendingAttempt = { paymentId: attempt.paymentId, attemptId: attempt.id };
  const applied = await throughProvider<PendingAttempt, AppliedAttempt | null>(pctx, {
    name: 'look-up of a payment attempt',
    record: { recorded: pending },
    request: async (ctx) => {
      const payment = await scoped(ctx, ctx.db.models.Payment).get(attempt.paymentId);
      const row = await scoped(ctx, ctx.db.models.PaymentAttempt).get(attempt.id);
      return {
        via: ctx,
        terminalId: row.terminalId,
        operation: 'lookup',
        request: {
          operation: 'authorize',
          reference: row.id,
          providerReference: null,
          tenantId: payment.tenantId,
          livemode: payment.livemode,
          amount: { currency: payment.currency, valueMinor: payment.amountMinor },
        },
      };
    },
    apply: async (tx, p, answer) => {
      const row = await scoped(tx, tx.db.models.PaymentAttempt).get(p.attemptId);
      const result = lostAnswer(answer, row.createdAt, tx.clock.now());
      if (result) return applyAttemptAnswer(tx, p, result);
      // still waiting: to the back of the recovery job's queue (its updatedAt), while it is still the same stalled attempt
      await scoped(tx, tx.db.models.PaymentAttempt).updateIf(row, { status: 'pending', providerReference: null }, {});
      return null;
    },
  });
  if (!applied) return false;
  const next = await afterAttemptApplied(pctx, pending, applied);
  if (next) await runAttempts(pctx, next);
  return true;
}

function declineMessage(code: string | undefined): string {
  switch (code) {
    case 'insufficient_funds':
      return 'The card has insufficient funds.';
    case 'lost_card':
      return 'The card was reported lost.';
    case 'stolen_card':
      return 'The card was reported stolen.';
    case 'expired_card':
      return 'The card has expired.';
    case 'incorrect_cvc':
      return "The card's security code is incorrect.";
    case 'card_not_supported':
      return 'The card is not supported.';
    case 'authentication_failed':
      return '3-D Secure authentication failed.';
    case 'processing_error':
      return 'The provider could not process the card.';
    default:
      return 'The card was declined.';
  }
}

async function approve(tx: CallerContext, row: PaymentRow, changes: Partial<PaymentRow>): Promise<void> {
  const amount = row.amountMinor;
  const base = { ...changes, approved: true, authorizedMinor: amount, action: null, cardVault: null, errorCode: null, errorMessage: null };
  // manual capture, or held for review by the risk engine: the authorization waits for a capture or a cancel
  if (!capturesAutomatically(row)) {
    await movePayment(tx, row, 'authorize', base);
    return;
  }
  const booked = await bookCapture(tx, { ...row, ...base } as PaymentRow, amount);
  await movePayment(tx, row, 'authorize_and_capture', { ...base, ...booked });
}

/** Ends a payment as failed (no provider will take it). */
export async function failPayment(tx: CallerContext, row: PaymentRow, changes: Partial<PaymentRow>): Promise<PaymentRow> {
  return movePayment(tx, row, 'fail', { ...changes, approved: false, action: null, cardVault: null });
}

export type { PaymentAttemptRow };
