import type { Transaction } from 'sequelize';
import { inTransaction, type CallerContext } from '../../domain/context';
import { BusinessRuleError, ConflictError, ValidationError } from '../../domain/errors';
import type { LineItem, RefundRow } from '../../db/models';
import { scoped, type ListParams, type Page } from '../../db/scoped';
import type { ConnectorResult } from '../../connectors';
import { answerOrPending, settled, throughProvider, type ProviderOperation } from '../provider-call';
import { emitEvent } from '../webhooks/events';
import { recordAudit } from '../audit/entries';
import { resolveFees } from '../fees/schedules';
import { getProvider, supportsFeature } from '../processing/providers';
import { postRefund } from '../ledger/postings/refund';
import { mapPage } from '../present';
import { newId } from '../../util/ids';
import { contextForPayment } from './payments';
import { keptKey, type IdempotentRequest } from '../idempotency';
import { refundableMinor, refundFor, toRefund, type Refund } from './records';
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

async function refundEvent(tx: CallerContext, row: RefundRow, type: string, before?: RefundRow): Promise<void> {
  const data = toRefund(row) as unknown as Record<string, unknown>;
  await emitEvent(tx, { type, data, tenantId: row.tenantId, merchantId: row.merchantId, livemode: row.livemode });
  await recordAudit(tx, {
    action: type, targetType: 'refund', targetId: row.id, tenantId: row.tenantId, merchantId: row.merchantId, livemode: row.livemode,
    before: before ? { status: before.status } : undefined, after: { status: row.status, amount: data.amount },
  });
}

/**
 * A refund request as its Idempotency-Key knows it (runIdempotent), the same through the API (its operation
 * createRefund) and the CLI (`refunds create --idempotency-key`): either replays the other's refund. The refund calls
 * its provider between two transactions of its own.
 */
export function refundRequest(paymentId: string, input: CreateRefundInput): IdempotentRequest {
  return { operation: 'createRefund', target: { id: paymentId }, input, ownTransactions: true };
}

/**
 * Creates a pending refund and sends it. With the caller's Idempotency-Key (the API's and the CLI's run it through
 * runIdempotent with refundRequest), the refund keeps the key (keptKey): it commits before runIdempotent keeps the
 * answer, so a refund that an earlier request with the key committed (and then died, or failed, before its answer was
 * kept) is answered again, and sent if it never was, instead of being made twice; another request with the key is
 * 409 IDEMPOTENCY_KEY_REUSED. A unique index (payment, key) is the last line of defence.
 */
export async function createRefund(ctx: CallerContext, paymentId: string, input: CreateRefundInput, idempotencyKey?: string): Promise<Refund> {
  const kept = idempotencyKey === undefined ? null : keptKey(ctx, 'refund', idempotencyKey, input);
  const refundId = await throughProvider(ctx, refundOperation(async (tx) => {
    const payments = scoped(tx, tx.db.models.Payment);
    const payment = await payments.get(paymentId, { lock: true });
    const committed = kept ? await scoped(tx, tx.db.models.Refund).findOne({ paymentId, idempotencyKey: kept.key }) : null;
    if (committed) {
      if (committed.idempotencyFingerprint !== kept?.fingerprint) {
        throw new ConflictError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used for another refund request of this payment.');
      }
      // answered, or sent and waiting for the answer: not sent again (providers take our reference once)
      return committed.status === 'pending' && !committed.providerReference ? committed.id : settled(committed.id);
    }
    if (payment.status === 'refunded') throw new ConflictError('PAYMENT_ALREADY_REFUNDED', `Payment ${paymentId} is fully refunded.`);
    if (payment.status !== 'captured' && payment.status !== 'partially_refunded') {
      throw new ConflictError('PAYMENT_NOT_REFUNDABLE', `Payment ${paymentId} is ${payment.status}: only captured payments can be refunded.`);
    }
    if (input.amount && input.amount.currency !== payment.currency) throw ValidationError.field('body.amount.currency', `must be the payment's currency ${payment.currency}`);
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
      throw new BusinessRuleError('REFUND_EXCEEDS_REFUNDABLE', `Refund of ${money(amount)} exceeds what remains refundable (${money(Math.max(remaining, 0))}, pending refunds included).`);
    }
    const pctx = contextForPayment(tx, payment);
    const provider = await getProvider(pctx, payment.providerIntegrationId!);
    const earlier = await scoped(tx, tx.db.models.Refund).count({ paymentId, status: ['pending', 'succeeded'] });
    const captured = payment.capturedMinor;
    if (supportsFeature(provider, 'single_full_refund_only') && (earlier > 0 || amount !== captured)) {
      throw new BusinessRuleError('SINGLE_FULL_REFUND_ONLY', 'The payment\'s provider allows one full refund per payment and no partial or later refunds.');
    }
    if (amount < captured && !supportsFeature(provider, 'partial_refund')) {
      throw new BusinessRuleError('PARTIAL_REFUND_NOT_SUPPORTED', 'The payment\'s provider does not support partial refunds: refund the whole amount.');
    }
    if (earlier > 0 && !supportsFeature(provider, 'multiple_refunds')) {
      throw new BusinessRuleError('MULTIPLE_REFUNDS_NOT_SUPPORTED', 'The payment\'s provider allows one refund per payment.');
    }
    const held = await payments.updateIf(
      payment,
      { refundPendingMinor: payment.refundPendingMinor, refundedMinor: payment.refundedMinor },
      { refundPendingMinor: payment.refundPendingMinor + amount },
    );
    if (!held) throw new ConflictError('PAYMENT_CHANGED', `Payment ${paymentId} changed meanwhile: try again.`);
    const refund = await scoped(pctx, pctx.db.models.Refund).create({
      tenantId: payment.tenantId, merchantId: payment.merchantId, livemode: payment.livemode, paymentId, status: 'pending',
      currency: payment.currency, amountMinor: amount, reason: input.reason ?? null, merchantReference: input.merchantReference ?? null,
      statusReason: null, items: (input.items ?? []).map((item) => ({ ...item, id: item.id ?? newId() })), metadata: input.metadata ?? {}, providerReference: null, feeBreakdown: null,
      idempotencyKey: kept?.key ?? null, idempotencyFingerprint: kept?.fingerprint ?? null,
    });
    await refundEvent(pctx, refund, 'refund.created');
    return refund.id;
  }));
  return refundFor(ctx.level, await scoped(ctx, ctx.db.models.Refund).get(refundId));
}

/** A refund through the provider: recorded pending (the intent), sent with no transaction open, its answer applied after. */
function refundOperation(record: ProviderOperation<string, string>['record']): ProviderOperation<string, string> {
  return {
    name: 'refund',
    record,
    request: async (ctx, refundId) => {
      const refund = await scoped(ctx, ctx.db.models.Refund).get(refundId);
      const via = contextForPayment(ctx, refund);
      const payment = await scoped(via, via.db.models.Payment).get(refund.paymentId);
      return {
        via, terminalId: payment.terminalId!, operation: 'refund',
        request: {
          reference: refund.id, tenantId: refund.tenantId, livemode: refund.livemode, providerReference: payment.providerReference!,
          amount: { currency: refund.currency, valueMinor: refund.amountMinor },
        },
      };
    },
    apply: async (tx, refundId, answer) => {
      await applyRefundAnswer(contextForPayment(tx, await scoped(tx, tx.db.models.Refund).get(refundId)), refundId, answerOrPending(answer));
      return refundId;
    },
  };
}

/** Sends a pending refund to the payment's provider (again, after a crash: providers take our reference once) and applies the answer. */
export async function sendRefund(pctx: CallerContext, refundId: string): Promise<void> {
  await throughProvider(pctx, refundOperation({ recorded: refundId }));
}

/** Applies the provider's answer to a pending refund (immediate or asynchronous); idempotent. */
export async function applyRefundResult(pctx: CallerContext, refundId: string, result: ConnectorResult, settle?: (transaction: Transaction) => Promise<void>): Promise<void> {
  await inTransaction(pctx, async (tx) => {
    await applyRefundAnswer(tx, refundId, result);
    // what the caller records of the answer's delivery commits with it (see handleProviderOutcome)
    if (settle) await settle(tx.transaction!);
  });
}

async function applyRefundAnswer(tx: CallerContext, refundId: string, result: ConnectorResult): Promise<void> {
  const refunds = scoped(tx, tx.db.models.Refund);
  const payments = scoped(tx, tx.db.models.Payment);
  const found = await refunds.get(refundId);
  const payment = await payments.get(found.paymentId, { lock: true });
  const refund = await refunds.get(refundId);
  if (refund.status !== 'pending') return;
  const providerReference = result.providerReference ?? refund.providerReference;
  if (result.status === 'pending' || result.status === 'requires_action') {
    await refunds.update(refund, { providerReference });
    return;
  }
  const amount = refund.amountMinor;
  const pendingAfter = payment.refundPendingMinor - amount;
  if (result.status !== 'succeeded') {
    const failed = await refunds.update(refund, { status: 'failed', providerReference, statusReason: result.message ?? result.declineCode ?? 'The provider refused the refund.' });
    await payments.update(payment, { refundPendingMinor: pendingAfter });
    await refundEvent(tx, failed, 'refund.failed', refund);
    return;
  }
  const fee = await resolveFees(tx, {
    type: 'refund', outcome: 'successful', amount: { currency: refund.currency, valueMinor: amount }, method: payment.paymentMethodType,
    merchantId: payment.merchantId, terminalId: payment.terminalId, channelId: payment.channelId, partnerId: payment.partnerId, at: tx.clock.now(),
  });
  const charged = fee.merchantFee > 0 ? fee : null;
  await postRefund(tx, {
    tenantId: payment.tenantId, livemode: payment.livemode, merchantId: payment.merchantId, paymentId: payment.id, refundId: refund.id,
    providerIntegrationId: payment.providerIntegrationId!, partnerId: payment.partnerId, amount: { currency: refund.currency, valueMinor: amount }, fee: charged,
  });
  const refunded = payment.refundedMinor + amount;
  await payments.update(payment, {
    refundPendingMinor: pendingAfter, refundedMinor: refunded, feeMinor: payment.feeMinor + (charged?.merchantFee ?? 0),
    status: refunded >= payment.capturedMinor ? 'refunded' : 'partially_refunded',
  });
  const succeeded = await refunds.update(refund, { status: 'succeeded', providerReference, feeBreakdown: charged as unknown as Record<string, unknown> | null });
  await refundEvent(tx, succeeded, 'refund.succeeded', refund);
}

export async function listRefunds(ctx: CallerContext, paymentId: string, page: ListParams): Promise<Page<Refund>> {
  await scoped(ctx, ctx.db.models.Payment).get(paymentId);
  return mapPage(await scoped(ctx, ctx.db.models.Refund).list({ paymentId }, page), (row) => refundFor(ctx.level, row));
}

export async function getRefund(ctx: CallerContext, id: string): Promise<Refund> {
  return refundFor(ctx.level, await scoped(ctx, ctx.db.models.Refund).get(id));
}
