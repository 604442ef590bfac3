import Stripe from 'stripe';
import {
  NotificationRejected,
  type ConnectorTerminal,
  type NotificationItem,
  type NotificationRequest,
  type ParsedNotification,
} from '../types';
import { fromStripe, ourDisputeReason } from './codes';
import { fromPaymentIntent, fromRefund } from './results';

/** How old a signed event may be (Stripe's own default tolerance, seconds). */
const TOLERANCE_SECONDS = 300;

const REPLY = { status: 200, contentType: 'application/json', body: JSON.stringify({ received: true }) };

const idOf = (value: string | { id: string } | null | undefined): string | null =>
  typeof value === 'string' ? value : value && typeof value === 'object' ? value.id : null;

/** Our reference as the call put it in Stripe's metadata. */
const referenceOf = (metadata: Stripe.Metadata | null | undefined): string | null => metadata?.payplane_reference ?? null;

/**
 * Checks a Stripe webhook (its Stripe-Signature header against the terminal's webhookSigningSecret, within Stripe's
 * tolerance) and reads its one event into items. Any failure of the check is NotificationRejected: nothing is read.
 */
export function parseStripeNotification(terminal: ConnectorTerminal, request: NotificationRequest): ParsedNotification {
  const secret = terminal.credentials.webhookSigningSecret;
  if (!secret) throw new NotificationRejected('the terminal has no Stripe webhookSigningSecret');
  const signature = request.headers['stripe-signature'];
  if (!signature) throw new NotificationRejected('the Stripe-Signature header is missing');
  let event: Stripe.Event;
  try {
    event = Stripe.webhooks.constructEvent(request.rawBody, signature, secret, TOLERANCE_SECONDS);
  } catch (error) {
    throw new NotificationRejected(`the Stripe signature does not verify: ${(error as Error).message}`);
  }
  if (!event || typeof event.id !== 'string' || typeof event.type !== 'string' || !event.data?.object) {
    throw new NotificationRejected('the body is not a Stripe event');
  }
  if (Boolean(event.livemode) !== terminal.livemode) {
    throw new NotificationRejected(
      `a ${event.livemode ? 'live' : 'test'} event reached a ${terminal.livemode ? 'live' : 'sandbox'} terminal`,
    );
  }
  return { items: [itemOf(event)], reply: REPLY };
}

function itemOf(event: Stripe.Event): NotificationItem {
  const head = { eventId: event.id, type: event.type };
  const object = event.data.object as unknown as Record<string, unknown>;
  switch (event.type) {
    case 'payment_intent.succeeded':
    case 'payment_intent.amount_capturable_updated':
    case 'payment_intent.payment_failed': {
      const pi = object as unknown as Stripe.PaymentIntent;
      const result = fromPaymentIntent(pi);
      // an event is final by its type: a PaymentIntent read later may have moved on (captured, canceled)
      if (event.type !== 'payment_intent.payment_failed' && result.status !== 'succeeded') break;
      if (event.type === 'payment_intent.payment_failed' && result.status !== 'declined' && result.status !== 'failed') break;
      return { ...head, kind: 'outcome', operation: 'authorize', reference: referenceOf(pi.metadata), providerReference: pi.id, result };
    }
    case 'payment_intent.canceled': {
      const pi = object as unknown as Stripe.PaymentIntent;
      return {
        ...head,
        kind: 'outcome',
        operation: 'void',
        // a cancel carries no metadata of its own: the void is found by the authorization's reference
        reference: null,
        providerReference: pi.id,
        paymentProviderReference: pi.id,
        result: { status: 'succeeded', providerReference: pi.id, rawStatus: pi.status, rawCode: pi.cancellation_reason ?? undefined },
      };
    }
    case 'charge.captured': {
      const charge = object as unknown as Stripe.Charge;
      const pi = idOf(charge.payment_intent);
      if (!pi || !charge.captured) break;
      return {
        ...head,
        kind: 'outcome',
        operation: 'capture',
        reference: null,
        providerReference: pi,
        paymentProviderReference: pi,
        result: { status: 'succeeded', providerReference: pi, rawStatus: 'captured', message: 'Captured.' },
      };
    }
    case 'refund.created':
    case 'refund.updated':
    case 'refund.failed':
    case 'charge.refund.updated': {
      const refund = object as unknown as Stripe.Refund;
      const result = fromRefund(refund);
      if (result.status === 'pending') break;
      return {
        ...head,
        kind: 'outcome',
        operation: 'refund',
        reference: referenceOf(refund.metadata),
        providerReference: refund.id,
        paymentProviderReference: idOf(refund.payment_intent) ?? undefined,
        result,
      };
    }
    case 'charge.dispute.created': {
      const dispute = object as unknown as Stripe.Dispute;
      const pi = idOf(dispute.payment_intent);
      const due = dispute.evidence_details?.due_by;
      if (!pi || !due) break;
      return {
        ...head,
        kind: 'dispute',
        notice: {
          type: 'opened',
          paymentProviderReference: pi,
          providerReference: dispute.id,
          amount: fromStripe(dispute.amount, dispute.currency),
          reason: ourDisputeReason(dispute.reason),
          evidenceDueBy: new Date(due * 1000).toISOString(),
        },
      };
    }
    case 'charge.dispute.closed': {
      const dispute = object as unknown as Stripe.Dispute;
      const outcome = disputeOutcome(dispute.status);
      if (!outcome) break;
      return { ...head, kind: 'dispute', notice: { type: 'decided', providerReference: dispute.id, outcome } };
    }
  }
  return { ...head, kind: 'ignored' };
}

/** A closed dispute's outcome: won (an inquiry closed without a chargeback is won), lost; other statuses are not final. */
function disputeOutcome(status: string): 'won' | 'lost' | null {
  switch (status) {
    case 'won':
    case 'warning_closed':
    case 'prevented':
      return 'won';
    case 'lost':
      return 'lost';
    default:
      return null;
  }
}
