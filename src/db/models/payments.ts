import type { Sequelize } from 'sequelize';
import {
  define,
  pk,
  stamps,
  UUID,
  STRING,
  TEXT,
  JSONT,
  BOOLEAN,
  DATE,
  INTEGER,
  BIGINT,
  type RowModel,
  type Timestamps,
} from '../model-kit';
import type { ThreeDsResult } from '../../connectors/results';
import type { Money } from '../../domain/money';

// Payments, their attempts at terminals, and refunds. Amounts are BIGINT minor units (read as numbers: model-kit).

export type PaymentStatus =
  'processing' | 'requires_action' | 'requires_capture' | 'captured' | 'failed' | 'voided' | 'refunded' | 'partially_refunded';

export interface PaymentCard {
  brand: string;
  last4: string;
  bin: string;
  expMonth: number;
  expYear: number;
  fingerprint: string;
  country: string | null;
  holderName: string | null;
}

export interface PaymentRow extends Timestamps {
  id: string;
  tenantId: string;
  merchantId: string;
  livemode: boolean;
  checkoutSessionId: string | null;
  status: PaymentStatus;
  currency: string;
  amountMinor: number;
  authorizedMinor: number;
  capturedMinor: number;
  refundedMinor: number;
  /** refunds created and not yet final: they count against the refundable amount */
  refundPendingMinor: number;
  /** what the payment's open and lost disputes took: never refundable (src/services/disputes) */
  disputedMinor: number;
  feeMinor: number;
  netMinor: number;
  captureMethod: 'automatic' | 'manual';
  merchantReference: string | null;
  paymentMethodType: string;
  card: PaymentCard | null;
  /** the card's brand, a column of its own for limit and risk queries */
  cardBrand: string | null;
  terminalId: string | null;
  providerIntegrationId: string | null;
  channelId: string | null;
  partnerId: string | null;
  providerReference: string | null;
  /** the provider's own status of the current attempt (tenant-level detail) */
  providerStatus: string | null;
  action: { type: 'redirect'; url: string; data?: Record<string, unknown> } | null;
  errorCode: string | null;
  errorMessage: string | null;
  approved: boolean | null;
  threeDSResult: ThreeDsResult | null;
  metadata: Record<string, string>;
  routingDecision: Record<string, unknown> | null;
  feeBreakdown: Record<string, unknown> | null;
  fundsAvailableImmediately: boolean;
  /** the attempt the provider is working on (its id is the connector reference) */
  currentAttemptId: string | null;
  /** where the customer returns after a 3DS challenge */
  returnUrl: string | null;
  /**
   * The card (number and expiry, never the cvc) sealed with the master key while the payment may still need another
   * attempt (cascading); wiped when the payment leaves processing.
   */
  cardVault: string | null;
  /** the risk engine's decision before routing (tenant-level detail); null for payments taken before risk existed */
  riskDecision: Record<string, unknown> | null;
  /** identifiers risk aggregations count by, as indexed columns of their own */
  cardFingerprint: string | null;
  customerEmail: string | null;
  customerIp: string | null;
  customerReference: string | null;
  /**
   * A capture or void recorded before its provider is called (the claim: a second one is 409); cleared when the
   * answer is applied. Internal: never part of the payment record.
   */
  pendingOperation: PendingPaymentOperation | null;
  /** the lease of pendingOperation: past it, the recovery job finishes the operation */
  pendingOperationUntil: Date | null;
  /** the acquirer's own decline or error code of the current attempt (ConnectorResult.rawCode; errorCode is ours) */
  providerDeclineCode: string | null;
  /** why the last capture or cancel did not happen when nobody was answered (abandoned after its tries, refused in a notification) */
  lastOperationError: string | null;
}

export interface PendingPaymentOperation {
  id: string;
  kind: 'capture' | 'void';
  /** capture: the amount asked for */
  amountMinor?: number;
  /** who asked (the audit entry of the outcome names them, also when recovery applies it) */
  actor: { type: 'api_key' | 'user' | 'system' | 'checkout_session'; id: string; name?: string };
  requestedAt: string;
  /** the reference the operation is sent with (its id; absent on operations recorded before: the payment id) */
  reference?: string;
  /** when the provider accepted it for later (an asynchronous capture or cancel): its notification settles it */
  acceptedAt?: string;
  /** the recovery job's tries of an operation whose call could not even start, and the last reason */
  tries?: number;
  lastError?: string;
}

/** A late approval's void: none needed, pending (to send, or sent and awaiting the provider's notification), done, failed (given up). */
export type LateVoidStatus = 'none' | 'pending' | 'done' | 'failed';

export interface PaymentAttemptRow {
  id: string;
  tenantId: string;
  merchantId: string;
  livemode: boolean;
  paymentId: string;
  sequence: number;
  terminalId: string;
  providerIntegrationId: string;
  status: 'pending' | 'requires_action' | 'succeeded' | 'declined' | 'failed';
  providerReference: string | null;
  declineCode: string | null;
  /** the acquirer's own decline or error code (ConnectorResult.rawCode) */
  providerDeclineCode: string | null;
  message: string | null;
  /** the void of an approval that came after its payment was canceled or given up (src/services/payments/engine.ts) */
  lateVoidStatus: LateVoidStatus;
  lateVoidTries: number;
  lateVoidNextAt: Date | null;
  lateVoidError: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface LineItem {
  id?: string;
  productId?: string;
  label: string;
  description?: string;
  imageUrl?: string;
  unitAmount: Money;
  quantity: number;
  taxRate?: number;
  taxAmount?: Money;
  metadata?: Record<string, string>;
}

export interface RefundRow extends Timestamps {
  id: string;
  tenantId: string;
  merchantId: string;
  livemode: boolean;
  paymentId: string;
  status: 'pending' | 'succeeded' | 'failed';
  currency: string;
  amountMinor: number;
  reason: string | null;
  merchantReference: string | null;
  statusReason: string | null;
  items: LineItem[];
  metadata: Record<string, string>;
  providerReference: string | null;
  /** the acquirer's own code of a refused refund (ConnectorResult.rawCode) */
  providerDeclineCode: string | null;
  /** the fee charged for the refund, when a schedule has refund rules */
  feeBreakdown: Record<string, unknown> | null;
  /**
   * a keyed digest of the caller's idempotency scope and the Idempotency-Key of the request that asked for it (a
   * retry finds it by the key: one refund per caller's key and payment)
   */
  idempotencyKey: string | null;
  /** a keyed digest of that request, so that another request under the same key is refused */
  idempotencyFingerprint: string | null;
}

export interface PaymentModels {
  Payment: RowModel<PaymentRow>;
  PaymentAttempt: RowModel<PaymentAttemptRow>;
  Refund: RowModel<RefundRow>;
}

const BIG = BIGINT;
const scope = { tenant: 'tenantId', merchant: 'merchantId', mode: 'livemode' } as const;

export function definePaymentModels(sequelize: Sequelize): PaymentModels {
  return {
    Payment: define<PaymentRow>(
      sequelize,
      'Payment',
      'payments',
      {
        id: pk,
        tenantId: UUID,
        merchantId: UUID,
        livemode: BOOLEAN,
        checkoutSessionId: UUID,
        status: STRING,
        currency: STRING,
        amountMinor: BIG,
        authorizedMinor: BIG,
        capturedMinor: BIG,
        refundedMinor: BIG,
        refundPendingMinor: BIG,
        disputedMinor: BIG,
        feeMinor: BIG,
        netMinor: BIG,
        captureMethod: STRING,
        merchantReference: STRING,
        paymentMethodType: STRING,
        card: JSONT,
        cardBrand: STRING,
        terminalId: UUID,
        providerIntegrationId: UUID,
        channelId: UUID,
        partnerId: UUID,
        providerReference: STRING,
        providerStatus: STRING,
        action: JSONT,
        errorCode: STRING,
        errorMessage: TEXT,
        approved: BOOLEAN,
        threeDSResult: JSONT,
        metadata: JSONT,
        routingDecision: JSONT,
        feeBreakdown: JSONT,
        fundsAvailableImmediately: BOOLEAN,
        currentAttemptId: UUID,
        returnUrl: TEXT,
        cardVault: TEXT,
        riskDecision: JSONT,
        cardFingerprint: STRING,
        customerEmail: STRING,
        customerIp: STRING,
        customerReference: STRING,
        pendingOperation: JSONT,
        pendingOperationUntil: DATE,
        providerDeclineCode: STRING,
        lastOperationError: TEXT,
        ...stamps,
      },
      { resource: 'payment', ...scope },
    ),
    PaymentAttempt: define<PaymentAttemptRow>(
      sequelize,
      'PaymentAttempt',
      'payment_attempts',
      {
        id: pk,
        tenantId: UUID,
        merchantId: UUID,
        livemode: BOOLEAN,
        paymentId: UUID,
        sequence: INTEGER,
        terminalId: UUID,
        providerIntegrationId: UUID,
        status: STRING,
        providerReference: STRING,
        declineCode: STRING,
        providerDeclineCode: STRING,
        message: TEXT,
        lateVoidStatus: STRING,
        lateVoidTries: INTEGER,
        lateVoidNextAt: DATE,
        lateVoidError: TEXT,
        createdAt: DATE,
        updatedAt: DATE,
      },
      { resource: 'payment attempt', ...scope, softDelete: false },
    ),
    Refund: define<RefundRow>(
      sequelize,
      'Refund',
      'refunds',
      {
        id: pk,
        tenantId: UUID,
        merchantId: UUID,
        livemode: BOOLEAN,
        paymentId: UUID,
        status: STRING,
        currency: STRING,
        amountMinor: BIG,
        reason: STRING,
        merchantReference: STRING,
        statusReason: TEXT,
        items: JSONT,
        metadata: JSONT,
        providerReference: STRING,
        providerDeclineCode: STRING,
        feeBreakdown: JSONT,
        idempotencyKey: STRING,
        idempotencyFingerprint: STRING,
        ...stamps,
      },
      { resource: 'refund', ...scope },
    ),
  };
}
