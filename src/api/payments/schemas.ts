import { z } from '../zod';
import { refersTo } from '../references';
import { Money, Timestamp, listQuery } from '../common';
import { LineItemInput, LineItemSchema } from '../checkout/schemas';
import { tenantOnly } from '../visibility';

// Payments and refunds.

export const PAYMENT_STATUSES = [
  'processing',
  'requires_action',
  'requires_capture',
  'captured',
  'failed',
  'voided',
  'refunded',
  'partially_refunded',
] as const;
export const REFUND_STATUSES = ['pending', 'succeeded', 'failed'] as const;

const MoneyOut = z.object({ currency: z.string(), valueMinor: z.number().int() });
const Text = (max: number) => z.string().trim().min(1).max(max);
const Metadata = z
  .record(z.string().max(40), z.string().max(500))
  .refine((m) => Object.keys(m).length <= 50, 'at most 50 keys')
  .openapi({ description: 'Your own key-value pairs (at most 50 keys, keys up to 40 and values up to 500 characters).' });

export const ThreeDsResultSchema = z
  .object({
    version: z.string(),
    status: z.string(),
    statusReason: z.string().nullable().optional(),
    eci: z.string().nullable().optional(),
    cavv: z.string().nullable().optional(),
    xid: z.string().nullable().optional(),
    dsTransId: z.string().nullable().optional(),
    messageVersion: z.string().nullable().optional(),
    serverTransId: z.string().nullable().optional(),
    acsTransId: z.string().nullable().optional(),
    enrolled: z.string().nullable().optional(),
    liabilityShift: z.boolean().optional(),
    challengeFlow: z.string().nullable().optional(),
    challenged: z.boolean().optional(),
    challengeCancelled: z.boolean().optional(),
    exemptionApplied: z.string().nullable().optional(),
  })
  .openapi('ThreeDSResult');

export const PaymentSchema = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    merchantId: z.string(),
    checkoutSessionId: z.string().nullable(),
    livemode: z.boolean(),
    status: z.enum(PAYMENT_STATUSES),
    amount: MoneyOut,
    amountBreakdown: z
      .object({ authorized: MoneyOut, captured: MoneyOut, refunded: MoneyOut, fee: MoneyOut, net: MoneyOut })
      .openapi({ description: 'fee is the total charged to the merchant (capture and refund fees); net = captured - refunded - fee.' }),
    captureMethod: z.enum(['automatic', 'manual']),
    merchantReference: z.string().nullable(),
    paymentMethodType: z.string(),
    card: z
      .object({
        brand: z.string(),
        last4: z.string(),
        expMonth: z.number().int(),
        expYear: z.number().int(),
        country: z.string().nullable(),
        fingerprint: z.string(),
      })
      .nullable()
      .openapi({
        description: 'The card as kept: never the number. fingerprint is the same for the same card number within this platform.',
      }),
    providerReference: tenantOnly(z.string().nullable().optional(), "The provider's reference of the current attempt."),
    providerStatus: tenantOnly(
      z.string().nullable().optional(),
      "The provider's own status. capture_pending / void_pending: the provider accepted a capture or cancel for later; the payment keeps its status until the provider's notification settles it.",
    ),
    providerDeclineCode: tenantOnly(
      z.string().nullable().optional(),
      "The acquirer's own decline or error code of the current attempt (errorCode is the platform's code it maps to).",
    ),
    lastOperationError: tenantOnly(
      z.string().nullable().optional(),
      "Why the last capture or cancel did not happen when no caller could be answered: refused in the provider's notification, or abandoned after its tries.",
    ),
    action: z
      .object({ type: z.literal('redirect'), url: z.string(), data: z.record(z.string(), z.unknown()).optional() })
      .nullable()
      .openapi({ description: 'What the customer must do next (a 3DS challenge page) while requires_action.' }),
    errorCode: z.string().nullable(),
    errorMessage: z.string().nullable(),
    approved: z.boolean().nullable(),
    threeDSResult: ThreeDsResultSchema.nullable(),
    metadata: z.record(z.string(), z.string()),
    terminalId: tenantOnly(z.string().nullable().optional(), 'The terminal of the current attempt.'),
    providerIntegrationId: tenantOnly(z.string().nullable().optional(), 'The provider integration of the current attempt.'),
    channelId: z.string().nullable().optional(),
    routingDecision: tenantOnly(
      z.record(z.string(), z.unknown()).nullable().optional(),
      'The routing decision: rule, candidates and exclusion reasons.',
    ),
    riskDecision: tenantOnly(
      z.record(z.string(), z.unknown()).nullable().optional(),
      "The risk engine's decision before routing: decision (allow, challenge, review, decline), score, matched rules, thresholds, plans.",
    ),
    feeBreakdown: tenantOnly(
      z
        .object({
          providerFee: tenantOnly(MoneyOut, 'What the provider earns.'),
          tenantFee: tenantOnly(MoneyOut, 'What the tenant earns.'),
          platformFee: tenantOnly(MoneyOut, 'What the platform earns.'),
          partnerCommission: tenantOnly(MoneyOut, "What the merchant's partner earns."),
        })
        .nullable()
        .optional(),
      'The fee decomposition of the capture.',
    ),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi('Payment');

export const ListPaymentsQuery = listQuery({
  status: z.enum(PAYMENT_STATUSES).optional(),
  merchantId: refersTo('merchant', z.string().uuid()).optional(),
  checkoutSessionId: refersTo('checkoutSession', z.string().uuid()).optional(),
});

export const CapturePaymentBody = z
  .strictObject({
    amount: Money.optional().openapi({
      description: 'Default: the whole authorized amount. Less only where the provider supports partial capture.',
    }),
  })
  .openapi('CapturePaymentBody');

export const RefundSchema = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    merchantId: z.string(),
    paymentId: z.string(),
    livemode: z.boolean(),
    status: z.enum(REFUND_STATUSES),
    amount: MoneyOut,
    reason: z.string().nullable(),
    merchantReference: z.string().nullable(),
    statusReason: z.string().nullable(),
    items: z.array(LineItemSchema),
    metadata: z.record(z.string(), z.string()),
    providerReference: tenantOnly(z.string().nullable().optional(), "The provider's reference of the refund."),
    providerDeclineCode: tenantOnly(z.string().nullable().optional(), "The acquirer's own code of a refused refund."),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi('Refund');

export const CreateRefundBody = z
  .strictObject({
    amount: Money.optional().openapi({
      description: 'Default: all that remains refundable. Partial amounts only where the provider supports partial refunds.',
    }),
    reason: Text(500).optional(),
    merchantReference: Text(255).optional(),
    items: z.array(LineItemInput).max(100).optional(),
    metadata: Metadata.optional(),
  })
  .openapi('CreateRefundBody');
