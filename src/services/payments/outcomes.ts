import type { Transaction } from 'sequelize';
import type { Runtime } from '../../runtime';
import type { ProviderOutcome } from '../../connectors/types';
import { scoped } from '../../db/scoped';
import { applyAttemptResult, runAttempts } from './engine';
import { processingContext } from '../../domain/authority';
import { applyRefundResult } from './refunds';

/**
 * Applies a provider's asynchronous answer (the sandbox acquirer's callback) to the payment attempt or refund it
 * names. Idempotent: an outcome applied twice changes nothing the second time; an outcome for an unknown reference
 * is ignored (logged). `settle`, when given, runs in the transaction that applies the answer, so that what the
 * caller records of the delivery (the sandbox acquirer marks its operation done) commits with it; it is not called
 * when no transaction applies anything (an unknown reference).
 */
export async function handleProviderOutcome(
  rt: Runtime,
  outcome: ProviderOutcome,
  settle?: (transaction: Transaction) => Promise<void>,
): Promise<void> {
  const pctx = processingContext(rt, outcome.tenantId, outcome.livemode);
  if (outcome.operation === 'authorize') {
    const attempt = await scoped(pctx, rt.db.models.PaymentAttempt).find(outcome.reference);
    if (!attempt) {
      rt.logger.warn({ reference: outcome.reference, operation: outcome.operation }, 'provider outcome for an unknown attempt ignored');
      return;
    }
    const pending = { paymentId: attempt.paymentId, attemptId: attempt.id };
    const next = await applyAttemptResult(pctx, pending, { ...outcome.result, providerReference: outcome.providerReference }, settle);
    if (next) await runAttempts(pctx, next);
    return;
  }
  if (outcome.operation === 'refund') {
    await applyRefundResult(pctx, outcome.reference, { ...outcome.result, providerReference: outcome.providerReference }, settle);
    return;
  }
  rt.logger.warn(
    { reference: outcome.reference, operation: outcome.operation },
    'provider outcome of an operation answered synchronously ignored',
  );
}
