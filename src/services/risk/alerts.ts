import type { CallerContext } from '../../domain/context';
import type { PaymentRow } from '../../db/models';
import { emitEvent } from '../webhooks/events';
import type { RiskDecision } from './engine';

/**
 * A fraud.alert (tenant-level event) for a payment the risk engine declined or held for review, also under monitor
 * enforcement (then the alert says the decision was not enforced). Emitted in the payment's transaction.
 */
export async function emitFraudAlert(tx: CallerContext, payment: PaymentRow, risk: RiskDecision): Promise<void> {
  if (risk.evaluatedDecision !== 'decline' && risk.evaluatedDecision !== 'review') return;
  await emitEvent(tx, {
    type: 'fraud.alert',
    tenantId: payment.tenantId,
    merchantId: payment.merchantId,
    livemode: payment.livemode,
    data: {
      object: 'alert',
      kind: 'fraud',
      severity: risk.evaluatedDecision === 'decline' ? 'high' : 'medium',
      merchantId: payment.merchantId,
      paymentId: payment.id,
      riskScore: risk.score,
      decision: risk.evaluatedDecision,
      enforced: risk.enforced,
      reason: risk.reason,
      matchedRules: risk.matchedRules,
      createdAt: tx.clock.now().toISOString(),
    },
  });
}
