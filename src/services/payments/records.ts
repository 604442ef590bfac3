import type { Level } from '../../domain/context';
import type { LineItem, PaymentRow, RefundRow } from '../../db/models';
import { viewOf } from '../../api/views';
import { iso } from '../present';
import type { Money } from '../../domain/money';

const money = (currency: string, valueMinor: number): Money => ({ currency, valueMinor });

/** The risk engine's decision applied to a payment (allow when it has none). */
export function riskOf(row: Pick<PaymentRow, 'riskDecision'>): 'allow' | 'challenge' | 'review' | 'decline' {
  const decision = (row.riskDecision as { decision?: string } | null)?.decision;
  return decision === 'challenge' || decision === 'review' || decision === 'decline' ? decision : 'allow';
}

/** Whether an approved authorization is captured at once: automatic capture, unless risk holds it for review. */
export function capturesAutomatically(row: Pick<PaymentRow, 'captureMethod' | 'riskDecision'>): boolean {
  return row.captureMethod === 'automatic' && riskOf(row) !== 'review';
}

/**
 * What a payment still holds that may be refunded: captured, less refunded, pending refunds and what its open and
 * lost disputes took (disputedMinor; a won dispute gives it back).
 */
export function refundableMinor(row: PaymentRow): number {
  return row.capturedMinor - row.refundedMinor - row.refundPendingMinor - (row.disputedMinor ?? 0);
}

/**
 * The payment record: the specification's fields, plus the card summary and, for tenant and platform callers, the
 * provider, routing and fee details (PaymentSchema marks those tenantOnly: merchant callers and endpoints never see them).
 */
export function toPayment(row: PaymentRow) {
  const fee = row.feeMinor;
  const captured = row.capturedMinor;
  const refunded = row.refundedMinor;
  const breakdown = row.feeBreakdown as {
    providerFee?: number;
    tenantFee?: number;
    platformFee?: number;
    partnerCommission?: number;
  } | null;
  return {
    id: row.id,
    tenantId: row.tenantId,
    merchantId: row.merchantId,
    checkoutSessionId: row.checkoutSessionId,
    livemode: row.livemode,
    status: row.status,
    amount: money(row.currency, row.amountMinor),
    amountBreakdown: {
      authorized: money(row.currency, row.authorizedMinor),
      captured: money(row.currency, captured),
      refunded: money(row.currency, refunded),
      fee: money(row.currency, fee),
      net: money(row.currency, captured - refunded - fee),
    },
    captureMethod: row.captureMethod,
    merchantReference: row.merchantReference,
    paymentMethodType: row.paymentMethodType,
    card: row.card
      ? {
          brand: row.card.brand,
          last4: row.card.last4,
          expMonth: row.card.expMonth,
          expYear: row.card.expYear,
          country: row.card.country,
          fingerprint: row.card.fingerprint,
        }
      : null,
    providerReference: row.providerReference,
    providerStatus: row.providerStatus,
    providerDeclineCode: row.providerDeclineCode ?? null,
    lastOperationError: row.lastOperationError ?? null,
    action: row.action,
    errorCode: row.errorCode,
    errorMessage: row.errorMessage,
    approved: row.approved,
    threeDSResult: row.threeDSResult,
    metadata: row.metadata ?? {},
    terminalId: row.terminalId,
    providerIntegrationId: row.providerIntegrationId,
    channelId: row.channelId,
    routingDecision: row.routingDecision,
    riskDecision: row.riskDecision ?? null,
    feeBreakdown: breakdown
      ? {
          providerFee: money(row.currency, breakdown.providerFee ?? 0),
          tenantFee: money(row.currency, breakdown.tenantFee ?? 0),
          platformFee: money(row.currency, breakdown.platformFee ?? 0),
          partnerCommission: money(row.currency, breakdown.partnerCommission ?? 0),
        }
      : null,
    createdAt: iso(row.createdAt)!,
    updatedAt: iso(row.updatedAt)!,
  };
}
export type Payment = ReturnType<typeof toPayment>;

/** The payment as a caller of the level may read it (merchants: no provider, routing or fee decomposition). */
export function paymentFor(level: Level, row: PaymentRow): Payment {
  return viewOf('payment', toPayment(row), level);
}

export function toRefund(row: RefundRow) {
  return {
    id: row.id,
    tenantId: row.tenantId,
    merchantId: row.merchantId,
    paymentId: row.paymentId,
    livemode: row.livemode,
    status: row.status,
    amount: money(row.currency, row.amountMinor),
    reason: row.reason,
    merchantReference: row.merchantReference,
    statusReason: row.statusReason,
    items: (row.items ?? []) as (LineItem & { id: string })[],
    metadata: row.metadata ?? {},
    providerReference: row.providerReference,
    providerDeclineCode: row.providerDeclineCode ?? null,
    createdAt: iso(row.createdAt)!,
    updatedAt: iso(row.updatedAt)!,
  };
}
export type Refund = ReturnType<typeof toRefund>;

export function refundFor(level: Level, row: RefundRow): Refund {
  return viewOf('refund', toRefund(row), level);
}
