import type { Sequelize } from 'sequelize';
import { define, pk, stamps, UUID, STRING, TEXT, JSONT, BOOLEAN, DATE, BIGINT, type RowModel, type Timestamps } from '../model-kit';
import type { LineItem } from './payments';
import type { Money } from '../../domain/money';

// Checkout sessions: what a customer is asked to pay (amount, line items, fulfillment), the hosted page's
// address, and the state of the payment made through it. Amounts are BIGINT minor units (read as numbers:
// model-kit).

export type CheckoutSessionStatus = 'open' | 'complete' | 'expired';

/** A line item as a checkout session keeps it: the payment's line item, always with its id. */
export type CheckoutLineItem = LineItem & { id: string };

export interface CheckoutTotal {
  type: 'subtotal' | 'tax' | 'fulfillment' | 'total';
  displayText: string;
  amount: Money;
  description?: string;
}

export interface CheckoutFulfillmentOption {
  id: string;
  type: string;
  title: string;
  description?: string;
  price: Money;
  estimatedDelivery?: { earliest?: string; latest?: string };
}

export interface CheckoutSelectedFulfillment {
  fulfillmentOptionId: string;
  type: string;
  title: string;
  price: Money;
}

export interface CheckoutSessionRow extends Timestamps {
  id: string;
  tenantId: string;
  merchantId: string;
  livemode: boolean;
  status: CheckoutSessionStatus;
  /** the status of the session's latest payment (follows the payment), null before the first */
  paymentStatus: string | null;
  paymentId: string | null;
  currency: string;
  amountMinor: number;
  captureMethod: 'automatic' | 'manual';
  merchantName: string;
  tenantName: string;
  merchantReference: string | null;
  locale: string | null;
  providerCheckoutId: string | null;
  termsUrl: string | null;
  privacyUrl: string | null;
  /** the hosted page without its key (the key is the client secret, shown once) */
  url: string;
  successUrl: string | null;
  cancelUrl: string | null;
  lineItems: CheckoutLineItem[];
  totals: CheckoutTotal[];
  fulfillmentOptions: CheckoutFulfillmentOption[];
  selectedFulfillment: CheckoutSelectedFulfillment | null;
  customerInfo: Record<string, unknown> | null;
  agenticContext: Record<string, unknown> | null;
  /** the payin channel the payment goes through (routing conditions, channel limits and fees), when named */
  channelId: string | null;
  metadata: Record<string, string>;
  /** sha256 of the client secret; the secret itself is never stored */
  clientSecretHash: string;
  expiresAt: Date;
  completedAt: Date | null;
  expiredAt: Date | null;
}

export interface CheckoutModels {
  CheckoutSession: RowModel<CheckoutSessionRow>;
}

export function defineCheckoutModels(sequelize: Sequelize): CheckoutModels {
  return {
    CheckoutSession: define<CheckoutSessionRow>(
      sequelize,
      'CheckoutSession',
      'checkout_sessions',
      {
        id: pk,
        tenantId: UUID,
        merchantId: UUID,
        livemode: BOOLEAN,
        status: STRING,
        paymentStatus: STRING,
        paymentId: UUID,
        currency: STRING,
        amountMinor: BIGINT,
        captureMethod: STRING,
        merchantName: TEXT,
        tenantName: TEXT,
        merchantReference: STRING,
        locale: STRING,
        providerCheckoutId: STRING,
        termsUrl: TEXT,
        privacyUrl: TEXT,
        url: TEXT,
        successUrl: TEXT,
        cancelUrl: TEXT,
        lineItems: JSONT,
        totals: JSONT,
        fulfillmentOptions: JSONT,
        selectedFulfillment: JSONT,
        customerInfo: JSONT,
        agenticContext: JSONT,
        channelId: UUID,
        metadata: JSONT,
        clientSecretHash: STRING,
        expiresAt: DATE,
        completedAt: DATE,
        expiredAt: DATE,
        ...stamps,
      },
      { resource: 'checkout session', tenant: 'tenantId', merchant: 'merchantId', mode: 'livemode' },
    ),
  };
}
