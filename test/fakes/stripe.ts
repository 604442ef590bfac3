import crypto from 'node:crypto';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import qs from 'qs';
import Stripe from 'stripe';
import { testTls } from '../helpers/receiver';

/**
 * A local fake of Stripe's API (the parts the Stripe connector uses), speaking its documented wire format: HTTPS,
 * form-encoded bodies with nested `a[b][c]` keys, `Authorization: Bearer sk_…`, `Idempotency-Key` (the same key and
 * body replay the first answer with `Idempotent-Replayed: true`; the same key with another body is 400
 * idempotency_error), Stripe's error object (402 for card errors), PaymentIntents (create confirmed, retrieve,
 * capture, cancel, search by metadata), refunds, disputes, a 3DS challenge page, and signed webhook events.
 *
 * Test cards are Stripe's documented numbers (https://docs.stripe.com/testing). Every request is recorded; tests can
 * drop or hold the next answer (carried out, never or later answered: a lost answer), answer an error once, and
 * decide disputes.
 */

type Obj = Record<string, any>;

export interface FakeRequest {
  method: string;
  path: string;
  /** the parsed form body (POST) or query (GET) */
  params: Obj;
  idempotencyKey?: string;
  /** answered from the idempotency store */
  replayed: boolean;
  status?: number;
}

interface Answer {
  status: number;
  body: unknown;
}

type Scenario =
  { kind: 'approve'; dispute?: boolean } | { kind: 'challenge' } | { kind: 'decline'; code: string; declineCode: string; message: string };

const DECLINE = (code: string, declineCode: string, message: string): Scenario => ({ kind: 'decline', code, declineCode, message });

export const STRIPE_TEST_CARDS: Readonly<Record<string, Scenario>> = {
  '4242424242424242': { kind: 'approve' },
  '5555555555554444': { kind: 'approve' },
  '4000000000000002': DECLINE('card_declined', 'generic_decline', 'Your card was declined.'),
  '4000000000009995': DECLINE('card_declined', 'insufficient_funds', 'Your card has insufficient funds.'),
  '4000000000009987': DECLINE('card_declined', 'lost_card', 'Your card was declined.'),
  '4000000000009979': DECLINE('card_declined', 'stolen_card', 'Your card was declined.'),
  '4000000000000069': DECLINE('expired_card', 'expired_card', 'Your card has expired.'),
  '4000000000000127': DECLINE('incorrect_cvc', 'incorrect_cvc', "Your card's security code is incorrect."),
  '4000000000000119': DECLINE(
    'processing_error',
    'processing_error',
    'An error occurred while processing your card. Try again in a little bit.',
  ),
  '4000002760003184': { kind: 'challenge' },
  '4000000000000259': { kind: 'approve', dispute: true },
};

const API_VERSION = '2026-10-28.endive';
const CANCELABLE = ['requires_payment_method', 'requires_capture', 'requires_confirmation', 'requires_action', 'processing'];

class StripeFault extends Error {
  constructor(
    readonly status: number,
    readonly error: Obj,
  ) {
    super(error.message);
  }
}

const invalid = (message: string, extra: Obj = {}, status = 400) =>
  new StripeFault(status, { type: 'invalid_request_error', message, ...extra });
const missing = (kind: string, id: string) => invalid(`No such ${kind}: '${id}'`, { code: 'resource_missing', param: 'id' }, 404);

const randomId = (prefix: string) => `${prefix}_${crypto.randomBytes(12).toString('hex')}`;
const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
const now = () => Math.floor(Date.now() / 1000);
const integer = (value: unknown): number | undefined => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : undefined);
const asArray = (value: unknown): string[] =>
  (Array.isArray(value) ? value : value && typeof value === 'object' ? Object.values(value) : value ? [value] : []) as string[];

export class FakeStripe {
  readonly secretKey: string;
  readonly webhookSecret: string;
  readonly livemode: boolean;
  readonly requests: FakeRequest[] = [];
  readonly events: Obj[] = [];
  readonly paymentIntents = new Map<string, Obj>();
  readonly charges = new Map<string, Obj>();
  readonly refunds = new Map<string, Obj>();
  readonly disputes = new Map<string, Obj>();
  /** Stripe's search lags behind writes (up to a minute, more during an incident): true, and it finds nothing yet */
  searchLagging = false;
  /** refunds are created with this status (then settleRefund decides them) */
  refundStatus: 'succeeded' | 'pending' = 'succeeded';
  port = 0;
  private server: https.Server | undefined;
  private readonly idempotency = new Map<string, { fingerprint: string; answer: Answer }>();
  private readonly faults: Array<
    { kind: 'drop' } | { kind: 'hold'; released: Promise<void> } | { kind: 'status'; status: number; after: boolean }
  > = [];
  private readonly dropped: ServerResponse[] = [];

  constructor(options: { livemode?: boolean } = {}) {
    this.livemode = options.livemode ?? false;
    this.secretKey = `sk_${this.livemode ? 'live' : 'test'}_fake${crypto.randomBytes(12).toString('hex')}`;
    this.webhookSecret = `whsec_${crypto.randomBytes(24).toString('base64')}`;
  }

  get baseUrl(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  /** The terminal credentials that talk to this fake. */
  get credentials(): { secretKey: string; webhookSigningSecret: string } {
    return { secretKey: this.secretKey, webhookSigningSecret: this.webhookSecret };
  }

  async start(): Promise<this> {
    const { key, cert } = testTls();
    this.server = https.createServer({ key, cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.handle(req, res, Buffer.concat(chunks).toString('utf8')).catch((error: Error) => {
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(String(error.stack));
        });
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server!.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    for (const res of this.dropped) res.destroy();
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    this.server = undefined;
  }

  // ---- controls ----

  /** The next API request is carried out but never answered (the client's timeout: a lost answer). */
  dropNextAnswer(): void {
    this.faults.push({ kind: 'drop' });
  }

  /** The next API request is carried out; its answer waits for release(). */
  holdNextAnswer(): { release: () => void } {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    this.faults.push({ kind: 'hold', released });
    return { release };
  }

  /** The next API request is answered with this status once (api_error for a 5xx): before it is carried out, or after. */
  failNext(status = 500, options: { after?: boolean } = {}): void {
    this.faults.push({ kind: 'status', status, after: options.after ?? false });
  }

  /** API requests (not the 3DS page) to a path, e.g. '/v1/payment_intents'. */
  requestsTo(method: string, path: string | RegExp): FakeRequest[] {
    return this.requests.filter((r) => r.method === method && (typeof path === 'string' ? r.path === path : path.test(r.path)));
  }

  eventsOf(type: string, objectId?: string): Obj[] {
    return this.events.filter((e) => e.type === type && (!objectId || e.data.object.id === objectId));
  }

  /** The last event of a type (about an object), or a failure naming what there is. */
  lastEvent(type: string, objectId?: string): Obj {
    const found = this.eventsOf(type, objectId);
    if (!found.length)
      throw new Error(`no ${type} event${objectId ? ` of ${objectId}` : ''}; events: ${this.events.map((e) => e.type).join(', ')}`);
    return found[found.length - 1];
  }

  /** An event as Stripe delivers it: its JSON body and the Stripe-Signature header (signed with this endpoint's secret). */
  signed(event: Obj, options: { secret?: string; timestamp?: number } = {}): { headers: Record<string, string>; body: string } {
    const body = JSON.stringify(event, null, 2);
    const signature = Stripe.webhooks.generateTestHeaderString({
      payload: body,
      secret: options.secret ?? this.webhookSecret,
      ...(options.timestamp !== undefined ? { timestamp: options.timestamp } : {}),
    });
    return { headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signature }, body };
  }

  /** POSTs a signed event to a URL (fetch: the URL's certificate must be trusted by this process). */
  async deliver(event: Obj, url: string): Promise<{ status: number; body: string }> {
    const { headers, body } = this.signed(event);
    const res = await fetch(url, { method: 'POST', headers, body });
    return { status: res.status, body: await res.text() };
  }

  /** Opens a dispute on a PaymentIntent's charge (as the card 4000000000000259 does by itself): charge.dispute.created. */
  openDispute(paymentIntentId: string, options: { reason?: string; amount?: number; dueInDays?: number } = {}): Obj {
    const pi = this.paymentIntents.get(paymentIntentId);
    if (!pi?.latest_charge) throw new Error(`no charge on ${paymentIntentId}`);
    const charge = this.charges.get(pi.latest_charge)!;
    const dispute: Obj = {
      id: randomId('dp'),
      object: 'dispute',
      amount: options.amount ?? charge.amount_captured,
      currency: charge.currency,
      charge: charge.id,
      payment_intent: pi.id,
      reason: options.reason ?? 'fraudulent',
      status: 'needs_response',
      evidence: {},
      evidence_details: { due_by: now() + (options.dueInDays ?? 7) * 86_400, has_evidence: false, past_due: false, submission_count: 0 },
      is_charge_refundable: false,
      livemode: this.livemode,
      metadata: {},
      created: now(),
    };
    this.disputes.set(dispute.id, dispute);
    charge.disputed = true;
    this.emit('charge.dispute.created', dispute);
    return dispute;
  }

  /** Stripe's decision on a dispute: charge.dispute.closed with status won or lost. */
  decideDispute(disputeId: string, outcome: 'won' | 'lost' | 'warning_closed'): Obj {
    const dispute = this.disputes.get(disputeId);
    if (!dispute) throw new Error(`no dispute ${disputeId}`);
    dispute.status = outcome;
    return this.emit('charge.dispute.closed', dispute);
  }

  /** A pending refund's outcome (refundStatus 'pending'): refund.updated and charge.refund.updated. */
  settleRefund(refundId: string, status: 'succeeded' | 'failed'): Obj {
    const refund = this.refunds.get(refundId);
    if (!refund) throw new Error(`no refund ${refundId}`);
    refund.status = status;
    if (status === 'failed') {
      refund.failure_reason = 'declined';
      this.charges.get(refund.charge)!.amount_refunded -= refund.amount;
    }
    this.emit('charge.refund.updated', refund);
    return this.emit('refund.updated', refund);
  }

  // ---- the server ----

  private async handle(req: IncomingMessage, res: ServerResponse, raw: string): Promise<void> {
    const url = new URL(req.url ?? '/', this.baseUrl);
    const method = req.method ?? 'GET';
    if (method === 'GET' && url.pathname.startsWith('/3ds/')) return this.challengePage(url, res);

    const params: Obj = method === 'GET' ? qs.parse(url.search.slice(1), { depth: 10 }) : qs.parse(raw, { depth: 10, arrayLimit: 100 });
    const idempotencyKey = (req.headers['idempotency-key'] as string | undefined) ?? undefined;
    const entry: FakeRequest = { method, path: url.pathname, params, idempotencyKey, replayed: false };
    this.requests.push(entry);
    const send = (answer: Answer, headers: Record<string, string> = {}) => {
      entry.status = answer.status;
      res.writeHead(answer.status, {
        'content-type': 'application/json',
        'request-id': randomId('req'),
        'stripe-version': API_VERSION,
        ...headers,
      });
      res.end(JSON.stringify(answer.body));
    };

    const auth = req.headers.authorization ?? '';
    if (auth !== `Bearer ${this.secretKey}`) {
      return send({
        status: 401,
        body: {
          error: { type: 'invalid_request_error', message: `Invalid API Key provided: ${auth.replace(/^Bearer /, '').slice(0, 8)}****` },
        },
      });
    }

    const fault = this.faults.shift();
    if (fault?.kind === 'status' && !fault.after) return send(faultAnswer(fault.status));

    let answer: Answer;
    let replayed = false;
    const fingerprint = `${method} ${url.pathname}\n${raw}`;
    const stored = method === 'POST' && idempotencyKey ? this.idempotency.get(idempotencyKey) : undefined;
    if (stored && stored.fingerprint !== fingerprint) {
      answer = {
        status: 400,
        body: {
          error: {
            type: 'idempotency_error',
            message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
          },
        },
      };
    } else if (stored) {
      answer = stored.answer;
      replayed = true;
      entry.replayed = true;
    } else {
      answer = this.route(method, url.pathname, params, idempotencyKey);
      if (method === 'POST' && idempotencyKey) this.idempotency.set(idempotencyKey, { fingerprint, answer });
    }

    if (fault?.kind === 'drop') {
      this.dropped.push(res);
      return;
    }
    if (fault?.kind === 'hold') await fault.released;
    if (fault?.kind === 'status') return send(faultAnswer(fault.status));
    send(answer, replayed ? { 'idempotent-replayed': 'true' } : {});
  }

  private route(method: string, path: string, params: Obj, idempotencyKey: string | undefined): Answer {
    try {
      const parts = path.split('/').filter(Boolean);
      if (parts[0] !== 'v1') throw invalid(`Unrecognized request URL (${method}: ${path}).`, {}, 404);
      const [, resource, id, action] = parts;
      const expand = asArray(params.expand);
      if (resource === 'payment_intents') {
        if (method === 'POST' && !id) return ok(this.createPaymentIntent(params, expand, idempotencyKey));
        if (method === 'GET' && id === 'search') return ok(this.searchPaymentIntents(params));
        if (method === 'GET' && !id) return ok(this.listPaymentIntents(params));
        if (method === 'GET' && id && !action) return ok(this.render(this.pi(id), expand));
        if (method === 'POST' && action === 'capture') return ok(this.render(this.capture(this.pi(id), params), expand));
        if (method === 'POST' && action === 'cancel') return ok(this.render(this.cancel(this.pi(id), params), expand));
      }
      if (resource === 'refunds') {
        if (method === 'POST' && !id) return ok(this.createRefund(params));
        if (method === 'GET' && !id) return ok(this.listRefunds(params));
        if (method === 'GET' && id) return ok(clone(this.refunds.get(id) ?? raise(missing('refund', id))));
      }
      if (resource === 'disputes' && id) {
        const dispute = this.disputes.get(id) ?? raise(missing('dispute', id));
        if (method === 'GET' && !action) return ok(clone(dispute));
        if (method === 'POST' && !action) return ok(this.updateDispute(dispute, params));
        if (method === 'POST' && action === 'close') return ok(this.closeDispute(dispute));
      }
      throw invalid(`Unrecognized request URL (${method}: ${path}).`, {}, 404);
    } catch (error) {
      if (error instanceof StripeFault) return { status: error.status, body: { error: error.error } };
      throw error;
    }
  }

  private pi(id: string): Obj {
    return this.paymentIntents.get(id) ?? raise(missing('payment_intent', id));
  }

  /** A PaymentIntent as answered: a copy, latest_charge expanded when asked. */
  private render(pi: Obj, expand: string[] = []): Obj {
    const copy = clone(pi);
    if (expand.includes('latest_charge') && pi.latest_charge) copy.latest_charge = clone(this.charges.get(pi.latest_charge));
    return copy;
  }

  private createPaymentIntent(params: Obj, expand: string[], idempotencyKey: string | undefined): Obj {
    if (params.payment_method_types !== undefined) {
      throw invalid('payment_method_types is no longer supported on this API version; use allowed_payment_method_types.', {
        code: 'payment_method_types_no_longer_supported',
        param: 'payment_method_types',
      });
    }
    const amount = integer(params.amount);
    if (!amount || amount < 1) throw invalid('Invalid positive integer', { code: 'parameter_invalid_integer', param: 'amount' });
    if (typeof params.currency !== 'string' || !/^[a-z]{3}$/.test(params.currency)) {
      throw invalid('Invalid currency', { code: 'parameter_invalid_string', param: 'currency' });
    }
    const card = params.payment_method_data?.card;
    if (params.payment_method_data?.type !== 'card' || !card?.number) {
      throw invalid('Missing required param: payment_method_data[card][number].', {
        code: 'parameter_missing',
        param: 'payment_method_data[card][number]',
      });
    }
    if (params.confirm !== 'true') throw invalid('This fake confirms on create only (confirm=true).', { param: 'confirm' });
    const captureMethod = params.capture_method === 'manual' ? 'manual' : 'automatic';
    const pm = {
      id: randomId('pm'),
      card: { last4: String(card.number).slice(-4), exp_month: integer(card.exp_month), exp_year: integer(card.exp_year), brand: 'visa' },
      billing_details: { name: params.payment_method_data?.billing_details?.name ?? null },
    };
    const pi: Obj = {
      id: randomId('pi'),
      object: 'payment_intent',
      amount,
      amount_capturable: 0,
      amount_received: 0,
      currency: params.currency,
      capture_method: captureMethod,
      client_secret: '',
      confirmation_method: 'automatic',
      created: now(),
      livemode: this.livemode,
      metadata: params.metadata ?? {},
      payment_method: pm.id,
      payment_method_types: ['card'],
      payment_method_options: {
        card: { request_three_d_secure: params.payment_method_options?.card?.request_three_d_secure ?? 'automatic' },
      },
      return_url: params.return_url ?? null,
      status: 'requires_confirmation',
      next_action: null,
      last_payment_error: null,
      latest_charge: null,
      cancellation_reason: null,
      canceled_at: null,
    };
    pi.client_secret = `${pi.id}_secret_${crypto.randomBytes(8).toString('hex')}`;
    // Stripe's metadata holds strings only
    pi.metadata = Object.fromEntries(Object.entries(pi.metadata as Obj).map(([k, v]) => [k, String(v)]));
    Object.defineProperty(pi, '_card', { value: { number: String(card.number), pm, idempotencyKey }, enumerable: false });
    this.paymentIntents.set(pi.id, pi);
    this.emit('payment_intent.created', pi);

    const scenario = STRIPE_TEST_CARDS[String(card.number)] ?? DECLINE('card_declined', 'generic_decline', 'Your card was declined.');
    const challenge =
      scenario.kind === 'challenge' ||
      (scenario.kind === 'approve' && pi.payment_method_options.card.request_three_d_secure === 'challenge');
    if (challenge) {
      pi.status = 'requires_action';
      pi.next_action = pi.return_url
        ? {
            type: 'redirect_to_url',
            redirect_to_url: { url: `${this.baseUrl}/3ds/${pi.id}`, return_url: pi.return_url },
          }
        : { type: 'use_stripe_sdk', use_stripe_sdk: { type: 'three_d_secure_redirect' } };
      this.emit('payment_intent.requires_action', pi);
      return this.render(pi, expand);
    }
    if (scenario.kind === 'decline') {
      const charge = this.charge(pi, 'failed');
      const error = {
        type: 'card_error',
        code: scenario.code,
        decline_code: scenario.declineCode,
        message: scenario.message,
        charge: charge.id,
        doc_url: `https://docs.stripe.com/error-codes/${scenario.code.replace(/_/g, '-')}`,
      };
      pi.status = 'requires_payment_method';
      pi.last_payment_error = error;
      this.emit('charge.failed', charge);
      this.emit('payment_intent.payment_failed', pi);
      throw new StripeFault(402, { ...error, payment_intent: this.render(pi, expand) });
    }
    this.approve(pi, null);
    return this.render(pi, expand);
  }

  private charge(pi: Obj, status: 'succeeded' | 'failed', threeDs: Obj | null = null): Obj {
    const { pm } = (pi as { _card: { pm: Obj } })._card;
    const charge: Obj = {
      id: randomId('ch'),
      object: 'charge',
      amount: pi.amount,
      amount_captured: 0,
      amount_refunded: 0,
      captured: false,
      currency: pi.currency,
      payment_intent: pi.id,
      payment_method: pm.id,
      payment_method_details: { type: 'card', card: { ...pm.card, three_d_secure: threeDs } },
      status,
      paid: status === 'succeeded',
      disputed: false,
      livemode: this.livemode,
      metadata: pi.metadata,
      created: now(),
    };
    this.charges.set(charge.id, charge);
    pi.latest_charge = charge.id;
    return charge;
  }

  private approve(pi: Obj, threeDs: Obj | null): void {
    const charge = this.charge(pi, 'succeeded', threeDs);
    pi.next_action = null;
    if (pi.capture_method === 'automatic') {
      pi.status = 'succeeded';
      pi.amount_received = pi.amount;
      charge.captured = true;
      charge.amount_captured = pi.amount;
      this.emit('charge.succeeded', charge);
      this.emit('payment_intent.succeeded', pi);
    } else {
      pi.status = 'requires_capture';
      pi.amount_capturable = pi.amount;
      this.emit('charge.succeeded', charge);
      this.emit('payment_intent.amount_capturable_updated', pi);
    }
    const scenario = STRIPE_TEST_CARDS[(pi as { _card: { number: string } })._card.number];
    if (scenario?.kind === 'approve' && scenario.dispute && charge.captured) this.openDispute(pi.id);
  }

  /** GET /3ds/<pi>?outcome=pass|fail: the challenge decided, the customer sent to return_url (no outcome: the page). */
  private challengePage(url: URL, res: ServerResponse): void {
    const id = url.pathname.split('/')[2];
    const pi = this.paymentIntents.get(id);
    if (!pi) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('no such payment');
      return;
    }
    const outcome = url.searchParams.get('outcome');
    if (outcome !== 'pass' && outcome !== 'fail') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><title>3D Secure (fake)</title><a href="?outcome=pass">Complete</a> <a href="?outcome=fail">Fail</a>`);
      return;
    }
    if (pi.status === 'requires_action') {
      if (outcome === 'pass') {
        this.approve(pi, {
          authentication_flow: 'challenge',
          result: 'authenticated',
          result_reason: null,
          version: '2.2.0',
          electronic_commerce_indicator: '05',
          transaction_id: crypto.randomUUID(),
        });
      } else {
        const charge = this.charge(pi, 'failed', {
          authentication_flow: 'challenge',
          result: 'failed',
          result_reason: 'rejected',
          version: '2.2.0',
          electronic_commerce_indicator: '07',
          transaction_id: crypto.randomUUID(),
        });
        pi.status = 'requires_payment_method';
        pi.next_action = null;
        pi.last_payment_error = {
          type: 'invalid_request_error',
          code: 'payment_intent_authentication_failure',
          message:
            'The provided PaymentMethod has failed authentication. You can provide payment_method_data or a new PaymentMethod to attempt to fulfill this PaymentIntent again.',
          charge: charge.id,
        };
        this.emit('charge.failed', charge);
        this.emit('payment_intent.payment_failed', pi);
      }
    }
    const back = new URL(pi.return_url);
    back.searchParams.set('payment_intent', pi.id);
    back.searchParams.set('payment_intent_client_secret', pi.client_secret);
    back.searchParams.set('redirect_status', pi.status === 'requires_payment_method' ? 'failed' : 'succeeded');
    res.writeHead(302, { location: back.toString() });
    res.end();
  }

  private capture(pi: Obj, params: Obj): Obj {
    if (pi.status !== 'requires_capture') {
      throw invalid(
        `This PaymentIntent could not be captured because it has a status of ${pi.status}. Only a PaymentIntent with one of the following statuses may be captured: requires_capture.`,
        { code: 'payment_intent_unexpected_state', payment_intent: clone(pi) },
      );
    }
    const amount = params.amount_to_capture === undefined ? pi.amount_capturable : integer(params.amount_to_capture);
    if (!amount || amount > pi.amount_capturable) {
      throw invalid(`The amount to capture must be a positive integer no greater than ${pi.amount_capturable}.`, {
        code: 'amount_too_large',
        param: 'amount_to_capture',
      });
    }
    const charge = this.charges.get(pi.latest_charge)!;
    pi.status = 'succeeded';
    pi.amount_received = amount;
    pi.amount_capturable = 0;
    charge.captured = true;
    charge.amount_captured = amount;
    this.emit('charge.captured', charge);
    this.emit('payment_intent.succeeded', pi);
    return pi;
  }

  private cancel(pi: Obj, params: Obj): Obj {
    if (!CANCELABLE.includes(pi.status)) {
      throw invalid(
        `You cannot cancel this PaymentIntent because it has a status of ${pi.status}. Only a PaymentIntent with one of the following statuses may be canceled: ${CANCELABLE.join(', ')}.`,
        { code: 'payment_intent_unexpected_state', payment_intent: clone(pi) },
      );
    }
    pi.status = 'canceled';
    pi.amount_capturable = 0;
    pi.next_action = null;
    pi.cancellation_reason = params.cancellation_reason ?? null;
    pi.canceled_at = now();
    this.emit('payment_intent.canceled', pi);
    return pi;
  }

  /** search by `metadata['key']:'value'` (the form the connector sends), nothing else */
  private searchPaymentIntents(params: Obj): Obj {
    const query = String(params.query ?? '');
    const match = /^metadata\[(['"])([^'"]+)\1\]:(['"])((?:\\.|(?!\3).)*)\3$/.exec(query.trim());
    if (!match) throw invalid(`This fake searches by metadata['key']:'value' only, not: ${query}`, { param: 'query' });
    const [, , key, , quotedValue] = match;
    const value = quotedValue.replace(/\\(.)/g, '$1');
    const data = this.searchLagging
      ? []
      : [...this.paymentIntents.values()].filter((pi) => pi.metadata?.[key] === value).map((pi) => this.render(pi));
    return { object: 'search_result', url: '/v1/payment_intents/search', has_more: false, next_page: null, data };
  }

  /** GET /v1/payment_intents: newest first, `created[gte]`, `limit`, `starting_after` */
  private listPaymentIntents(params: Obj): Obj {
    const gte = integer(params.created?.gte) ?? 0;
    const limit = Math.min(integer(params.limit) ?? 10, 100);
    let all = [...this.paymentIntents.values()].filter((pi) => pi.created >= gte).reverse();
    if (params.starting_after) {
      const at = all.findIndex((pi) => pi.id === params.starting_after);
      all = at >= 0 ? all.slice(at + 1) : all;
    }
    const data = all.slice(0, limit).map((pi) => this.render(pi));
    return { object: 'list', url: '/v1/payment_intents', has_more: all.length > limit, data };
  }

  private createRefund(params: Obj): Obj {
    const pi = this.pi(String(params.payment_intent ?? ''));
    const charge = pi.latest_charge ? this.charges.get(pi.latest_charge) : undefined;
    if (!charge?.captured) {
      throw invalid(`This PaymentIntent (${pi.id}) does not have a successful charge to refund.`, { code: 'charge_not_refundable' });
    }
    const available = charge.amount_captured - charge.amount_refunded;
    const amount = params.amount === undefined ? available : integer(params.amount);
    if (!amount || amount > available) {
      throw invalid(`Refund amount (${params.amount}) is greater than unrefunded amount on charge (${available})`, {
        code: 'amount_too_large',
        param: 'amount',
      });
    }
    const refund: Obj = {
      id: randomId('re'),
      object: 'refund',
      amount,
      currency: pi.currency,
      charge: charge.id,
      payment_intent: pi.id,
      metadata: params.metadata ?? {},
      status: this.refundStatus,
      failure_reason: null,
      reason: params.reason ?? null,
      created: now(),
    };
    this.refunds.set(refund.id, refund);
    charge.amount_refunded += amount;
    charge.refunded = charge.amount_refunded === charge.amount_captured;
    this.emit('refund.created', refund);
    this.emit('charge.refunded', charge);
    return clone(refund);
  }

  private listRefunds(params: Obj): Obj {
    const data = [...this.refunds.values()]
      .filter((r) => !params.payment_intent || r.payment_intent === params.payment_intent)
      .sort((a, b) => b.created - a.created)
      .map(clone);
    return { object: 'list', url: '/v1/refunds', has_more: false, data };
  }

  private updateDispute(dispute: Obj, params: Obj): Obj {
    if (!['needs_response', 'warning_needs_response'].includes(dispute.status)) {
      throw invalid(`This dispute is ${dispute.status}: its evidence can no longer be updated.`, { code: 'dispute_already_submitted' });
    }
    dispute.evidence = { ...dispute.evidence, ...(params.evidence ?? {}) };
    dispute.metadata = { ...dispute.metadata, ...(params.metadata ?? {}) };
    dispute.evidence_details.has_evidence = Object.keys(dispute.evidence).length > 0;
    if (params.submit === 'true') {
      dispute.status = dispute.status === 'warning_needs_response' ? 'warning_under_review' : 'under_review';
      dispute.evidence_details.submission_count += 1;
    }
    this.emit('charge.dispute.updated', dispute);
    return clone(dispute);
  }

  private closeDispute(dispute: Obj): Obj {
    if (!['needs_response', 'warning_needs_response'].includes(dispute.status)) {
      throw invalid(`This dispute is ${dispute.status} and cannot be closed.`, { code: 'dispute_already_closed' });
    }
    dispute.status = dispute.status === 'warning_needs_response' ? 'warning_closed' : 'lost';
    this.emit('charge.dispute.closed', dispute);
    return clone(dispute);
  }

  private emit(type: string, object: Obj): Obj {
    const event = {
      id: randomId('evt'),
      object: 'event',
      api_version: API_VERSION,
      created: now(),
      data: { object: object.object === 'payment_intent' ? this.render(object) : clone(object) },
      livemode: this.livemode,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    };
    this.events.push(event);
    return event;
  }
}

function ok(body: unknown): Answer {
  return { status: 200, body };
}

function raise(fault: StripeFault): never {
  throw fault;
}

function faultAnswer(status: number): Answer {
  if (status === 429) {
    return {
      status,
      body: { error: { type: 'invalid_request_error', code: 'rate_limit', message: 'Too many requests hit the API too quickly.' } },
    };
  }
  return { status, body: { error: { type: 'api_error', message: 'An unknown error occurred (fake).' } } };
}
