import { inTransaction, type CallerContext } from '../../domain/context';
import { BusinessRuleError, ConflictError, PermissionError, UnavailableError, ValidationError } from '../../domain/errors';
import type { PaymentRow, PaymentStatus } from '../../db/models';
import { scoped, type ListParams, type Page } from '../../db/scoped';
import { ConnectorError, type Connector, type ConnectorResult, type ConnectorTerminal } from '../../connectors';
import { getProvider, supportsFeature } from '../providers';
import { mapPage } from '../present';
import { bookCapture, connectorTerminal, paymentChanged, processingContext } from './engine';
import { minor, paymentFor, riskOf, type Money, type Payment } from './records';

/** The payment path's tenant-level context for a payment, inside the caller's transaction and with the caller as actor. */
export function contextForPayment(ctx: CallerContext, row: Pick<PaymentRow, 'tenantId' | 'livemode'>): CallerContext {
  return { ...processingContext(ctx, row.tenantId, row.livemode, ctx.actor), transaction: ctx.transaction, requestId: ctx.requestId };
}

export interface PaymentFilters {
  status?: PaymentStatus;
  merchantId?: string;
  checkoutSessionId?: string;
}

export async function listPayments(ctx: CallerContext, filters: PaymentFilters, page: ListParams): Promise<Page<Payment>> {
  const where: Record<string, unknown> = {};
  for (const key of ['status', 'merchantId', 'checkoutSessionId'] as const) if (filters[key]) where[key] = filters[key];
  return mapPage(await scoped(ctx, ctx.db.models.Payment).list(where, page), (row) => paymentFor(ctx.level, row));
}

export async function getPayment(ctx: CallerContext, id: string): Promise<Payment> {
  return paymentFor(ctx.level, await scoped(ctx, ctx.db.models.Payment).get(id));
}

/** Calls the payment's provider for a synchronous operation (capture, void); an unreachable provider is a 503. */
async function callProvider(
  pctx: CallerContext,
  row: PaymentRow,
  call: (connector: Connector, terminal: ConnectorTerminal) => Promise<ConnectorResult>,
): Promise<ConnectorResult> {
  const { connector, terminal } = await connectorTerminal(pctx, row.terminalId!);
  try {
    return await call(connector, terminal);
  } catch (error) {
    if (error instanceof ConnectorError) throw new UnavailableError(`The provider could not be reached: ${error.message}. Try again.`, 'PROVIDER_UNAVAILABLE');
    throw error;
  }
}

/**
 * Captures a requires_capture payment: the whole authorized amount, or less where the provider supports partial
 * capture. The provider answers synchronously; the capture is booked (fees, ledger) in the same transaction.
 */
export async function capturePayment(ctx: CallerContext, id: string, input: { amount?: Money }): Promise<Payment> {
  return inTransaction(ctx, async (tx) => {
    const row = await scoped(tx, tx.db.models.Payment).get(id, { lock: true });
    if (row.status !== 'requires_capture') {
      throw new ConflictError('PAYMENT_NOT_CAPTURABLE', `Payment ${id} is ${row.status}: only a requires_capture payment can be captured.`);
    }
    if (riskOf(row) === 'review' && tx.level === 'merchant') {
      throw new PermissionError(`Payment ${id} is held for risk review: the tenant captures or cancels it.`, 'RISK_REVIEW_PENDING');
    }
    const authorized = minor(row.authorizedMinor);
    const amount = input.amount?.valueMinor ?? authorized;
    if (input.amount && input.amount.currency !== row.currency) throw ValidationError.field('body.amount.currency', `must be the payment's currency ${row.currency}`);
    if (amount <= 0) throw ValidationError.field('body.amount.valueMinor', 'must be positive');
    if (amount > authorized) throw new BusinessRuleError('CAPTURE_EXCEEDS_AUTHORIZED', `Capture of ${amount} exceeds the authorized ${authorized}.`);
    const pctx = contextForPayment(tx, row);
    if (amount < authorized && !supportsFeature(await getProvider(pctx, row.providerIntegrationId!), 'partial_capture')) {
      throw new BusinessRuleError('PARTIAL_CAPTURE_NOT_SUPPORTED', 'The payment\'s provider does not support partial capture: capture the whole authorized amount.');
    }
    // everything that can fail here is written first; the provider is called last, so a refusal rolls it all back
    // and an accepted capture is never left unbooked
    const booked = await bookCapture(pctx, row, amount);
    let updated = await scoped(pctx, pctx.db.models.Payment).update(row, { ...booked, status: 'captured', providerStatus: 'captured' });
    await paymentChanged(pctx, updated, ['payment.captured', 'payment.succeeded'], row);
    const result = await callProvider(pctx, row, (c, terminal) =>
      c.capture(pctx, terminal, { reference: row.id, providerReference: row.providerReference!, amount: { currency: row.currency, valueMinor: amount } }),
    );
    if (result.status !== 'succeeded') {
      throw new BusinessRuleError('CAPTURE_DECLINED', `The provider refused the capture${result.message ? `: ${result.message}` : ''}.`);
    }
    if (result.rawStatus) updated = await scoped(pctx, pctx.db.models.Payment).update(updated, { providerStatus: result.rawStatus });
    return paymentFor(ctx.level, updated);
  });
}

const CANCELABLE: readonly PaymentStatus[] = ['processing', 'requires_action', 'requires_capture'];

/**
 * Cancels (voids) a payment that is processing, requires_action or requires_capture: an authorization is voided at
 * the provider; no refund is created and nothing is booked. 409 once captured or final.
 */
export async function cancelPayment(ctx: CallerContext, id: string): Promise<Payment> {
  return inTransaction(ctx, async (tx) => {
    const row = await scoped(tx, tx.db.models.Payment).get(id, { lock: true });
    if (!CANCELABLE.includes(row.status)) {
      throw new ConflictError('PAYMENT_NOT_CANCELABLE', `Payment ${id} is ${row.status}: only processing, requires_action or requires_capture payments can be canceled.`);
    }
    const pctx = contextForPayment(tx, row);
    // an authorization is voided at the provider; an attempt still waiting for its answer (or for a 3DS challenge)
    // is left behind: an approval that arrives after the cancel is voided then (engine.applyAttemptResult)
    if (row.status === 'requires_capture' && row.providerReference && row.terminalId) {
      const result = await callProvider(pctx, row, (c, terminal) => c.void(pctx, terminal, { reference: row.id, providerReference: row.providerReference! }));
      if (result.status !== 'succeeded') throw new BusinessRuleError('VOID_DECLINED', `The provider refused to void the authorization${result.message ? `: ${result.message}` : ''}.`);
    }
    const updated = await scoped(pctx, pctx.db.models.Payment).update(row, { status: 'voided', action: null, cardVault: null, providerStatus: 'voided' });
    await paymentChanged(pctx, updated, 'payment.canceled', row);
    return paymentFor(ctx.level, updated);
  });
}
