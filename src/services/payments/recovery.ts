import { Op } from 'sequelize';
import type { Runtime } from '../../runtime';
import type { PaymentAttemptRow, PaymentRow, RefundRow } from '../../db/models';
import { runAttempts } from './engine';
import { processingContext } from '../../domain/authority';
import { sendRefund } from './refunds';
import { finishStalledOperation } from './payments';

/**
 * Picks up provider calls that never happened: an attempt or a refund is committed before its provider is called, so
 * a process that dies (or a call that fails in an unexpected way) in between leaves it pending without a provider
 * reference, and nothing else would ever move it. Those older than `staleMs` are sent again — providers take our
 * reference once (the sandbox acquirer answers a repeated reference with its first answer) — and the answer is
 * applied as usual; an attempt whose card is no longer kept fails (and may cascade). Safe to run in several
 * processes at once: every answer is applied idempotently.
 *
 * Also finishes captures and voids whose lease ran out (recorded on the payment, the process gone before the answer
 * was applied): the lease is taken over by one process, the provider called again with the same reference, the
 * answer applied (payments.finishStalledOperation).
 */
export async function recoverStalledCalls(rt: Runtime, options: { staleMs?: number; batchSize?: number } = {}): Promise<number> {
  const before = new Date(rt.clock.now().getTime() - (options.staleMs ?? 120_000));
  const limit = options.batchSize ?? 100;
  const stale = { status: 'pending', providerReference: null, updatedAt: { [Op.lte]: before } };
  let recovered = 0;
  const attempts = (await rt.db.models.PaymentAttempt.findAll({
    where: stale,
    order: [['updatedAt', 'ASC']],
    limit,
    raw: true,
  })) as unknown as PaymentAttemptRow[];
  for (const attempt of attempts) {
    const pctx = processingContext(rt, attempt.tenantId, Boolean(attempt.livemode));
    try {
      await runAttempts(pctx, { paymentId: attempt.paymentId, attemptId: attempt.id });
      recovered++;
    } catch (error) {
      rt.logger.error({ err: error, attemptId: attempt.id, paymentId: attempt.paymentId }, 'stalled payment attempt not recovered');
    }
  }
  const refunds = (await rt.db.models.Refund.findAll({
    where: stale,
    order: [['updatedAt', 'ASC']],
    limit,
    raw: true,
  })) as unknown as RefundRow[];
  for (const refund of refunds) {
    const pctx = processingContext(rt, refund.tenantId, Boolean(refund.livemode));
    try {
      await sendRefund(pctx, refund.id);
      recovered++;
    } catch (error) {
      rt.logger.error({ err: error, refundId: refund.id }, 'stalled refund not recovered');
    }
  }
  const leased = (await rt.db.models.Payment.findAll({
    where: { pendingOperationUntil: { [Op.lte]: rt.clock.now() } },
    order: [['pendingOperationUntil', 'ASC']],
    limit,
    raw: true,
  })) as unknown as PaymentRow[];
  for (const payment of leased) {
    const pctx = processingContext(rt, payment.tenantId, Boolean(payment.livemode));
    try {
      if (await finishStalledOperation(pctx, payment.id)) recovered++;
    } catch (error) {
      rt.logger.error({ err: error, paymentId: payment.id }, 'stalled payment operation not recovered');
    }
  }
  return recovered;
}
