import fs from 'node:fs';
import https from 'node:https';
import { loadConfig, type AppConfig } from '../../src/config';
import { connectorFor } from '../../src/connectors';
import { StripeConnector } from '../../src/connectors/stripe';
import {
  ConnectorError,
  NotificationRejected,
  type AuthorizeRequest,
  type ConnectorEnv,
  type ConnectorTerminal,
  type NotificationItem,
} from '../../src/connectors/types';
import { fromStripe, ourDeclineCode, toStripe } from '../../src/connectors/stripe/codes';
import { FakeStripe } from '../fakes/stripe';
import { testTls } from '../helpers/receiver';

/**
 * The Stripe connector at the connector level, the official library pointed at the local fake of Stripe's API
 * (test/fakes/stripe.ts) over HTTPS: no database. Each test uses its own references.
 */

const fake = new FakeStripe();
const connector = new StripeConnector();
let config: AppConfig;
let env: ConnectorEnv;
let terminal: ConnectorTerminal;
let seq = 0;
const ref = (what: string) => `${what}-${process.pid}-${++seq}`;

beforeAll(async () => {
  await fake.start();
  config = loadConfig(process.env, { connectorAllowCidrs: ['127.0.0.0/8'], connectorCaFile: testTls().caFile, connectorTimeoutMs: 5_000 });
  env = envWith({});
  terminal = {
    terminalId: 'term-stripe-1',
    providerIntegrationId: '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e10',
    connectorBaseUrl: fake.baseUrl,
    credentials: fake.credentials,
    mcc: null,
    descriptor: null,
    livemode: false,
  };
});
afterAll(() => fake.stop());

/** The connector reads the configuration only (no database, no clock). */
function envWith(overrides: Partial<AppConfig>): ConnectorEnv {
  return { config: { ...config, ...overrides } } as ConnectorEnv;
}

function authorizeRequest(number: string, overrides: Partial<AuthorizeRequest> = {}): AuthorizeRequest {
  return {
    reference: ref('att'),
    tenantId: 'tenant-1',
    livemode: false,
    amount: { currency: 'EUR', valueMinor: 1000 },
    capture: true,
    paymentMethod: { type: 'card', card: { number, expMonth: 12, expYear: 2030, cvc: '123', holderName: 'Ada Lovelace' } },
    actionReturnUrl: 'https://pay.example.test/v1/three-ds/return/att',
    ...overrides,
  };
}

/** GET over the fake's TLS: the status and Location (the 3DS page's redirect). */
function get(url: string): Promise<{ status: number; location?: string }> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca: fs.readFileSync(testTls().caFile) }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
      })
      .on('error', reject);
  });
}

describe('authorize', () => {
  test('automatic capture: succeeded (captured), the PaymentIntent carries our reference, sent once with our idempotency key', async () => {
    const request = authorizeRequest('4242424242424242');
    const result = await connector.authorize(env, terminal, request);
    expect(result).toMatchObject({ status: 'succeeded', rawStatus: 'succeeded', providerReference: expect.stringMatching(/^pi_/) });
    const pi = fake.paymentIntents.get(result.providerReference!)!;
    expect(pi).toMatchObject({
      amount: 1000,
      currency: 'eur',
      amount_received: 1000,
      capture_method: 'automatic',
      metadata: { payplane_reference: request.reference, payplane_tenant: 'tenant-1' },
      return_url: request.actionReturnUrl,
    });
    const sent = fake.requestsTo('POST', '/v1/payment_intents').filter((r) => r.params.metadata?.payplane_reference === request.reference);
    expect(sent).toHaveLength(1);
    expect(sent[0].idempotencyKey).toBe(`payplane-authorize-${request.reference}`);
    expect(sent[0].params).toMatchObject({
      confirm: 'true',
      allowed_payment_method_types: ['card'],
      payment_method_data: { type: 'card', card: { number: '4242424242424242', exp_month: '12', exp_year: '2030', cvc: '123' } },
      payment_method_options: { card: { request_three_d_secure: 'automatic' } },
    });
    expect(sent[0].params.payment_method_data.billing_details).toEqual({ name: 'Ada Lovelace' });
  });

  test('manual capture: succeeded with rawStatus requires_capture; a partial capture takes the amount asked', async () => {
    const auth = await connector.authorize(env, terminal, authorizeRequest('4242424242424242', { capture: false }));
    expect(auth).toMatchObject({ status: 'succeeded', rawStatus: 'requires_capture' });
    const pi = auth.providerReference!;
    expect(fake.paymentIntents.get(pi)).toMatchObject({ status: 'requires_capture', amount_capturable: 1000, amount_received: 0 });

    const reference = ref('cap');
    const captured = await connector.capture(env, terminal, {
      reference,
      providerReference: pi,
      amount: { currency: 'EUR', valueMinor: 600 },
    });
    expect(captured).toMatchObject({ status: 'succeeded', providerReference: pi, rawStatus: 'succeeded' });
    expect(fake.paymentIntents.get(pi)).toMatchObject({ status: 'succeeded', amount_received: 600 });
    expect(fake.requestsTo('POST', `/v1/payment_intents/${pi}/capture`)[0]).toMatchObject({
      idempotencyKey: `payplane-capture-${reference}`,
      params: { amount_to_capture: '600' },
    });

    // a second capture of a captured payment: Stripe refuses it (failed, its code kept)
    const again = await connector.capture(env, terminal, {
      reference: ref('cap'),
      providerReference: pi,
      amount: { currency: 'EUR', valueMinor: 100 },
    });
    expect(again).toMatchObject({ status: 'failed', declineCode: 'processing_error', rawCode: 'payment_intent_unexpected_state' });
  });

  test.each([
    ['4000000000000002', 'card_declined', 'generic_decline'],
    ['4000000000009995', 'insufficient_funds', 'insufficient_funds'],
    ['4000000000009987', 'lost_card', 'lost_card'],
    ['4000000000009979', 'stolen_card', 'stolen_card'],
    ['4000000000000069', 'expired_card', 'expired_card'],
    ['4000000000000127', 'incorrect_cvc', 'incorrect_cvc'],
    ['4000000000000119', 'processing_error', 'processing_error'],
  ])('card %s: declined %s (Stripe rawCode %s), the PaymentIntent named', async (number, declineCode, rawCode) => {
    const result = await connector.authorize(env, terminal, authorizeRequest(number));
    expect(result).toMatchObject({ status: 'declined', declineCode, rawCode, providerReference: expect.stringMatching(/^pi_/) });
    expect(result.message).toEqual(expect.any(String));
    expect(fake.paymentIntents.get(result.providerReference!)!.status).toBe('requires_payment_method');
  });

  test('a card Stripe does not know is declined as card_declined; a non-card method is refused without a call', async () => {
    expect(await connector.authorize(env, terminal, authorizeRequest('4111111111111111'))).toMatchObject({
      status: 'declined',
      declineCode: 'card_declined',
    });
    const before = fake.requests.length;
    const request = { ...authorizeRequest('4242424242424242'), paymentMethod: { type: 'sepa_debit' } };
    expect(await connector.authorize(env, terminal, request)).toMatchObject({ status: 'declined', declineCode: 'card_not_supported' });
    expect(fake.requests.length).toBe(before);
  });
});

describe('3DS by redirect', () => {
  async function challenged(overrides: Partial<AuthorizeRequest> = {}, number = '4000002760003184') {
    const request = authorizeRequest(number, overrides);
    const result = await connector.authorize(env, terminal, request);
    expect(result).toMatchObject({ status: 'requires_action', rawStatus: 'requires_action', action: { type: 'redirect' } });
    expect(result.action!.url.startsWith(`${fake.baseUrl}/3ds/`)).toBe(true);
    return { request, result };
  }

  test('passed on the page: back to our return URL with the PaymentIntent, completeAction reads it succeeded with its 3DS record', async () => {
    const { request, result } = await challenged();
    const page = await get(`${result.action!.url}?outcome=pass`);
    expect(page.status).toBe(302);
    const back = new URL(page.location!);
    expect(`${back.origin}${back.pathname}`).toBe(request.actionReturnUrl);
    expect(back.searchParams.get('payment_intent')).toBe(result.providerReference);

    const params = Object.fromEntries(back.searchParams);
    const completed = await connector.completeAction(env, terminal, {
      reference: request.reference,
      providerReference: null,
      tenantId: 'tenant-1',
      livemode: false,
      params,
    });
    expect(completed).toMatchObject({
      status: 'succeeded',
      providerReference: result.providerReference,
      threeDSResult: { status: 'authenticated', challenged: true, liabilityShift: true, eci: '05' },
    });
  });

  test('failed on the page: declined authentication_failed; a PaymentIntent of another attempt is refused', async () => {
    const { request, result } = await challenged({ capture: false });
    const page = await get(`${result.action!.url}?outcome=fail`);
    expect(new URL(page.location!).searchParams.get('redirect_status')).toBe('failed');
    const completed = await connector.completeAction(env, terminal, {
      reference: request.reference,
      providerReference: result.providerReference,
      tenantId: 'tenant-1',
      livemode: false,
      params: {},
    });
    expect(completed).toMatchObject({
      status: 'declined',
      declineCode: 'authentication_failed',
      rawCode: 'payment_intent_authentication_failure',
    });

    // the return's query is the customer's input: another attempt's PaymentIntent is not read as this one's
    await expect(
      connector.completeAction(env, terminal, {
        reference: ref('other-attempt'),
        providerReference: null,
        tenantId: 'tenant-1',
        livemode: false,
        params: { payment_intent: result.providerReference! },
      }),
    ).rejects.toMatchObject({ name: 'ConnectorError', retryable: false });
  });

  test('forceThreeDsChallenge asks Stripe for a challenge on any card', async () => {
    const { request } = await challenged({ forceThreeDsChallenge: true }, '4242424242424242');
    const sent = fake.requestsTo('POST', '/v1/payment_intents').find((r) => r.params.metadata?.payplane_reference === request.reference)!;
    expect(sent.params.payment_method_options).toEqual({ card: { request_three_d_secure: 'challenge' } });
  });
});

describe('void and refunds', () => {
  test('cancel: succeeded; a cancel of a captured payment is refused by Stripe (failed)', async () => {
    const auth = await connector.authorize(env, terminal, authorizeRequest('4242424242424242', { capture: false }));
    const reference = ref('void');
    const voided = await connector.void(env, terminal, { reference, providerReference: auth.providerReference! });
    expect(voided).toMatchObject({ status: 'succeeded', providerReference: auth.providerReference, rawStatus: 'canceled' });
    expect(fake.paymentIntents.get(auth.providerReference!)!.status).toBe('canceled');
    expect(fake.requestsTo('POST', `/v1/payment_intents/${auth.providerReference}/cancel`)[0].idempotencyKey).toBe(
      `payplane-void-${reference}`,
    );

    const captured = await connector.authorize(env, terminal, authorizeRequest('4242424242424242'));
    expect(await connector.void(env, terminal, { reference: ref('void'), providerReference: captured.providerReference! })).toMatchObject({
      status: 'failed',
      rawCode: 'payment_intent_unexpected_state',
    });
  });

  test('several partial refunds: each its own re_ reference; one over the rest is failed; the same reference again answers the first', async () => {
    const auth = await connector.authorize(env, terminal, authorizeRequest('4242424242424242'));
    const pi = auth.providerReference!;
    const refund = (reference: string, valueMinor: number) =>
      connector.refund(env, terminal, {
        reference,
        tenantId: 'tenant-1',
        livemode: false,
        providerReference: pi,
        amount: { currency: 'EUR', valueMinor },
      });
    const first = ref('ref');
    const a = await refund(first, 300);
    const b = await refund(ref('ref'), 200);
    expect(a).toMatchObject({ status: 'succeeded', providerReference: expect.stringMatching(/^re_/) });
    expect(b).toMatchObject({ status: 'succeeded', providerReference: expect.stringMatching(/^re_/) });
    expect(b.providerReference).not.toBe(a.providerReference);
    expect(fake.refunds.get(a.providerReference!)).toMatchObject({
      amount: 300,
      payment_intent: pi,
      metadata: { payplane_reference: first },
    });

    const over = await refund(ref('ref'), 600);
    expect(over).toMatchObject({ status: 'failed', declineCode: 'processing_error', rawCode: 'amount_too_large', providerReference: null });

    const replay = await refund(first, 300);
    expect(replay).toEqual(a);
    const sent = fake.requestsTo('POST', '/v1/refunds').filter((r) => r.idempotencyKey === `payplane-refund-${first}`);
    expect(sent.map((r) => r.replayed)).toEqual([false, true]);
    expect(fake.charges.get(fake.paymentIntents.get(pi)!.latest_charge)!.amount_refunded).toBe(500);
  });

  test('a refund Stripe leaves pending is pending; its outcome is a notification', async () => {
    const auth = await connector.authorize(env, terminal, authorizeRequest('4242424242424242'));
    fake.refundStatus = 'pending';
    try {
      const reference = ref('ref');
      const result = await connector.refund(env, terminal, {
        reference,
        tenantId: 'tenant-1',
        livemode: false,
        providerReference: auth.providerReference!,
        amount: { currency: 'EUR', valueMinor: 100 },
      });
      expect(result).toMatchObject({ status: 'pending', rawStatus: 'pending' });
      const event = fake.settleRefund(result.providerReference!, 'failed');
      const parsed = await connector.parseNotification(env, terminal, request(fake.signed(event)));
      expect(parsed.items[0]).toMatchObject({
        kind: 'outcome',
        operation: 'refund',
        reference,
        providerReference: result.providerReference,
        paymentProviderReference: auth.providerReference,
        result: { status: 'failed', rawCode: 'declined' },
      });
    } finally {
      fake.refundStatus = 'succeeded';
    }
  });

  test('payouts: not a Stripe terminal operation (ConnectorError, not retryable)', async () => {
    await expect(
      connector.payout(env, terminal, {
        reference: ref('po'),
        tenantId: 'tenant-1',
        livemode: false,
        amount: { currency: 'EUR', valueMinor: 100 },
        destination: { type: 'bank_account', details: {} },
      }),
    ).rejects.toMatchObject({ name: 'ConnectorError', retryable: false });
  });
});

describe('disputes', () => {
  test('card 4000000000000259 is disputed; evidence submitted (pending, the decision by notification); a second dispute accepted (lost)', async () => {
    const auth = await connector.authorize(env, terminal, authorizeRequest('4000000000000259'));
    const dispute = [...fake.disputes.values()].find((d) => d.payment_intent === auth.providerReference)!;
    expect(dispute).toMatchObject({ status: 'needs_response', amount: 1000, reason: 'fraudulent' });

    const reference = ref('dsp');
    const evidence = { uncategorizedText: 'Delivered, signed for.', customerName: 'Ada Lovelace', shippingTrackingNumber: '1Z999' };
    const submitted = await connector.disputeEvidence(env, terminal, {
      reference,
      tenantId: 'tenant-1',
      livemode: false,
      providerReference: dispute.id,
      paymentProviderReference: auth.providerReference!,
      evidence,
    });
    expect(submitted).toMatchObject({ status: 'pending', providerReference: dispute.id, rawStatus: 'under_review' });
    expect(fake.disputes.get(dispute.id)).toMatchObject({
      status: 'under_review',
      evidence: { uncategorized_text: 'Delivered, signed for.', customer_name: 'Ada Lovelace', shipping_tracking_number: '1Z999' },
    });
    expect(fake.requestsTo('POST', `/v1/disputes/${dispute.id}`)[0].params.submit).toBe('true');

    const other = await connector.authorize(env, terminal, authorizeRequest('4242424242424242'));
    const second = fake.openDispute(other.providerReference!, { reason: 'product_not_received' });
    const accepted = await connector.disputeAccept(env, terminal, {
      reference: ref('dsp'),
      tenantId: 'tenant-1',
      livemode: false,
      providerReference: second.id,
      paymentProviderReference: other.providerReference!,
    });
    expect(accepted).toMatchObject({ status: 'succeeded', providerReference: second.id, rawStatus: 'lost' });
    expect(fake.lastEvent('charge.dispute.closed', second.id).data.object.status).toBe('lost');

    // a dispute Stripe has closed cannot be accepted again under another reference: refused (failed)
    const again = await connector.disputeAccept(env, terminal, {
      reference: ref('dsp'),
      tenantId: 'tenant-1',
      livemode: false,
      providerReference: second.id,
      paymentProviderReference: other.providerReference!,
    });
    expect(again).toMatchObject({ status: 'failed', rawCode: 'dispute_already_closed' });
  });
});

function request(signed: { headers: Record<string, string>; body: string }) {
  return { headers: signed.headers, rawBody: Buffer.from(signed.body) };
}

describe('notifications', () => {
  const parse = async (event: Record<string, any>): Promise<NotificationItem> => {
    const parsed = await connector.parseNotification(env, terminal, request(fake.signed(event)));
    expect(parsed.reply).toEqual({ status: 200, contentType: 'application/json', body: '{"received":true}' });
    expect(parsed.items).toHaveLength(1);
    expect(parsed.items[0]).toMatchObject({ eventId: event.id, type: event.type });
    return parsed.items[0];
  };

  test('payment events: authorize outcomes by our reference, a cancel as void, a capture as capture', async () => {
    const manual = authorizeRequest('4242424242424242', { capture: false });
    const auth = await connector.authorize(env, terminal, manual);
    const pi = auth.providerReference!;
    expect(await parse(fake.lastEvent('payment_intent.amount_capturable_updated', pi))).toMatchObject({
      kind: 'outcome',
      operation: 'authorize',
      reference: manual.reference,
      providerReference: pi,
      result: { status: 'succeeded', rawStatus: 'requires_capture' },
    });
    await connector.capture(env, terminal, { reference: ref('cap'), providerReference: pi, amount: { currency: 'EUR', valueMinor: 1000 } });
    const captured = fake.lastEvent('charge.captured');
    expect(captured.data.object.payment_intent).toBe(pi);
    expect(await parse(captured)).toMatchObject({
      kind: 'outcome',
      operation: 'capture',
      providerReference: pi,
      paymentProviderReference: pi,
      result: { status: 'succeeded' },
    });
    expect(await parse(fake.lastEvent('payment_intent.succeeded', pi))).toMatchObject({
      operation: 'authorize',
      reference: manual.reference,
      result: { status: 'succeeded', rawStatus: 'succeeded' },
    });

    const declined = authorizeRequest('4000000000009995');
    const failed = await connector.authorize(env, terminal, declined);
    expect(await parse(fake.lastEvent('payment_intent.payment_failed', failed.providerReference!))).toMatchObject({
      kind: 'outcome',
      operation: 'authorize',
      reference: declined.reference,
      result: { status: 'declined', declineCode: 'insufficient_funds', rawCode: 'insufficient_funds' },
    });

    const toVoid = await connector.authorize(env, terminal, authorizeRequest('4242424242424242', { capture: false }));
    await connector.void(env, terminal, { reference: ref('void'), providerReference: toVoid.providerReference! });
    expect(await parse(fake.lastEvent('payment_intent.canceled', toVoid.providerReference!))).toMatchObject({
      kind: 'outcome',
      operation: 'void',
      reference: null,
      providerReference: toVoid.providerReference,
      result: { status: 'succeeded' },
    });
  });

  test('refund and dispute events; others are ignored', async () => {
    const auth = await connector.authorize(env, terminal, authorizeRequest('4000000000000259'));
    const pi = auth.providerReference!;
    const reference = ref('ref');
    const refund = await connector.refund(env, terminal, {
      reference,
      tenantId: 'tenant-1',
      livemode: false,
      providerReference: pi,
      amount: { currency: 'EUR', valueMinor: 250 },
    });
    expect(await parse(fake.lastEvent('refund.created', refund.providerReference!))).toMatchObject({
      kind: 'outcome',
      operation: 'refund',
      reference,
      providerReference: refund.providerReference,
      paymentProviderReference: pi,
      result: { status: 'succeeded' },
    });

    const created = fake.eventsOf('charge.dispute.created').find((e) => e.data.object.payment_intent === pi)!;
    const dispute = created.data.object;
    expect(await parse(created)).toMatchObject({
      kind: 'dispute',
      notice: {
        type: 'opened',
        paymentProviderReference: pi,
        providerReference: dispute.id,
        amount: { currency: 'EUR', valueMinor: 1000 },
        reason: 'fraudulent',
        evidenceDueBy: new Date(dispute.evidence_details.due_by * 1000).toISOString(),
      },
    });
    for (const [status, outcome] of [
      ['won', 'won'],
      ['lost', 'lost'],
      ['warning_closed', 'won'],
    ] as const) {
      expect(await parse(fake.decideDispute(dispute.id, status))).toMatchObject({
        kind: 'dispute',
        notice: { type: 'decided', providerReference: dispute.id, outcome },
      });
    }
    expect(await parse(fake.lastEvent('charge.succeeded'))).toEqual({
      eventId: expect.any(String),
      type: 'charge.succeeded',
      kind: 'ignored',
    });
    expect(await parse(fake.lastEvent('payment_intent.created', pi))).toMatchObject({ kind: 'ignored' });
  });

  test('forged, tampered, unsigned, stale or other-mode notifications are rejected', async () => {
    const event = fake.lastEvent('payment_intent.created');
    const reject = (req: { headers: Record<string, string | undefined>; rawBody: Buffer }) =>
      expect(connector.parseNotification(env, terminal, req)).rejects.toBeInstanceOf(NotificationRejected);

    await reject(request(fake.signed(event, { secret: 'whsec_not_the_terminals' })));
    const signed = fake.signed(event);
    await reject({
      headers: signed.headers,
      rawBody: Buffer.from(signed.body.replace('"payment_intent.created"', '"payment_intent.succeeded"')),
    });
    await reject({ headers: { 'content-type': 'application/json' }, rawBody: Buffer.from(signed.body) });
    await reject(request(fake.signed(event, { timestamp: Math.floor(Date.now() / 1000) - 3600 })));
    await reject(request(fake.signed({ ...event, livemode: true })));
    await expect(
      connector.parseNotification(env, { ...terminal, credentials: { secretKey: fake.secretKey } }, request(signed)),
    ).rejects.toBeInstanceOf(NotificationRejected);
  });
});

describe('answers never lost', () => {
  test('a timeout is a retryable ConnectorError; the look-up finds the authorization; the same reference sent again gets the first answer', async () => {
    const short = envWith({ connectorTimeoutMs: 300 });
    const request = authorizeRequest('4242424242424242', { capture: false });
    fake.dropNextAnswer();
    const lost = await connector.authorize(short, terminal, request).catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(ConnectorError);
    expect(lost).toMatchObject({ retryable: true });

    const found = await connector.lookup(env, terminal, {
      operation: 'authorize',
      reference: request.reference,
      providerReference: null,
      tenantId: 'tenant-1',
      livemode: false,
    });
    expect(found).toMatchObject({ status: 'succeeded', rawStatus: 'requires_capture', providerReference: expect.stringMatching(/^pi_/) });
    expect(fake.requestsTo('GET', '/v1/payment_intents/search').at(-1)!.params.query).toBe(
      `metadata['payplane_reference']:'${request.reference}'`,
    );

    const again = await connector.authorize(env, terminal, request);
    expect(again.providerReference).toBe(found!.providerReference);
    const mine = [...fake.paymentIntents.values()].filter((pi) => pi.metadata.payplane_reference === request.reference);
    expect(mine).toHaveLength(1);
    expect(
      fake
        .requestsTo('POST', '/v1/payment_intents')
        .filter((r) => r.idempotencyKey === `payplane-authorize-${request.reference}`)
        .map((r) => r.replayed),
    ).toEqual([false, true]);
  });

  test("Stripe's search lagging behind: the look-up finds the authorization among the PaymentIntents listed since an hour", async () => {
    const request = authorizeRequest('4242424242424242');
    fake.dropNextAnswer();
    await expect(connector.authorize(envWith({ connectorTimeoutMs: 300 }), terminal, request)).rejects.toMatchObject({ retryable: true });
    // more PaymentIntents after it (the list answers newest first)
    for (let i = 0; i < 3; i++) await connector.authorize(env, terminal, authorizeRequest('4242424242424242'));
    fake.searchLagging = true;
    try {
      const lookup = {
        operation: 'authorize' as const,
        reference: request.reference,
        providerReference: null,
        tenantId: 'tenant-1',
        livemode: false,
      };
      const found = await connector.lookup(env, terminal, lookup);
      expect(found).toMatchObject({ status: 'succeeded', providerReference: expect.stringMatching(/^pi_/) });
      expect(fake.paymentIntents.get(found!.providerReference!)!.metadata.payplane_reference).toBe(request.reference);
      const listed = fake.requestsTo('GET', '/v1/payment_intents').at(-1)!;
      expect(Number(listed.params.created.gte)).toBeGreaterThan(Date.now() / 1000 - 3700);
      expect(await connector.lookup(env, terminal, { ...lookup, reference: ref('never-sent') })).toBeNull();
    } finally {
      fake.searchLagging = false;
    }
  });

  test('look-ups: not found is null; capture, void and refund read from the PaymentIntent and its refunds', async () => {
    const base = { tenantId: 'tenant-1', livemode: false };
    expect(
      await connector.lookup(env, terminal, { ...base, operation: 'authorize', reference: ref('never-sent'), providerReference: null }),
    ).toBeNull();

    const auth = await connector.authorize(env, terminal, authorizeRequest('4242424242424242', { capture: false }));
    const pi = auth.providerReference!;
    const lookup = (operation: 'capture' | 'void' | 'refund', reference = ref(operation)) =>
      connector.lookup(env, terminal, { ...base, operation, reference, providerReference: pi });
    expect(await lookup('capture')).toBeNull();
    expect(await lookup('void')).toBeNull();
    expect(
      await connector.lookup(env, terminal, { ...base, operation: 'capture', reference: ref('cap'), providerReference: 'pi_unknown' }),
    ).toBeNull();

    fake.failNext(500, { after: true });
    const capture = ref('cap');
    await expect(
      connector.capture(env, terminal, { reference: capture, providerReference: pi, amount: { currency: 'EUR', valueMinor: 1000 } }),
    ).rejects.toMatchObject({ name: 'ConnectorError', retryable: true });
    expect(await lookup('capture', capture)).toMatchObject({ status: 'succeeded', providerReference: pi });
    expect(await lookup('void')).toMatchObject({ status: 'failed' });

    const refundRef = ref('ref');
    expect(await lookup('refund', refundRef)).toBeNull();
    fake.dropNextAnswer();
    const short = envWith({ connectorTimeoutMs: 300 });
    await expect(
      connector.refund(short, terminal, {
        ...base,
        reference: refundRef,
        providerReference: pi,
        amount: { currency: 'EUR', valueMinor: 400 },
      }),
    ).rejects.toMatchObject({ retryable: true });
    expect(await lookup('refund', refundRef)).toMatchObject({ status: 'succeeded', providerReference: expect.stringMatching(/^re_/) });

    const toVoid = await connector.authorize(env, terminal, authorizeRequest('4242424242424242', { capture: false }));
    await connector.void(env, terminal, { reference: ref('void'), providerReference: toVoid.providerReference! });
    expect(
      await connector.lookup(env, terminal, {
        ...base,
        operation: 'void',
        reference: ref('void'),
        providerReference: toVoid.providerReference,
      }),
    ).toMatchObject({
      status: 'succeeded',
    });
  });

  test('an answer held past the timeout: retryable; the capture sent again with its reference is answered as the first (captured once)', async () => {
    const auth = await connector.authorize(env, terminal, authorizeRequest('4242424242424242', { capture: false }));
    const request = { reference: ref('cap'), providerReference: auth.providerReference!, amount: { currency: 'EUR', valueMinor: 700 } };
    const held = fake.holdNextAnswer();
    await expect(connector.capture(envWith({ connectorTimeoutMs: 300 }), terminal, request)).rejects.toMatchObject({ retryable: true });
    held.release();
    expect(await connector.capture(env, terminal, request)).toMatchObject({
      status: 'succeeded',
      providerReference: auth.providerReference,
    });
    const sent = fake.requestsTo('POST', `/v1/payment_intents/${auth.providerReference}/capture`);
    expect(sent.map((r) => r.replayed)).toEqual([false, true]);
    expect(fake.eventsOf('charge.captured').filter((e) => e.data.object.payment_intent === auth.providerReference)).toHaveLength(1);
  });

  test('a 5xx before Stripe acted, or a rate limit, is retryable; sent again it is carried out once', async () => {
    const request = authorizeRequest('4242424242424242');
    fake.failNext(500);
    await expect(connector.authorize(env, terminal, request)).rejects.toMatchObject({ name: 'ConnectorError', retryable: true });
    fake.failNext(429);
    await expect(connector.authorize(env, terminal, request)).rejects.toMatchObject({ name: 'ConnectorError', retryable: true });
    expect(await connector.authorize(env, terminal, request)).toMatchObject({ status: 'succeeded' });
    expect([...fake.paymentIntents.values()].filter((pi) => pi.metadata.payplane_reference === request.reference)).toHaveLength(1);
  });

  test('the same reference with other parameters: Stripe refuses the key (ConnectorError, not retryable)', async () => {
    const request = authorizeRequest('4242424242424242');
    await connector.authorize(env, terminal, request);
    await expect(connector.authorize(env, terminal, { ...request, amount: { currency: 'EUR', valueMinor: 999 } })).rejects.toMatchObject({
      name: 'ConnectorError',
      retryable: false,
    });
  });
});

describe('credentials, modes and transport', () => {
  test('checkCredentials: the key of the terminal mode, a whsec_ secret', () => {
    const whsec = 'whsec_abc';
    expect(connector.checkCredentials({ secretKey: 'sk_test_1', webhookSigningSecret: whsec }, false)).toBeNull();
    expect(connector.checkCredentials({ secretKey: 'rk_test_1', webhookSigningSecret: whsec }, false)).toBeNull();
    expect(connector.checkCredentials({ secretKey: 'sk_live_1', webhookSigningSecret: whsec }, true)).toBeNull();
    expect(connector.checkCredentials({ secretKey: 'rk_live_1', webhookSigningSecret: whsec }, true)).toBeNull();
    expect(connector.checkCredentials({ secretKey: 'sk_live_1', webhookSigningSecret: whsec }, false)).toMatchObject({
      code: 'CREDENTIALS_MODE_MISMATCH',
      field: 'secretKey',
    });
    expect(connector.checkCredentials({ secretKey: 'sk_test_1', webhookSigningSecret: whsec }, true)).toMatchObject({
      code: 'CREDENTIALS_MODE_MISMATCH',
      field: 'secretKey',
    });
    expect(connector.checkCredentials({ secretKey: 'pk_test_1', webhookSigningSecret: whsec }, false)).toMatchObject({
      code: 'INVALID_CREDENTIALS',
      field: 'secretKey',
    });
    expect(connector.checkCredentials({ secretKey: 'sk_test_1', webhookSigningSecret: 'secret' }, false)).toMatchObject({
      code: 'INVALID_CREDENTIALS',
      field: 'webhookSigningSecret',
    });
    expect(connector.checkCredentials({ webhookSigningSecret: whsec }, false)).toMatchObject({
      code: 'INVALID_CREDENTIALS',
      field: 'secretKey',
    });
  });

  test('a live payment on a sandbox terminal, a live key on a sandbox terminal, a refused key: not retryable, nothing charged', async () => {
    const before = fake.requests.length;
    await expect(connector.authorize(env, terminal, authorizeRequest('4242424242424242', { livemode: true }))).rejects.toMatchObject({
      name: 'ConnectorError',
      retryable: false,
    });
    await expect(
      connector.authorize(
        env,
        { ...terminal, credentials: { ...fake.credentials, secretKey: 'sk_live_abc' } },
        authorizeRequest('4242424242424242'),
      ),
    ).rejects.toMatchObject({ name: 'ConnectorError', retryable: false });
    expect(fake.requests.length).toBe(before);

    const wrongKey = { ...terminal, credentials: { ...fake.credentials, secretKey: 'sk_test_wrong' } };
    const refused = await connector.authorize(env, wrongKey, authorizeRequest('4242424242424242')).catch((e: Error) => e);
    expect(refused).toMatchObject({ name: 'ConnectorError', retryable: false });
    expect((refused as Error).message).not.toContain('sk_test_wrong');
    expect(fake.requests.at(-1)!.status).toBe(401);
  });

  test('a base URL on a loopback address not allowed, or with a path, is refused before any connection', async () => {
    const closed = envWith({ connectorAllowCidrs: [] });
    const before = fake.requests.length;
    await expect(connector.authorize(closed, terminal, authorizeRequest('4242424242424242'))).rejects.toMatchObject({
      name: 'ConnectorError',
      retryable: false,
    });
    // a path of its own would be dropped by the library (it calls <origin>/v1/…): refused rather than ignored
    await expect(
      connector.authorize(env, { ...terminal, connectorBaseUrl: `${fake.baseUrl}/proxy` }, authorizeRequest('4242424242424242')),
    ).rejects.toMatchObject({ name: 'ConnectorError', retryable: false });
    expect(fake.requests.length).toBe(before);
  });

  test('the registry serves provider code stripe with this connector (loaded on its first call)', async () => {
    const registered = connectorFor('stripe');
    expect(registered.kind).toBe('stripe');
    expect(typeof registered.lookup).toBe('function');
    expect(registered.checkCredentials!({ secretKey: 'sk_live_1', webhookSigningSecret: 'whsec_x' }, false)).toMatchObject({
      code: 'CREDENTIALS_MODE_MISMATCH',
    });
    expect(await registered.authorize(env, terminal, authorizeRequest('4242424242424242'))).toMatchObject({ status: 'succeeded' });
  });
});

describe("Stripe's amounts and codes", () => {
  test("amounts in Stripe's unit: two decimals for ISK, HUF and UGX (Stripe's special cases), the currency's own otherwise", () => {
    expect(toStripe({ currency: 'EUR', valueMinor: 1050 })).toEqual({ amount: 1050, currency: 'eur' });
    expect(toStripe({ currency: 'JPY', valueMinor: 500 })).toEqual({ amount: 500, currency: 'jpy' });
    expect(toStripe({ currency: 'KWD', valueMinor: 1250 })).toEqual({ amount: 1250, currency: 'kwd' });
    expect(toStripe({ currency: 'ISK', valueMinor: 500 })).toEqual({ amount: 50000, currency: 'isk' });
    expect(fromStripe(50000, 'isk')).toEqual({ currency: 'ISK', valueMinor: 500 });
    expect(fromStripe(1050, 'eur')).toEqual({ currency: 'EUR', valueMinor: 1050 });
  });

  test("decline codes: Stripe's decline_code first, then its code, card_declined when neither is known", () => {
    expect(ourDeclineCode('insufficient_funds', 'card_declined')).toBe('insufficient_funds');
    expect(ourDeclineCode('generic_decline', 'card_declined')).toBe('card_declined');
    expect(ourDeclineCode(undefined, 'expired_card')).toBe('expired_card');
    expect(ourDeclineCode('do_not_honor', 'card_declined')).toBe('do_not_honor');
    expect(ourDeclineCode('merchant_blacklist', 'card_declined')).toBe('fraudulent');
    expect(ourDeclineCode('something_new', 'also_new')).toBe('card_declined');
  });
});
