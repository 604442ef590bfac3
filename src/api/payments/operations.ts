import { defineOperation, type Operation } from '../registry';
import { idParams, listQuery } from '../common';
import * as payments from '../../services/payments/payments';
import * as refunds from '../../services/payments/refunds';
import { CapturePaymentBody, CreateRefundBody, ListPaymentsQuery, PaymentSchema, RefundSchema } from './schemas';

const tag = 'Payments';
const paymentDescription =
  'Merchant callers see the merchant view: no provider reference or status, terminal, routing decision or fee decomposition (the same rule as event data).';

/** Payments and refunds. */
export const paymentOperations: Operation[] = [
  defineOperation({
    id: 'listPayments',
    method: 'get',
    path: '/v1/payments',
    levels: ['M', 'T', 'P'],
    permission: 'payments:payments:view',
    tag,
    summary: 'List payments',
    description: `Newest first by default. ${paymentDescription}`,
    kind: 'list',
    query: ListPaymentsQuery,
    response: PaymentSchema,
    handler: (ctx, { query: { cursor, limit, sortOrder, ...filters } }) =>
      payments.listPayments(ctx, filters, { cursor, limit, sortOrder }),
  }),
  defineOperation({
    id: 'getPayment',
    method: 'get',
    path: '/v1/payments/{id}',
    levels: ['M', 'T', 'P'],
    permission: 'payments:payments:view',
    tag,
    summary: 'Get a payment',
    description: paymentDescription,
    kind: 'single',
    params: idParams,
    response: PaymentSchema,
    handler: (ctx, { params }) => payments.getPayment(ctx, params.id),
  }),
  defineOperation({
    id: 'capturePayment',
    method: 'post',
    path: '/v1/payments/{id}/capture',
    levels: ['M', 'T'],
    permission: 'payments:payments:manage',
    tag,
    summary: 'Capture a requires_capture payment',
    description:
      'Captures the whole authorized amount, or less where the provider supports partial capture (422 PARTIAL_CAPTURE_NOT_SUPPORTED otherwise). 409 PAYMENT_NOT_CAPTURABLE unless the payment is requires_capture. Emits payment.captured and payment.succeeded; the capture is booked to the ledger net of fees. An acquirer that confirms captures by notification (it accepted it for later) is answered 200 with the payment unchanged (still requires_capture, providerStatus capture_pending for tenants): the capture is booked and announced when its notification arrives, and a second capture or cancel meanwhile is 409 PAYMENT_OPERATION_IN_PROGRESS.',
    kind: 'single',
    params: idParams,
    body: CapturePaymentBody,
    response: PaymentSchema,
    ownTransactions: true,
    handler: (ctx, { params, body }) => payments.capturePayment(ctx, params.id, body),
    resume: (ctx, { params }) => payments.getPayment(ctx, params.id),
  }),
  defineOperation({
    id: 'cancelPayment',
    method: 'post',
    path: '/v1/payments/{id}/cancel',
    levels: ['M', 'T'],
    permission: 'payments:payments:manage',
    tag,
    summary: 'Cancel (void) a payment',
    description:
      'Valid for processing, requires_action and requires_capture payments: the authorization is voided, no refund is created, payment.canceled is emitted and the status becomes voided. 409 PAYMENT_NOT_CANCELABLE when captured or in a final state. An acquirer that confirms cancels by notification is answered 200 with the payment unchanged (providerStatus void_pending for tenants) until its notification arrives.',
    kind: 'single',
    params: idParams,
    response: PaymentSchema,
    ownTransactions: true,
    handler: (ctx, { params }) => payments.cancelPayment(ctx, params.id),
    resume: (ctx, { params }) => payments.getPayment(ctx, params.id),
  }),
  defineOperation({
    id: 'createRefund',
    method: 'post',
    path: '/v1/payments/{id}/refunds',
    levels: ['M', 'T'],
    permission: 'payments:refunds:manage',
    tag,
    summary: 'Refund a captured payment',
    description:
      'Creates a pending refund of `amount` (default: all that remains refundable) and sends it to the provider; refund.created now, refund.succeeded or refund.failed when the provider answers (no payment event: the payment becomes partially_refunded or refunded). Never beyond the captured amount, pending refunds included, whatever the concurrency (422 REFUND_EXCEEDS_REFUNDABLE); a payment with an open or lost dispute refuses refunds beyond what the dispute left (409 PAYMENT_DISPUTED). Partial refunds only where the provider supports them (422 PARTIAL_REFUND_NOT_SUPPORTED); a provider may allow one lifetime full refund only (422 SINGLE_FULL_REFUND_ONLY). Send an Idempotency-Key: a retry returns the same refund.',
    kind: 'single',
    status: 201,
    params: idParams,
    body: CreateRefundBody,
    response: RefundSchema,
    ownTransactions: true,
    handler: (ctx, { params, body }) => refunds.makeRefund(ctx, params.id, body),
    // the refund the key made, as it is now (sent if it never was)
    resume: (ctx, { params }) => refunds.resumeRefund(ctx, params.id),
  }),
  defineOperation({
    id: 'listPaymentRefunds',
    method: 'get',
    path: '/v1/payments/{id}/refunds',
    levels: ['M', 'T', 'P'],
    permission: 'payments:refunds:view',
    tag,
    summary: 'List the refunds of a payment',
    description: 'Newest first; an empty list when none.',
    kind: 'list',
    params: idParams,
    query: listQuery({}),
    response: RefundSchema,
    handler: (ctx, { params, query }) => refunds.listRefunds(ctx, params.id, query),
  }),
  defineOperation({
    id: 'getRefund',
    method: 'get',
    path: '/v1/refunds/{id}',
    levels: ['M', 'T', 'P'],
    permission: 'payments:refunds:view',
    tag,
    summary: 'Get a refund',
    kind: 'single',
    params: idParams,
    response: RefundSchema,
    handler: (ctx, { params }) => refunds.getRefund(ctx, params.id),
  }),
];
