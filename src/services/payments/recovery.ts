import { Op } from 'sequelize';
import type { Runtime } from '../../runtime';
import type { PaymentAttemptRow, PaymentRow, RefundRow } from '../../db/models';
import { lookUpStalledAttempt, voidLateApproval } from './engine';
import { processingContext } from '../../domain/authority';
import { lookUpStalledRefund } from './refunds';
import { finishStalledOperation } from './payments';

/**
 * Settles provider calls whose answer was lost, and finishes what an answer left to do. Safe to run in several
 * processes at once: every answer is applied idempotently, and every retry is claimed first.
 *
 * - Attempts and refunds: one is committed before its provider is called, so a timeout, a 5xx, or a process that dies
 *   in between leaves it pending without a provider reference. Those older than `staleMs` are looked up at their
 *   acquirer by our reference, never sent again (a card is never sent twice): found, the acquirer's answer is applied;
 *   unknown there, they fail (provider_unavailable: an attempt may cascade to another terminal, a refund releases its
 *   amount); an acquirer with no look-up is waited for (its notification) up to a day after the operation, then the
 *   same (engine.lookUpStalledAttempt, refunds.lookUpStalledRefund).
 * - Late voids: an approval that arrived after its payment was canceled or given up is voided; a void that failed is
 *   tried again with backoff until the provider confirms it, and given up after its tries (logged).
 * - Captures and voids whose lease ran out: finished (payments.finishStalledOperation): sent again with the same
 *   reference, a call that cannot start abandoned after its tries (logged), one accepted for later looked up or waited
 *   for (logged once a day).
 *
 * Returns how many were settled.
 */
export async function recoverStalledCalls(rt: Runtime, options: { staleMs?: number; batchSize?: number } = {}): Promise<number> {
  const now = rt.clock.now();
  const before = new Date(now.getTime() - (options.staleMs ?? 120_000));
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
      if (await lookUpStalledAttempt(pctx, attempt)) recovered++;
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
      if (await lookUpStalledRefund(pctx, refund.id)) recovered++;
    } catch (error) {
      rt.logger.error({ err: error, refundId: refund.id }, 'stalled refund not recovered');
    }
  }
  const lateVoids = (await rt.db.models.PaymentAttempt.findAll({
    where: { lateVoidStatus: 'pending', lateVoidNextAt: { [Op.lte]: now } },
    order: [['lateVoidNextAt', 'ASC']],
    limit,
    raw: true,
  })) as unknown as PaymentAttemptRow[];
  for (const attempt of lateVoids) {
    const pctx = processingContext(rt, attempt.tenantId, Boolean(attempt.livemode));
    const where = { attemptId: attempt.id, paymentId: attempt.paymentId };
    try {
      const outcome = await voidLateApproval(pctx, attempt.id);
      if (outcome?.status === 'done') recovered++;
      if (outcome?.status === 'failed') {
        recovered++;
        rt.logger.error(
          { ...where, reason: outcome.error },
          'void of a late approval given up: the authorization stays open at the provider',
        );
      } else if (outcome?.error) rt.logger.warn({ ...where, reason: outcome.error }, 'void of a late approval failed: tried again later');
    } catch (error) {
      rt.logger.error({ err: error, ...where }, 'void of a late approval not recovered');
    }
  }
  const leased = (await rt.db.models.Payment.findAll({
    where: { pendingOperationUntil: { [Op.lte]: now } },
    order: [['pendingOperationUntil', 'ASC']],
    limit,
    raw: true,
  })) as unknown as PaymentRow[];
  for (const payment of leased) {
    const pctx = processingContext(rt, payment.tenantId, Boolean(payment.livemode));
    const operation = payment.pendingOperation ? { id: payment.pendingOperation.id, kind: payment.pendingOperation.kind } : null;
    try {
      const done = await finishStalledOperation(pctx, payment.id);
      if (done === 'finished' || done === 'abandoned') recovered++;
      if (done === 'abandoned') rt.logger.error({ paymentId: payment.id, operation }, 'payment operation abandoned after its tries');
      // its lease is a day: logged once a day while the provider's notification is missing
      if (done === 'waiting')
        rt.logger.warn({ paymentId: payment.id, operation }, 'payment operation accepted by the provider still awaits its notification');
    } catch (error) {
      rt.logger.error({ err: error, paymentId: payment.id }, 'stalled payment operation not recovered');
    }
  }
  return recovered;
}
