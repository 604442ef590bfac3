import crypto from 'node:crypto';
import type Stripe from 'stripe';
import {
  ConnectorError,
  type ActionReturnRequest,
  type AuthorizeRequest,
  type CaptureRequest,
  type Connector,
  type ConnectorEnv,
  type ConnectorResult,
  type ConnectorTerminal,
  type CredentialProblem,
  type DisputeAcceptRequest,
  type DisputeEvidenceRequest,
  type LookupRequest,
  type NotificationRequest,
  type ParsedNotification,
  type PayoutRequest,
  type RefundRequest,
  type VoidRequest,
} from '../types';
import { stripeClient } from './client';
import { checkStripeCredentials } from './credentials';
import { EVIDENCE_TO_STRIPE, toStripe } from './codes';
import { parseStripeNotification } from './notifications';
import { fromCancel, fromCapture, fromPaymentIntent, fromRefund, fromStripeError, isMissing } from './results';

/**
 * The Stripe acquirer (provider code `stripe`), on the official `stripe` library: PaymentIntents confirmed at once
 * with the card's details (manual or automatic capture), 3DS by redirect (Stripe's page, back to our return page),
 * captures, cancels, refunds, disputes; notifications checked with the terminal's webhook signing secret.
 *
 * Every call carries our reference as Stripe's idempotency key (prefixed per operation: Stripe scopes a key to one
 * request) and, where Stripe keeps metadata, as `metadata.payplane_reference`: a call sent again with the same
 * reference is answered with the first answer, and a lost answer is found again by a look-up by that reference.
 */
export class StripeConnector implements Connector {
  readonly kind = 'stripe';

  async authorize(env: ConnectorEnv, terminal: ConnectorTerminal, request: AuthorizeRequest): Promise<ConnectorResult> {
    refuseMode(terminal, request.livemode);
    const stripe = stripeClient(env.config, terminal);
    const card = request.paymentMethod.card;
    if (request.paymentMethod.type !== 'card' || !card) {
      return {
        status: 'declined',
        providerReference: null,
        declineCode: 'card_not_supported',
        message: `Stripe terminals take card payments only, not ${request.paymentMethod.type}.`,
      };
    }
    const returnUrl = request.actionReturnUrl ?? request.returnUrl;
    const params: Stripe.PaymentIntentCreateParams = {
      ...toStripe(request.amount),
      allowed_payment_method_types: ['card'],
      payment_method_data: {
        type: 'card',
        card: { number: card.number, exp_month: card.expMonth, exp_year: card.expYear, ...(card.cvc ? { cvc: card.cvc } : {}) },
        ...(card.holderName ? { billing_details: { name: card.holderName } } : {}),
      } as Stripe.PaymentIntentCreateParams.PaymentMethodData,
      confirm: true,
      capture_method: request.capture ? 'automatic' : 'manual',
      ...(returnUrl ? { return_url: returnUrl } : {}),
      metadata: { payplane_reference: request.reference, payplane_tenant: request.tenantId },
      payment_method_options: { card: { request_three_d_secure: request.forceThreeDsChallenge ? 'challenge' : 'automatic' } },
      expand: ['latest_charge'],
    };
    return call('authorize', async () =>
      fromPaymentIntent(await stripe.paymentIntents.create(params, { idempotencyKey: idempotencyKey('authorize', request.reference) })),
    );
  }

  async capture(env: ConnectorEnv, terminal: ConnectorTerminal, request: CaptureRequest): Promise<ConnectorResult> {
    const stripe = stripeClient(env.config, terminal);
    const { amount } = toStripe(request.amount);
    return call('capture', async () =>
      fromCapture(
        await stripe.paymentIntents.capture(
          request.providerReference,
          { amount_to_capture: amount },
          { idempotencyKey: idempotencyKey('capture', request.reference) },
        ),
      ),
    );
  }

  async void(env: ConnectorEnv, terminal: ConnectorTerminal, request: VoidRequest): Promise<ConnectorResult> {
    const stripe = stripeClient(env.config, terminal);
    return call('void', async () =>
      fromCancel(
        await stripe.paymentIntents.cancel(request.providerReference, {}, { idempotencyKey: idempotencyKey('void', request.reference) }),
      ),
    );
  }

  async refund(env: ConnectorEnv, terminal: ConnectorTerminal, request: RefundRequest): Promise<ConnectorResult> {
    refuseMode(terminal, request.livemode);
    const stripe = stripeClient(env.config, terminal);
    const { amount } = toStripe(request.amount);
    return call('refund', async () =>
      fromRefund(
        await stripe.refunds.create(
          { payment_intent: request.providerReference, amount, metadata: { payplane_reference: request.reference } },
          { idempotencyKey: idempotencyKey('refund', request.reference) },
        ),
      ),
    );
  }

  async payout(_env: ConnectorEnv, _terminal: ConnectorTerminal, _request: PayoutRequest): Promise<ConnectorResult> {
    throw new ConnectorError('Stripe terminals take card payments only: they make no payouts', false);
  }

  async disputeEvidence(env: ConnectorEnv, terminal: ConnectorTerminal, request: DisputeEvidenceRequest): Promise<ConnectorResult> {
    refuseMode(terminal, request.livemode);
    const stripe = stripeClient(env.config, terminal);
    const evidence: Record<string, string> = {};
    const other: string[] = [];
    for (const [field, value] of Object.entries(request.evidence)) {
      if (!value) continue;
      const theirs = EVIDENCE_TO_STRIPE[field];
      if (theirs) evidence[theirs] = value;
      else other.push(`${field}: ${value}`);
    }
    if (other.length) evidence.uncategorized_text = [evidence.uncategorized_text, ...other].filter(Boolean).join('\n');
    // the same evidence sent again is answered as the first time; other evidence (after a refusal) is a new request
    const digest = crypto.createHash('sha256').update(JSON.stringify(evidence)).digest('hex').slice(0, 16);
    return call('dispute evidence', async () => {
      const dispute = await stripe.disputes.update(
        request.providerReference,
        { evidence: evidence as Stripe.DisputeUpdateParams.Evidence, submit: true, metadata: { payplane_reference: request.reference } },
        { idempotencyKey: idempotencyKey('dispute-evidence', `${request.reference}-${digest}`) },
      );
      // Stripe's decision comes as charge.dispute.closed
      return { status: 'pending', providerReference: dispute.id, rawStatus: dispute.status, message: 'Evidence submitted.' };
    });
  }

  async disputeAccept(env: ConnectorEnv, terminal: ConnectorTerminal, request: DisputeAcceptRequest): Promise<ConnectorResult> {
    refuseMode(terminal, request.livemode);
    const stripe = stripeClient(env.config, terminal);
    return call('dispute accept', async () => {
      const dispute = await stripe.disputes.close(
        request.providerReference,
        {},
        { idempotencyKey: idempotencyKey('dispute-accept', request.reference) },
      );
      return { status: 'succeeded', providerReference: dispute.id, rawStatus: dispute.status, message: 'Dispute accepted.' };
    });
  }

  async lookup(env: ConnectorEnv, terminal: ConnectorTerminal, request: LookupRequest): Promise<ConnectorResult | null> {
    refuseMode(terminal, request.livemode);
    const stripe = stripeClient(env.config, terminal);
    try {
      switch (request.operation) {
        case 'authorize': {
          const pi = (await searched(stripe, request.reference)) ?? (await recentlyCreated(stripe, request.reference));
          return pi ? fromPaymentIntent(pi) : null;
        }
        case 'capture': {
          if (!request.providerReference) return null;
          const pi = await stripe.paymentIntents.retrieve(request.providerReference);
          // still capturable (or never authorized): the capture never reached Stripe
          if (pi.status === 'requires_capture' || pi.status === 'requires_action' || pi.status === 'requires_payment_method') return null;
          return fromCapture(pi);
        }
        case 'void': {
          if (!request.providerReference) return null;
          const pi = await stripe.paymentIntents.retrieve(request.providerReference);
          if (pi.status === 'requires_capture' || pi.status === 'requires_action' || pi.status === 'requires_payment_method') return null;
          return fromCancel(pi);
        }
        case 'refund': {
          if (!request.providerReference) return null;
          const refunds = await stripe.refunds.list({ payment_intent: request.providerReference, limit: 100 });
          const refund = refunds.data.find((r) => r.metadata?.payplane_reference === request.reference);
          return refund ? fromRefund(refund) : null;
        }
      }
    } catch (error) {
      if (isMissing(error)) return null;
      const answer = fromStripeError(error, `look-up of ${request.operation}`);
      // Stripe refused the look-up itself (not an answer about the operation)
      throw new ConnectorError(`Stripe refused the look-up of ${request.operation}: ${answer.rawCode ?? answer.status}`, false);
    }
  }

  async completeAction(env: ConnectorEnv, terminal: ConnectorTerminal, request: ActionReturnRequest): Promise<ConnectorResult> {
    refuseMode(terminal, request.livemode);
    const stripe = stripeClient(env.config, terminal);
    // the first answer's PaymentIntent; the return's query names one only when we had none (it is the customer's input)
    const id = request.providerReference ?? request.params.payment_intent;
    if (!id || !/^pi_[A-Za-z0-9_]+$/.test(id)) throw new ConnectorError('the return from Stripe names no PaymentIntent', false);
    return call('complete action', async () => {
      const pi = await stripe.paymentIntents.retrieve(id, { expand: ['latest_charge'] });
      if (pi.metadata?.payplane_reference !== request.reference) {
        throw new ConnectorError(`PaymentIntent ${id} is not the one of attempt ${request.reference}`, false);
      }
      return fromPaymentIntent(pi);
    });
  }

  async parseNotification(_env: ConnectorEnv, terminal: ConnectorTerminal, request: NotificationRequest): Promise<ParsedNotification> {
    return parseStripeNotification(terminal, request);
  }

  checkCredentials(credentials: Record<string, string>, livemode: boolean): CredentialProblem | null {
    return checkStripeCredentials(credentials, livemode);
  }
}

/** A live payment never goes through a sandbox terminal (its key is a test key: nothing would be charged). */
function refuseMode(terminal: ConnectorTerminal, livemode: boolean): void {
  if (livemode && !terminal.livemode) {
    throw new ConnectorError(`terminal ${terminal.terminalId} is a sandbox terminal: it takes no live operation`, false);
  }
}

function idempotencyKey(operation: string, reference: string): string {
  return `payplane-${operation}-${reference}`;
}

/** How far back, and how many, of the latest PaymentIntents a look-up reads when Stripe's search has not found one. */
const RECENT_SECONDS = 3600;
const RECENT_MAX = 500;

/** The attempt's PaymentIntent by Stripe's search of our reference in its metadata. */
async function searched(stripe: Stripe, reference: string): Promise<Stripe.PaymentIntent | undefined> {
  const found = await stripe.paymentIntents.search({ query: `metadata['payplane_reference']:'${quoted(reference)}'`, limit: 10 });
  return found.data.find((p) => p.metadata?.payplane_reference === reference);
}

/**
 * Stripe's search is not read-after-write (a PaymentIntent is searchable within about a minute, later during an
 * incident): the look-up of a lost answer, minutes after the call, also reads the PaymentIntents created in the last
 * hour through the list API, which is (at most RECENT_MAX of them, the latest first).
 */
async function recentlyCreated(stripe: Stripe, reference: string): Promise<Stripe.PaymentIntent | undefined> {
  // Stripe's clock, not the platform's (an injected clock in tests): the window is about Stripe's `created`
  const since = Math.floor(Date.now() / 1000) - RECENT_SECONDS;
  let read = 0;
  for await (const pi of stripe.paymentIntents.list({ created: { gte: since }, limit: 100 })) {
    if (pi.metadata?.payplane_reference === reference) return pi;
    if (++read >= RECENT_MAX) break;
  }
  return undefined;
}

/** A value inside a single-quoted Stripe search string. */
function quoted(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/'/g, "\\'");
}

/** Runs a Stripe call: its answer, or the meaning of its error (fromStripeError). */
async function call(operation: string, run: () => Promise<ConnectorResult>): Promise<ConnectorResult> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ConnectorError) throw error;
    return fromStripeError(error, operation);
  }
}
