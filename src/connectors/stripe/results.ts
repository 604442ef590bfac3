import type Stripe from 'stripe';
import { ConnectorError, type ConnectorResult, type ThreeDsResult } from '../types';
import { ourDeclineCode } from './codes';

/** Stripe's objects and errors read into the connector's answers (nothing invented: what Stripe said, mapped). */

type LastError = Stripe.PaymentIntent.LastPaymentError;

function declinedBy(
  error: LastError | { code?: string | null; decline_code?: string | null; message?: string | null },
): Partial<ConnectorResult> {
  const rawCode = error.decline_code || error.code || undefined;
  return { declineCode: ourDeclineCode(error.decline_code, error.code), rawCode, message: error.message ?? 'The card was declined.' };
}

/** The 3DS record of the authorization's charge, when Stripe ran 3DS (latest_charge expanded). */
export function threeDsOf(pi: Stripe.PaymentIntent): ThreeDsResult | undefined {
  const charge = pi.latest_charge;
  if (!charge || typeof charge === 'string') return undefined;
  const secure = charge.payment_method_details?.card?.three_d_secure;
  if (!secure) return undefined;
  const authenticated = secure.result === 'authenticated' || secure.result === 'attempt_acknowledged' || secure.result === 'exempted';
  return {
    version: secure.version ?? '2.2.0',
    status: secure.result ?? 'unknown',
    statusReason: secure.result_reason ?? null,
    eci: secure.electronic_commerce_indicator ?? null,
    cavv: null,
    xid: null,
    dsTransId: secure.transaction_id ?? null,
    messageVersion: secure.version ?? null,
    enrolled: null,
    liabilityShift: authenticated,
    challengeFlow: secure.authentication_flow ?? null,
    challenged: secure.authentication_flow === 'challenge',
    challengeCancelled: false,
    exemptionApplied: secure.exemption_indicator ?? null,
  };
}

/** An authorization's PaymentIntent as our answer (its id is the authorization's provider reference). */
export function fromPaymentIntent(pi: Stripe.PaymentIntent): ConnectorResult {
  const base = { providerReference: pi.id, rawStatus: pi.status };
  const threeDSResult = threeDsOf(pi);
  const withThreeDs = threeDSResult ? { threeDSResult } : {};
  switch (pi.status) {
    case 'succeeded':
      return { ...base, status: 'succeeded', message: 'Captured.', ...withThreeDs };
    case 'requires_capture':
      return { ...base, status: 'succeeded', message: 'Authorized.', ...withThreeDs };
    case 'requires_action': {
      const next = pi.next_action;
      const url = next?.type === 'redirect_to_url' ? next.redirect_to_url?.url : undefined;
      if (url && /^https?:\/\//i.test(url)) return { ...base, status: 'requires_action', action: { type: 'redirect', url } };
      // an action only Stripe's client-side SDK can present: the customer cannot be sent to it from here
      return {
        ...base,
        status: 'failed',
        declineCode: 'processing_error',
        rawCode: next?.type ?? 'requires_action',
        message: `Stripe asked for an action this integration cannot present (${next?.type ?? 'none'}).`,
      };
    }
    case 'processing':
    case 'requires_confirmation':
      return { ...base, status: 'pending' };
    case 'requires_payment_method':
      if (pi.last_payment_error) return { ...base, status: 'declined', ...declinedBy(pi.last_payment_error), ...withThreeDs };
      return { ...base, status: 'failed', declineCode: 'processing_error', message: 'Stripe holds the payment unconfirmed.' };
    case 'canceled':
      return {
        ...base,
        status: 'failed',
        declineCode: 'processing_error',
        rawCode: pi.cancellation_reason ?? undefined,
        message: 'Stripe canceled the payment.',
      };
    default:
      return { ...base, status: 'pending' };
  }
}

/** A capture's answer: the PaymentIntent after it (succeeded: captured). */
export function fromCapture(pi: Stripe.PaymentIntent): ConnectorResult {
  if (pi.status === 'succeeded') return { status: 'succeeded', providerReference: pi.id, rawStatus: pi.status, message: 'Captured.' };
  if (pi.status === 'processing') return { status: 'pending', providerReference: pi.id, rawStatus: pi.status };
  return {
    status: 'failed',
    providerReference: pi.id,
    rawStatus: pi.status,
    declineCode: 'processing_error',
    message: `The Stripe payment is ${pi.status}: not captured.`,
  };
}

/** A cancel's answer: the PaymentIntent after it (canceled: voided). */
export function fromCancel(pi: Stripe.PaymentIntent): ConnectorResult {
  if (pi.status === 'canceled') return { status: 'succeeded', providerReference: pi.id, rawStatus: pi.status, message: 'Canceled.' };
  return {
    status: 'failed',
    providerReference: pi.id,
    rawStatus: pi.status,
    declineCode: 'processing_error',
    message: `The Stripe payment is ${pi.status}: not canceled.`,
  };
}

/** A refund's answer (its id, re_…, is the refund's provider reference). */
export function fromRefund(refund: Stripe.Refund): ConnectorResult {
  const base = { providerReference: refund.id, rawStatus: refund.status ?? 'unknown' };
  switch (refund.status) {
    case 'succeeded':
      return { ...base, status: 'succeeded', message: 'Refunded.' };
    case 'failed':
    case 'canceled':
      return {
        ...base,
        status: 'failed',
        declineCode: 'processing_error',
        rawCode: refund.failure_reason ?? refund.status,
        message: `Stripe ${refund.status === 'failed' ? 'could not refund' : 'canceled the refund'}${refund.failure_reason ? ` (${refund.failure_reason})` : ''}.`,
      };
    default:
      // pending, requires_action: the outcome comes by notification (refund.updated) or a look-up
      return { ...base, status: 'pending' };
  }
}

interface StripeErrorLike {
  type: string;
  code?: string;
  decline_code?: string;
  message: string;
  statusCode?: number;
  payment_intent?: Stripe.PaymentIntent;
}

export function isStripeError(error: unknown): error is StripeErrorLike {
  return error instanceof Error && typeof (error as { type?: unknown }).type === 'string' && 'rawType' in error;
}

export function isMissing(error: unknown): boolean {
  return (
    isStripeError(error) && error.type === 'StripeInvalidRequestError' && (error.statusCode === 404 || error.code === 'resource_missing')
  );
}

/**
 * What a Stripe error means for the call: a card decline or an invalid request is Stripe's answer (declined, failed:
 * never retried as is); a refused key, a forbidden call or a reused idempotency key cannot succeed by retrying
 * (ConnectorError, not retryable); a connection error, a timeout, a 5xx or a rate limit leaves the answer unknown
 * (ConnectorError, retryable: settled by a look-up or the notification). Anything else is rethrown (a defect).
 */
export function fromStripeError(error: unknown, operation: string): ConnectorResult {
  if (!isStripeError(error)) throw error;
  const pi = error.payment_intent;
  switch (error.type) {
    case 'StripeCardError':
      return {
        status: 'declined',
        providerReference: pi?.id ?? null,
        rawStatus: pi?.status ?? 'card_error',
        ...declinedBy(error),
      };
    case 'StripeInvalidRequestError':
      return {
        status: 'failed',
        providerReference: pi?.id ?? null,
        rawStatus: 'invalid_request_error',
        declineCode: 'processing_error',
        rawCode: error.code,
        message: error.message,
      };
    case 'StripeAuthenticationError':
      throw new ConnectorError(`Stripe ${operation}: the terminal's secret key was refused (authentication_error)`, false);
    case 'StripePermissionError':
      throw new ConnectorError(`Stripe ${operation}: the terminal's key may not make this call (permission_error)`, false);
    case 'StripeIdempotencyError':
      throw new ConnectorError(`Stripe ${operation}: our idempotency key was used with other parameters (${error.message})`, false);
    case 'StripeConnectionError':
      throw new ConnectorError(`Stripe ${operation}: no answer (${error.message})`, true);
    case 'StripeRateLimitError':
      throw new ConnectorError(`Stripe ${operation}: rate limited`, true);
    default:
      // StripeAPIError (5xx, 409 concurrent idempotent request) and any other: Stripe may have done it
      throw new ConnectorError(`Stripe ${operation}: answered ${error.statusCode ?? 'an error'} (${error.type})`, true);
  }
}
