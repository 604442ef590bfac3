import type { Transaction } from 'sequelize';
import type { Runtime } from '../../runtime';
import type { ProviderOutcome } from '../../connectors/types';
import { inTransaction } from '../../domain/context';
import { isUuid, scoped } from '../../db/scoped';
import { applyAttemptResult, lateVoidResult, recordLateVoid, runAttempts } from './engine';
import { applyOperationOutcome } from './payments';
import { processingContext } from '../../domain/authority';
import { applyRefundResult } from './refunds';

/**
 * Applies a provider's asynchronous answer (the sandbox acquirer's callback, a real acquirer's notification) to the
 * payment attempt, refund, capture or void it names (a void's may also confirm a late approval's void, named by the
 * attempt's id). Idempotent: an outcome applied twice changes nothing the second time; an outcome for an unknown reference
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
  if (outcome.operation === 'capture' || outcome.operation === 'void') {
    const result = { ...outcome.result, providerReference: outcome.providerReference };
    // a late approval's void is sent with its attempt's id as reference
    const lateVoid =
      outcome.operation === 'void' && isUuid(outcome.reference)
        ? await scoped(pctx, rt.db.models.PaymentAttempt).find(outcome.reference)
        : null;
    if (lateVoid && lateVoid.lateVoidStatus !== 'none') {
      await inTransaction(pctx, async (tx) => {
        await recordLateVoid(tx, lateVoid.id, lateVoidResult(result));
        if (settle) await settle(tx.transaction!);
      });
      return;
    }
    const applied = await applyOperationOutcome(
      pctx,
      {
        operation: outcome.operation,
        reference: outcome.reference,
        providerReference: outcome.providerReference,
        providerIntegrationId: outcome.providerIntegrationId,
        result,
      },
      settle ? (tx) => settle(tx.transaction!) : undefined,
    );
    if (applied === null)
      rt.logger.warn({ reference: outcome.reference, operation: outcome.operation }, 'provider outcome for an unknown payment ignored');
    if (applied === 'refused')
      rt.logger.warn(
        { reference: outcome.reference, operation: outcome.operation },
        'provider refused a capture or cancel it had accepted',
      );
    return;
  }
  rt.logger.warn({ reference: outcome.reference, operation: outcome.operation }, 'provider outcome of a payout ignored');
}
