import { minorUnits, type Money } from '../../domain/money';

/**
 * Stripe's codes and amounts read into ours. Stripe answers a decline with `code` (card_declined, expired_card,
 * incorrect_cvc …) and, for card_declined, a `decline_code` (generic_decline, insufficient_funds, lost_card …); both
 * are mapped to our decline codes, and the acquirer's own is kept as rawCode.
 */

const DECLINE_CODES: Readonly<Record<string, string>> = {
  // decline_code values (https://docs.stripe.com/declines/codes)
  generic_decline: 'card_declined',
  card_declined: 'card_declined',
  call_issuer: 'card_declined',
  card_velocity_exceeded: 'card_declined',
  withdrawal_count_limit_exceeded: 'card_declined',
  not_permitted: 'card_declined',
  restricted_card: 'card_declined',
  revocation_of_authorization: 'card_declined',
  revocation_of_all_authorizations: 'card_declined',
  security_violation: 'card_declined',
  service_not_allowed: 'card_declined',
  stop_payment_order: 'card_declined',
  transaction_not_allowed: 'card_declined',
  no_action_taken: 'card_declined',
  new_account_information_available: 'card_declined',
  try_again_later: 'card_declined',
  pickup_card: 'card_declined',
  approve_with_id: 'card_declined',
  reenter_transaction: 'processing_error',
  insufficient_funds: 'insufficient_funds',
  lost_card: 'lost_card',
  stolen_card: 'stolen_card',
  expired_card: 'expired_card',
  incorrect_cvc: 'incorrect_cvc',
  invalid_cvc: 'incorrect_cvc',
  processing_error: 'processing_error',
  issuer_not_available: 'processing_error',
  card_not_supported: 'card_not_supported',
  currency_not_supported: 'card_not_supported',
  invalid_account: 'card_not_supported',
  authentication_required: 'authentication_failed',
  authentication_failed: 'authentication_failed',
  payment_intent_authentication_failure: 'authentication_failed',
  do_not_honor: 'do_not_honor',
  do_not_try_again: 'do_not_honor',
  fraudulent: 'fraudulent',
  merchant_blacklist: 'fraudulent',
  highest_risk_level: 'fraudulent',
  // code values of card errors without a decline_code
  incorrect_number: 'card_declined',
  invalid_number: 'card_declined',
  invalid_expiry_month: 'expired_card',
  invalid_expiry_year: 'expired_card',
  incorrect_zip: 'card_declined',
};

/** Our decline code of Stripe's decline_code or code (unknown: card_declined). */
export function ourDeclineCode(declineCode: string | null | undefined, code: string | null | undefined): string {
  // a decline_code is the precise one; generic_decline says no more than code
  for (const candidate of [declineCode, code]) {
    if (candidate && candidate !== 'generic_decline' && DECLINE_CODES[candidate]) return DECLINE_CODES[candidate];
  }
  return 'card_declined';
}

/**
 * Currencies Stripe amounts in two decimals although they have none (ISK, UGX) or none in practice (HUF): the amount
 * sent is our minor units times 100 (https://docs.stripe.com/currencies#special-cases).
 */
const TWO_DECIMAL_AT_STRIPE = new Set(['ISK', 'UGX', 'HUF']);

function factor(currency: string): number {
  const ours = minorUnits(currency);
  const theirs = TWO_DECIMAL_AT_STRIPE.has(currency) ? 2 : ours;
  return 10 ** (theirs - ours);
}

/** Our amount as Stripe takes it: an integer in its unit of the (lower-case) currency. */
export function toStripe(amount: Money): { amount: number; currency: string } {
  return { amount: amount.valueMinor * factor(amount.currency), currency: amount.currency.toLowerCase() };
}

/** Stripe's amount (and lower-case currency) as our Money. */
export function fromStripe(amount: number, currency: string): Money {
  const upper = currency.toUpperCase();
  return { currency: upper, valueMinor: Math.round(amount / factor(upper)) };
}

/** Stripe's dispute reasons in ours. */
export function ourDisputeReason(reason: string | null | undefined): string {
  switch (reason) {
    case 'fraudulent':
    case 'unrecognized':
      return 'fraudulent';
    case 'product_not_received':
      return 'product_not_received';
    case 'product_unacceptable':
      return 'product_unacceptable';
    case 'duplicate':
      return 'duplicate';
    case 'credit_not_processed':
    case 'subscription_canceled':
      return 'credit_not_processed';
    default:
      return 'general';
  }
}

/** Our evidence fields in Stripe's dispute evidence (text fields only: files are not sent). */
export const EVIDENCE_TO_STRIPE: Readonly<Record<string, string>> = {
  productDescription: 'product_description',
  customerName: 'customer_name',
  customerEmail: 'customer_email_address',
  shippingTrackingNumber: 'shipping_tracking_number',
  refundPolicy: 'refund_policy_disclosure',
  uncategorizedText: 'uncategorized_text',
};
