import type { Transaction } from 'sequelize';
import { inTransaction, type CallerContext } from '../../domain/context';
import { BusinessRuleError, ConflictError, InternalError, ValidationError } from '../../domain/errors';
import type { LineItem, PaymentRow, RefundRow } from '../../db/models';
import { scoped, type ListParams, type Page } from '../../db/scoped';
import type { ConnectorResult } from '../../connectors';
import { answerOrPending, lostAnswer, throughProvider, type ProviderOperation } from '../provider-call';
import { emitEvent } from '../webhooks/events';
import { auditRecord } from '../audit/changes';
import { resolveFees } from '../fees/schedules';
import { getProvider, supportsFeature } from '../processing/providers';
import { postRefund, postRefundReversal } from '../ledger/postings/refund';
import { mapPage } from '../present';
import { newId } from '../../util/ids';
import { contextForPayment } from './payments';
import { madeUnderKey, runIdempotent, type IdempotentCall, type IdempotentRequest } from '../idempotency';
import { refundableMinor, refundFor, toRefund, type Refund } from './records';
import { movePayment, moveRefund, PAYMENT_MACHINE, REFUND, REFUND_MACHINE, refundEvent } from './machines';
import { allows, refuseUnless } from '../status';
import { formatMinor, type Money } from '../../domain/money';

/**
 * Refunds: created pending against a captured payment (never beyond what is captured and not yet refunded or
 * pending, whatever the concurrency: the payment row is locked and its pending total moves with a compare-and-set),
 * sent to the provider after commit, and made final by the provider's answer: succeeded books the ledger and moves
 * the payment to refunded or partially_refunded (refund.succeeded, no payment event); failed releases the amount.
 */

export interface CreateRefundInput {
  amount?: Money;
  reason?: string;
  merchantReference?: string;
  items?: (Omit<LineItem, 'id'> & { id?: string })[];
  metadata?: Record<string, string>;
}

/**
 * A refund request as its Idempotency-Key knows it (runIdempotent), the same through the API (its operation
 * createRefund) and the CLI (`refunds create --idempotency-key`): either replays the other's refund. The refund calls
 * its provider between two transactions of its own; a retry after the refund committed (and its request died before
 * its answer was kept) is answered with that refund (resumeRefund), none is made again.
 */
export function refundRequest(
  paymentId: string,
  input: CreateRefundInput,
): IdempotentRequest & Pick<IdempotentCall<Refund, Refund>, 'resume'> {
  return {
    operation: 'createRefund',
    target: { id: paymentId },
    input,
    ownTransactions: true,
    resume: (ctx) => resumeRefund(ctx, paymentId),
  };
}

/**
 * Creates a pending refund and sends it (see makeRefund). With an Idempotency-Key, under runIdempotent's rule (the API
 * and the CLI run it there themselves, with refundRequest): the same key and request answer the first refund again,
 * another request under the key is 409 IDEMPOTENCY_KEY_REUSED.
 */
export async function createRefund(
  ctx: CallerContext,
  paymentId: string,
  input: CreateRefundInput,
  idempotencyKey?: string,
): Promise<Refund> {
  const call = { key: idempotencyKey, keyField: 'idempotencyKey', ...refundRequest(paymentId, input) };
  const outcome = await runIdempotent(ctx, call, (c) => makeRefund(c, paymentId, input));
  return outcome.replayed ? outcome.replay : outcome.result;
}

/**
 * A refund made: validated and decided against the payment, locked (what remains refundable, the provider's
 * features), recorded pending with the amount held on the payment (the intent, which commits), sent to the provider
 * with no transaction open, and the answer applied.
 */
export async function makeRefund(ctx: CallerContext, paymentId: string, input: CreateRefundInput): Promise<Refund> {
  const refundId = await throughProvider(
    ctx,
    refundOperation(async (tx) => {
      const payment = await scoped(tx, tx.db.models.Payment).get(paymentId, { lock: true });
      const amount = await decideRefund(tx, payment, input);
      return (await recordRefund(tx, payment, input, amount)).id;
    }),
  );
  return refundFor(ctx.level, await scoped(ctx, ctx.db.models.Refund).get(refundId));
}

/** The amount to refund, or the refusal: the payment's status (its machine), what remains refundable, the provider's features. */
async function decideRefund(tx: CallerContext, payment: PaymentRow, input: CreateRefundInput): Promise<number> {
  const paymentId = payment.id;
  refuseUnless(PAYMENT_MACHINE, payment, 'refund_part');
  if (input.amount && input.amount.currency !== payment.currency)
    throw ValidationError.field('body.amount.currency', `must be the payment's currency ${payment.currency}`);
  const remaining = refundableMinor(payment);
  // amounts in messages as the flags and the API take them: 20.00 EUR, never bare minor units
  const money = (valueMinor: number) => formatMinor({ currency: payment.currency, valueMinor });
  const amount = input.amount?.valueMinor ?? remaining;
  if (input.amount && amount <= 0) throw ValidationError.field('body.amount.valueMinor', 'must be positive');
  if ((amount > remaining || remaining <= 0) && payment.disputedMinor > 0 && amount <= remaining + payment.disputedMinor) {
    throw new ConflictError(
      'PAYMENT_DISPUTED',
      `Payment ${paymentId} is disputed: its open or lost disputes took ${money(payment.disputedMinor)}, so at most ${money(Math.max(remaining, 0))} remains refundable.`,
    );
  }
  if (amount > remaining || remaining <= 0) {
    throw new BusinessRuleError(
      'REFUND_EXCEEDS_REFUNDABLE',
      `Refund of ${money(amount)} exceeds what remains refundable (${money(Math.max(remaining, 0))}, pending refunds included).`,
    );
  }
  const provider = await getProvider(contextForPayment(tx, payment), payment.providerIntegrationId!);
  const earlier = await scoped(tx, tx.db.models.Refund).count({ paymentId, status: ['pending', 'succeeded'] });
  const captured = payment.capturedMinor;
  if (supportsFeature(provider, 'single_full_refund_only') && (earlier > 0 || amount !== captured)) {
    throw new BusinessRuleError(
      'SINGLE_FULL_REFUND_ONLY',
      "The payment's provider allows one full refund per payment and no partial or later refunds.",
    );
  }
  if (amount < captured && !supportsFeature(provider, 'partial_refund')) {
    throw new BusinessRuleError(
      'PARTIAL_REFUND_NOT_SUPPORTED',
      "The payment's provider does not support partial refunds: refund the whole amount.",
    );
  }
  if (earlier > 0 && !supportsFeature(provider, 'multiple_refunds')) {
    throw new BusinessRuleError('MULTIPLE_REFUNDS_NOT_SUPPORTED', "The payment's provider allows one refund per payment.");
  }
  return amount;
}

/** The intent: the amount held on the payment (compare-and-set), the refund created pending, refund.created. */
async function recordRefund(tx: CallerContext, payment: PaymentRow, input: CreateRefundInput, amount: number): Promise<RefundRow> {
  const held = await scoped(tx, tx.db.models.Payment).updateIf(
    payment,
    { refundPendingMinor: payment.refundPendingMinor, refundedMinor: payment.refundedMinor },
    { refundPendingMinor: payment.refundPendingMinor + amount },
  );
  if (!held) throw new ConflictError('PAYMENT_CHANGED', `Payment ${payment.id} changed meanwhile: try again.`);
  const pctx = contextForPayment(tx, payment);
  const refund = await scoped(pctx, pctx.db.models.Refund).create({
    tenantId: payment.tenantId,
    merchantId: payment.merchantId,
    livemode: payment.livemode,
    paymentId: payment.id,
    status: 'pending',
    currency: payment.currency,
    amountMinor: amount,
    reason: input.reason ?? null,
    merchantReference: input.merchantReference ?? null,
    statusReason: null,
    items: (input.items ?? []).map((item) => ({ ...item, id: item.id ?? newId() })),
    metadata: input.metadata ?? {},
    providerReference: null,
    feeBreakdown: null,
    idempotencyKey: null,
    idempotencyFingerprint: null,
  });
  await emitEvent(pctx, refundEvent('refund.created', refund));
  await auditRecord(pctx, REFUND, refund, 'refund.created', { after: toRefund(refund) });
  return refund;
}

/**
 * The answer of a refund request whose refund committed before its answer was kept (runIdempotent's resume): that
 * refund as it is now, sent to its provider first if it never was (providers take our reference once).
 */
export async function resumeRefund(ctx: CallerContext, paymentId: string): Promise<Refund> {
  const made = madeUnderKey();
  if (!made) throw new InternalError(`The refund of payment ${paymentId} that this Idempotency-Key made is not known.`);
  const refund = await scoped(ctx, ctx.db.models.Refund).get(made);
  if (refund.status === 'pending' && !refund.providerReference) await sendRefund(ctx, refund.id);
  return getRefund(ctx, refund.id);
}

/** A refund through the provider: recorded pending (the intent), sent with no transaction open, its answer applied after. */
function refundOperation(record: ProviderOperation<string, string>['record']): ProviderOperation<string, string> {
  return {
    name: 'refund',
    record,
    made: (refundId) => refundId,
    request: async (ctx, refundId) => {
      const refund = await scoped(ctx, ctx.db.models.Refund).get(refundId);
      const via = contextForPayment(ctx, refund);
      const payment = await scoped(via, via.db.models.Payment).get(refund.paymentId);
      return {
        via,
        terminalId: payment.terminalId!,
        operation: 'refund',
        request: {
          reference: refund.id,
          tenantId: refund.tenantId,
          livemode: refund.livemode,
          providerReference: payment.providerReference!,
          amount: { currency: refund.currency, valueMinor: refund.amountMinor },
        },
      };
    },
    apply: async (tx, refundId, answer) => {
      await applyRefundAnswer(
        contextForPayment(tx, await scoped(tx, tx.db.models.Refund).get(refundId)),
        refundId,
        answerOrPending(answer),
      );
      return refundId;
    },
  };
}

/** Sends a pending refund to the payment's provider (again, after a crash: providers take our reference once) and applies the answer. */
export async function sendRefund(pctx: CallerContext, refundId: string): Promise<void> {
  await throughProvider(pctx, refundOperation({ recorded: refundId }));
}

/**
 * Settles a refund whose answer was lost (pending with no provider reference past the stale period) by a look-up at
 * its acquirer by our reference (the refund id), never by sending it again: found, its answer is applied; unknown at
 * the acquirer, it fails (nothing refunded: the amount held on the payment is released, as for a refused refund); no
 * look-up offered, it waits for the acquirer's notification up to LOST_ANSWER_DEADLINE_MS after the refund, then fails
 * the same way. Returns whether the refund was settled (false: still waiting).
 */
export async function lookUpStalledRefund(pctx: CallerContext, refundId: string): Promise<boolean> {
  return throughProvider(pctx, {
    name: 'look-up of a refund',
    record: { recorded: refundId },
    request: async (ctx, id) => {
      const refund = await scoped(ctx, ctx.db.models.Refund).get(id);
      const via = contextForPayment(ctx, refund);
      const payment = await scoped(via, via.db.models.Payment).get(refund.paymentId);
      return {
        via,
        terminalId: payment.terminalId!,
        operation: 'lookup',
        request: {
          operation: 'refund',
          reference: refund.id,
          providerReference: payment.providerReference,
          tenantId: refund.tenantId,
          livemode: refund.livemode,
          amount: { currency: refund.currency, valueMinor: refund.amountMinor },
        },
      };
    },
    apply: async (tx, id, answer) => {
      const refund = await scoped(tx, tx.db.models.Refund).get(id);
      const result = lostAnswer(answer, refund.createdAt, tx.clock.now());
      if (result) {
        await applyRefundAnswer(contextForPayment(tx, refund), id, result);
        return true;
      }
      // still waiting: to the back of the recovery job's queue (its updatedAt), while it is still the same stalled refund
      await scoped(tx, tx.db.models.Refund).updateIf(refund, { status: 'pending', providerReference: null }, {});
      return false;
    },
  });
}

/** Applies the provider's answer to a pending refund (immediate or asynchronous); idempotent. */
export async function applyRefundResult(
  pctx: CallerContext,
  refundId: string,
  result: ConnectorResult,
  settle?: (transaction: Transaction) => Promise<void>,
): Promise<void> {
  await inTransaction(pctx, async (tx) => {
    await applyRefundAnswer(tx, refundId, result);
    // what the caller records of the answer's delivery commits with it (see handleProviderOutcome)
    if (settle) await settle(tx.transaction!);
  });
}

/** The provider's answer applied to a pending refund (its payment locked first); a final refund is not moved again. */
async function applyRefundAnswer(tx: CallerContext, refundId: string, result: ConnectorResult): Promise<void> {
  const refunds = scoped(tx, tx.db.models.Refund);
  const payments = scoped(tx, tx.db.models.Payment);
  const found = await refunds.get(refundId);
  const payment = await payments.get(found.paymentId, { lock: true });
  const refund = await refunds.get(refundId);
  if (refund.status === 'succeeded' && result.status === 'failed') return reverseRefund(tx, payment, refund, result);
  if (refund.status === 'failed' && !refund.providerReference && result.status === 'succeeded')
    return lateRefundSuccess(tx, payment, refund, result);
  if (!allows(REFUND_MACHINE, refund, 'succeed')) return;
  const providerReference = result.providerReference ?? refund.providerReference;
  if (result.status === 'pending' || result.status === 'requires_action') {
    await refunds.update(refund, { providerReference });
    return;
  }
  const amount = refund.amountMinor;
  const pendingAfter = payment.refundPendingMinor - amount;
  if (result.status !== 'succeeded') {
    const statusReason = result.message ?? result.declineCode ?? 'The provider refused the refund.';
    await moveRefund(tx, refund, 'fail', { providerReference, statusReason, providerDeclineCode: result.rawCode ?? null });
    await payments.update(payment, { refundPendingMinor: pendingAfter });
    return;
  }
  await bookRefund(tx, payment, refund, { providerReference, refundPendingMinor: pendingAfter }, 'succeed');
}

/**
 * Books a refund the acquirer made: its fee, its posting, the payment's refunded amount and move, the refund's move
 * (`succeed`, or `succeed_late` for a refund failed here for want of an answer and confirmed afterwards).
 */
async function bookRefund(
  tx: CallerContext,
  payment: PaymentRow,
  refund: RefundRow,
  changes: { providerReference: string | null; refundPendingMinor: number },
  move: 'succeed' | 'succeed_late',
): Promise<void> {
  const amount = refund.amountMinor;
  const fee = await resolveFees(tx, {
    type: 'refund',
    outcome: 'successful',
    amount: { currency: refund.currency, valueMinor: amount },
    method: payment.paymentMethodType,
    merchantId: payment.merchantId,
    terminalId: payment.terminalId,
    channelId: payment.channelId,
    partnerId: payment.partnerId,
    at: tx.clock.now(),
  });
  const charged = fee.merchantFee > 0 ? fee : null;
  await postRefund(tx, {
    tenantId: payment.tenantId,
    livemode: payment.livemode,
    merchantId: payment.merchantId,
    paymentId: payment.id,
    refundId: refund.id,
    providerIntegrationId: payment.providerIntegrationId!,
    partnerId: payment.partnerId,
    amount: { currency: refund.currency, valueMinor: amount },
    fee: charged,
  });
  const refunded = payment.refundedMinor + amount;
  await movePayment(tx, payment, refunded >= payment.capturedMinor ? 'refund_all' : 'refund_part', {
    refundPendingMinor: changes.refundPendingMinor,
    refundedMinor: refunded,
    feeMinor: payment.feeMinor + (charged?.merchantFee ?? 0),
  });
  await moveRefund(tx, refund, move, {
    providerReference: changes.providerReference,
    feeBreakdown: charged as unknown as Record<string, unknown> | null,
    ...(move === 'succeed_late' ? { statusReason: null } : {}),
  });
}

/**
 * The acquirer's confirmation of a refund failed here for want of any answer (no look-up offered, the deadline
 * passed; never one the acquirer itself answered, which keeps its provider reference): it refunded the cardholder, so
 * the refund is booked after all, unless the payment has no captured amount left to take it (then logged for an
 * operator, on the refund's statusReason: the acquirer refunded more than this platform holds as refundable).
 */
async function lateRefundSuccess(tx: CallerContext, payment: PaymentRow, refund: RefundRow, result: ConnectorResult): Promise<void> {
  if (
    payment.refundedMinor + payment.refundPendingMinor + refund.amountMinor > payment.capturedMinor ||
    !allows(PAYMENT_MACHINE, payment, 'refund_part')
  ) {
    await scoped(tx, tx.db.models.Refund).update(refund, {
      providerReference: result.providerReference ?? refund.providerReference,
      statusReason:
        'The acquirer confirmed this refund after it was failed for want of an answer, but the payment has nothing left to refund: an operator must settle it with the acquirer.',
    });
    return;
  }
  const providerReference = result.providerReference ?? refund.providerReference;
  await bookRefund(tx, payment, refund, { providerReference, refundPendingMinor: payment.refundPendingMinor }, 'succeed_late');
}

export async function listRefunds(ctx: CallerContext, paymentId: string, page: ListParams): Promise<Page<Refund>> {
  await scoped(ctx, ctx.db.models.Payment).get(paymentId);
  return mapPage(await scoped(ctx, ctx.db.models.Refund).list({ paymentId }, page), (row) => refundFor(ctx.level, row));
}

export async function getRefund(ctx: CallerContext, id: string): Promise<Refund> {
  return refundFor(ctx.level, await scoped(ctx, ctx.db.models.Refund).get(id));
}

/**
 * A succeeded refund the acquirer failed afterwards (Adyen's REFUND_FAILED after its REFUND: the scheme sent the money
 * back): the refund failed (refund.failed), its posting reversed (the amount and its fee back to the merchant's available
 * balance), the payment's refunded amount and fee reduced, its status back to partially_refunded or captured.
 */
async function reverseRefund(tx: CallerContext, payment: PaymentRow, refund: RefundRow, result: ConnectorResult): Promise<void> {
  const fee = (refund.feeBreakdown as { merchantFee?: number } | null)?.merchantFee ?? 0;
  const refunded = Math.max(0, payment.refundedMinor - refund.amountMinor);
  await postRefundReversal(tx, { livemode: payment.livemode, refundId: refund.id, paymentId: payment.id });
  await movePayment(tx, payment, refunded > 0 ? 'unrefund_part' : 'unrefund_all', {
    refundedMinor: refunded,
    feeMinor: Math.max(0, payment.feeMinor - fee),
  });
  const statusReason = result.message ?? result.declineCode ?? 'The provider failed the refund after it succeeded.';
  await moveRefund(tx, refund, 'reverse', { statusReason, providerDeclineCode: result.rawCode ?? null });
}
