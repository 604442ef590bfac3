import type { Transaction } from 'sequelize';
import type { Runtime } from '../../runtime';
import type { DisputeNotification } from '../../connectors/types';
import { inTransaction } from '../../domain/context';
import { processingContext } from '../../domain/authority';
import { UnavailableError } from '../../domain/errors';
import { scoped } from '../../db/scoped';
import { decideDispute, openDispute } from './disputes';

/**
 * The connector side of disputes: what an acquirer's dispute notification (its webhook, or the sandbox acquirer's
 * worker) drives. `opened` names the payment by the acquirer's reference of its authorization and opens the dispute
 * (openDispute); `decided` names the dispute by the acquirer's reference and applies the outcome (decideDispute).
 * Idempotent on the acquirer's references: a notification delivered twice changes nothing the second time. `settle`
 * runs in the transaction that applies the notification, so that what the caller records of the delivery commits
 * with it. A notification for a payment not yet captured (the capture's answer still on its way) throws, for the
 * caller to deliver it again later; one naming nothing known, or a payment never captured (failed, voided), is
 * ignored (logged).
 */
export async function handleDisputeNotification(
  rt: Runtime,
  n: DisputeNotification,
  settle?: (transaction: Transaction) => Promise<void>,
): Promise<void> {
  const pctx = processingContext(rt, n.tenantId, n.livemode);
  const { notice } = n;
  if (notice.type === 'opened') {
    const payment = await scoped(pctx, rt.db.models.Payment).findOne({
      providerIntegrationId: n.providerIntegrationId,
      providerReference: notice.paymentProviderReference,
    });
    if (!payment) {
      rt.logger.warn(
        { providerReference: notice.providerReference, payment: notice.paymentProviderReference },
        'dispute notification for an unknown payment ignored',
      );
      return;
    }
    if (payment.status === 'processing' || payment.status === 'requires_capture' || payment.status === 'requires_action') {
      throw new UnavailableError(
        `Payment ${payment.id} is ${payment.status}: its dispute is applied once it is captured.`,
        'PAYMENT_NOT_CAPTURED_YET',
      );
    }
    if (payment.status === 'failed' || payment.status === 'voided') {
      // never captured: nothing the cardholder's bank could take back
      rt.logger.warn(
        { providerReference: notice.providerReference, paymentId: payment.id, status: payment.status },
        'dispute notification for a payment never captured ignored',
      );
      return;
    }
    await inTransaction(pctx, async (tx) => {
      await openDispute(tx, {
        paymentId: payment.id,
        amount: notice.amount,
        reason: notice.reason,
        providerReference: notice.providerReference,
        evidenceDueBy: new Date(notice.evidenceDueBy),
      });
      if (settle) await settle(tx.transaction!);
    });
    return;
  }
  const dispute = await scoped(pctx, rt.db.models.Dispute).findOne({
    providerIntegrationId: n.providerIntegrationId,
    providerReference: notice.providerReference,
  });
  if (!dispute) {
    rt.logger.warn({ providerReference: notice.providerReference }, 'dispute decision for an unknown dispute ignored');
    return;
  }
  await inTransaction(pctx, async (tx) => {
    await decideDispute(tx, { dispute, outcome: notice.outcome });
    if (settle) await settle(tx.transaction!);
  });
}
