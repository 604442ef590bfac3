import { inTransaction, type CallerContext } from '../../domain/context';
import type { CheckoutSessionRow } from '../../db/models';
import { auditedUpdate } from '../audit/changes';
import { assertNewPayment, changeableWhere, loadRow, moveSession, PAYMENT_APPROVED, raced, SESSION } from './record';

/**
 * The payment path's report: the session's paymentId and paymentStatus follow the payment; an approved payment
 * (requires_capture or captured) completes an open session (the machine's complete move, checkout.session.completed).
 * A new payment is refused (409) unless the session is open with no payment in flight: two concurrent completes cannot
 * both start one. Runs in the caller's transaction (the payment's).
 */
export async function recordSessionPayment(
  ctx: CallerContext,
  sessionId: string,
  p: { paymentId: string; paymentStatus: string },
): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const row = await loadRow(tx, sessionId, true);
    const newPayment = row.paymentId !== p.paymentId;
    const changes: Partial<CheckoutSessionRow> = {};
    if (newPayment) changes.paymentId = p.paymentId;
    if (row.paymentStatus !== p.paymentStatus) changes.paymentStatus = p.paymentStatus;
    if (Object.keys(changes).length === 0) return;
    if (newPayment) assertNewPayment(row);
    // a new payment starts only while none is in flight; the session's own payment only follows itself
    const expect = newPayment ? changeableWhere() : { paymentId: p.paymentId };
    if ((PAYMENT_APPROVED as readonly string[]).includes(p.paymentStatus) && row.status === 'open') {
      await moveSession(tx, row, 'complete', { changes, expect });
      return;
    }
    await auditedUpdate(tx, SESSION, row, changes, {
      action: 'checkout_session.payment_updated',
      expect: { ...expect, status: row.status },
      refused: raced,
    });
  });
}
