import fs from 'node:fs';
import https from 'node:https';
import request from 'supertest';
import { useMoneyHarness, openSession, payWithCard } from '../helpers/money';
import { dialectName } from '../helpers/db';
import { eur } from '../helpers/amounts';
import { testTls } from '../helpers/receiver';
import { FakeStripe } from '../fakes/stripe';
import {
  acquirerConfig,
  createAcquirerTerminal,
  disableSandboxTerminal,
  pointProvider,
  STRIPE_PROVIDER as STRIPE,
} from '../helpers/acquirers';
import { recoverStalledCalls } from '../../src/services/payments/recovery';
import { runDueNotifications } from '../../src/services/notifications/redelivery';

/**
 * Stripe end to end through the API: a terminal of provider `stripe` on the sandbox tenant with the fake's keys, the
 * provider integration's connectorBaseUrl pointed at the local fake of Stripe (test/fakes/stripe.ts), the sandbox card
 * terminal disabled so that payments route to Stripe. A checkout paid with a card, a 3DS challenge passed on Stripe's
 * page and back through our return page, a dispute opened and won by Stripe's signed notifications; a forged
 * notification refused, a repeated one answered and changing nothing.
 */

const fake = new FakeStripe();
const m = useMoneyHarness({ config: acquirerConfig() });
let terminalId: string;
const merchant = () => m.as(m.sandbox.merchantKey.secretKey);
const tenant = () => m.as(m.sandbox.tenantKey.secretKey);

beforeAll(async () => {
  await fake.start();
  await pointProvider(m, STRIPE, fake.baseUrl);
  terminalId = await createAcquirerTerminal(m, STRIPE, fake.credentials, { name: 'Stripe (fake)' });
  await disableSandboxTerminal(m);
});
afterAll(() => fake.stop());

const card = (number: string) => ({
  paymentMethod: { type: 'card', card: { number, expMonth: 12, expYear: 2030, cvc: '123', holderName: 'Ada' } },
});

async function checkoutWith(number: string, body: object = {}) {
  const s = await openSession(m, { amount: eur(2000), successUrl: 'https://shop.example/ok', ...body });
  const res = await m.as(s.clientSecret).post(`/v1/checkout-sessions/${s.id}/complete`, card(number));
  expect(res.status).toBe(200);
  const paymentId = res.body.data.paymentId as string;
  return { session: s, paymentId };
}

const payment = async (id: string) => (await merchant().get(`/v1/payments/${id}`)).body.data;

/** The PaymentIntents the fake holds for a payment's attempts (by our reference in their metadata). */
const intentsOf = async (paymentId: string) => {
  const row = (await m.rt.db.models.Payment.findByPk(paymentId))!.get({ plain: true }) as { currentAttemptId: string };
  return [...fake.paymentIntents.values()].filter((pi) => pi.metadata.payplane_reference === row.currentAttemptId);
};

/** The payment's attempts (records: their codes are internal). */
async function attemptsOf(paymentId: string) {
  const rows = await m.rt.db.models.PaymentAttempt.findAll({ where: { paymentId } as never });
  return rows.map((r) => r.get({ plain: true }) as Record<string, any>);
}

/** GET over the fake's TLS: the status and Location. */
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

function notify(event: Record<string, unknown>, options: { secret?: string } = {}) {
  const signed = fake.signed(event, options);
  return request(m.app).post(`/v1/provider-notifications/${terminalId}`).set(signed.headers).send(signed.body);
}

describe(`Stripe through the API (${dialectName})`, () => {
  test('a checkout paid with a card: Stripe approves and captures, once, the payment names the PaymentIntent', async () => {
    const { session, paymentId } = await checkoutWith('4242424242424242');
    await m.settle();
    const paid = await payment(paymentId);
    expect(paid).toMatchObject({ status: 'captured', amount: eur(2000) });
    const intents = await intentsOf(paymentId);
    expect(intents).toHaveLength(1);
    expect(intents[0]).toMatchObject({ status: 'succeeded', amount: 2000, currency: 'eur', amount_received: 2000 });
    expect((await merchant().get(`/v1/checkout-sessions/${session.id}`)).body.data).toMatchObject({
      status: 'complete',
      paymentStatus: 'captured',
    });
    const row = (await m.rt.db.models.Payment.findByPk(paymentId))!.get({ plain: true }) as { providerReference: string };
    expect(row.providerReference).toBe(intents[0].id);
  });

  test("a declined card: the payment fails with our decline code, the attempt keeps Stripe's and names the PaymentIntent", async () => {
    const { paymentId } = await checkoutWith('4000000000009995');
    await m.settle();
    expect(await payment(paymentId)).toMatchObject({ status: 'failed', errorCode: 'insufficient_funds', approved: false });
    const [attempt] = await attemptsOf(paymentId);
    expect(attempt).toMatchObject({ declineCode: 'insufficient_funds', providerDeclineCode: 'insufficient_funds' });
    expect(attempt.providerReference).toMatch(/^pi_/);
  });

  test("a 3DS challenge: Stripe's page, back through our return page to the merchant, the payment captured", async () => {
    const { paymentId } = await checkoutWith('4000002760003184');
    const waiting = await payment(paymentId);
    expect(waiting.status).toBe('requires_action');
    expect(waiting.action.url.startsWith(`${fake.baseUrl}/3ds/`)).toBe(true);

    const page = await get(`${waiting.action.url}?outcome=pass`);
    expect(page.status).toBe(302);
    const back = new URL(page.location!);
    expect(back.searchParams.get('payment_intent')).toMatch(/^pi_/);
    const [attempt] = await attemptsOf(paymentId);
    expect(back.pathname).toBe(`/provider-returns/${attempt.id}`);
    const returned = await request(m.app).get(`${back.pathname}${back.search}`);
    expect(returned.status).toBe(303);
    expect(returned.headers.location).toContain('https://shop.example/ok');
    await m.settle();
    expect(await payment(paymentId)).toMatchObject({
      status: 'captured',
      threeDSResult: { status: 'authenticated', challenged: true, liabilityShift: true },
    });
    // one authorization at Stripe: the return read it, nothing was sent again
    expect(fake.requestsTo('POST', '/v1/payment_intents').filter((r) => r.params.metadata.payplane_reference === attempt.id)).toHaveLength(
      1,
    );
  });

  test("a 3DS challenge failed on Stripe's page: back through our return page, the payment failed authentication_failed", async () => {
    const { paymentId } = await checkoutWith('4000002760003184');
    const waiting = await payment(paymentId);
    const page = await get(`${waiting.action.url}?outcome=fail`);
    const back = new URL(page.location!);
    const returned = await request(m.app).get(`${back.pathname}${back.search}`);
    expect(returned.status).toBe(303);
    await m.settle();
    expect(await payment(paymentId)).toMatchObject({ status: 'failed', errorCode: 'authentication_failed' });
    const [attempt] = await attemptsOf(paymentId);
    expect(attempt).toMatchObject({ declineCode: 'authentication_failed', providerDeclineCode: 'payment_intent_authentication_failure' });
  });

  test("a 3DS challenge passed on Stripe's page, the customer never back: Stripe's payment_intent.succeeded captures the payment", async () => {
    const { paymentId } = await checkoutWith('4000002760003184');
    const waiting = await payment(paymentId);
    expect(waiting.status).toBe('requires_action');
    expect(waiting.action.url.startsWith(`${fake.baseUrl}/3ds/`)).toBe(true);
    expect((await get(`${waiting.action.url}?outcome=pass`)).status).toBe(302);
    const [pi] = await intentsOf(paymentId);
    expect(pi.status).toBe('succeeded');
    expect(await payment(paymentId)).toMatchObject({ status: 'requires_action' });

    const delivered = await notify(fake.lastEvent('payment_intent.succeeded', pi.id));
    expect(delivered.status).toBe(200);
    await m.settle();
    expect(await payment(paymentId)).toMatchObject({ status: 'captured' });
  });

  test('manual capture: a partial capture, two partial refunds at Stripe; a cancel voids another authorization', async () => {
    const { paymentId } = await payWithCard(m, '4242424242424242', { amount: 2000, captureMethod: 'manual' });
    expect(await payment(paymentId)).toMatchObject({ status: 'requires_capture' });
    const [pi] = await intentsOf(paymentId);
    expect(pi).toMatchObject({ status: 'requires_capture', capture_method: 'manual', amount_capturable: 2000 });

    const captured = await merchant().post(`/v1/payments/${paymentId}/capture`, { amount: eur(1200) });
    expect(captured.status).toBe(200);
    await m.settle();
    expect(await payment(paymentId)).toMatchObject({ status: 'captured' });
    expect(fake.paymentIntents.get(pi.id)).toMatchObject({ status: 'succeeded', amount_received: 1200 });

    for (const valueMinor of [500, 300]) {
      const refund = await merchant().post(`/v1/payments/${paymentId}/refunds`, { amount: eur(valueMinor) });
      expect(refund.status).toBeLessThan(300);
      await m.settle();
      expect((await merchant().get(`/v1/refunds/${refund.body.data.id}`)).body.data).toMatchObject({ status: 'succeeded' });
    }
    const refunds = [...fake.refunds.values()].filter((r) => r.payment_intent === pi.id);
    expect(refunds.map((r) => r.amount).sort()).toEqual([300, 500]);

    const other = await payWithCard(m, '4242424242424242', { amount: 2000, captureMethod: 'manual' });
    const canceled = await merchant().post(`/v1/payments/${other.paymentId}/cancel`);
    expect(canceled.status).toBe(200);
    await m.settle();
    expect(await payment(other.paymentId)).toMatchObject({ status: 'voided' });
    const [otherPi] = await intentsOf(other.paymentId);
    expect(otherPi.status).toBe('canceled');
  });

  test('lost answers: an authorization and a refund Stripe took but whose answers timed out are settled by the look-up, never sent twice', async () => {
    fake.dropNextAnswer();
    const { paymentId } = await checkoutWith('4242424242424242');
    expect(await payment(paymentId)).toMatchObject({ status: 'processing' });
    const [attempt] = await attemptsOf(paymentId);
    expect(attempt).toMatchObject({ status: 'pending', providerReference: null });

    // Stripe's search not caught up yet (it is not read-after-write): the look-up lists the last hour's PaymentIntents
    fake.searchLagging = true;
    m.clock.advance(3 * 60_000);
    try {
      await recoverStalledCalls(m.rt);
    } finally {
      fake.searchLagging = false;
    }
    await m.settle();
    const [pi] = await intentsOf(paymentId);
    expect(await payment(paymentId)).toMatchObject({ status: 'captured' });
    expect((await attemptsOf(paymentId))[0]).toMatchObject({ status: 'succeeded', providerReference: pi.id });
    const created = fake.requestsTo('POST', '/v1/payment_intents').filter((r) => r.params.metadata.payplane_reference === attempt.id);
    expect(created).toHaveLength(1);

    fake.dropNextAnswer();
    const refund = await merchant().post(`/v1/payments/${paymentId}/refunds`, { amount: eur(500) });
    expect([200, 201, 202]).toContain(refund.status);
    const refundId = refund.body.data.id as string;
    m.clock.advance(3 * 60_000);
    await recoverStalledCalls(m.rt);
    await m.settle();
    expect((await merchant().get(`/v1/refunds/${refundId}`)).body.data).toMatchObject({ status: 'succeeded', amount: eur(500) });
    const sent = fake.requestsTo('POST', '/v1/refunds').filter((r) => r.params.metadata.payplane_reference === refundId);
    expect(sent).toHaveLength(1);
    expect([...fake.refunds.values()].filter((r) => r.metadata.payplane_reference === refundId)).toHaveLength(1);
  });

  test("a dispute opened and won by Stripe's signed notifications; a forged one is 401 and changes nothing; a repeat changes nothing", async () => {
    const { paymentId } = await checkoutWith('4000000000000259');
    await m.settle();
    expect(await payment(paymentId)).toMatchObject({ status: 'captured' });
    const [pi] = await intentsOf(paymentId);
    const opened = fake.eventsOf('charge.dispute.created').find((e) => e.data.object.payment_intent === pi.id)!;
    const dp = opened.data.object.id as string;

    // forged: signed with another secret
    const inbox = () => m.rt.db.models.ProviderNotification.count();
    const stored = await inbox();
    const forged = await notify(opened, { secret: 'whsec_forged' });
    expect(forged.status).toBe(401);
    expect(forged.headers['content-type']).toMatch(/^application\/problem\+json/);
    const disputes = async () => (await tenant().get(`/v1/disputes?paymentId=${paymentId}`)).body.data as Array<Record<string, any>>;
    expect(await disputes()).toEqual([]);
    expect(await inbox()).toBe(stored);

    const first = await notify(opened);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ received: true });
    const [dispute] = await disputes();
    expect(dispute).toMatchObject({ status: 'needs_response', providerReference: dp, amount: eur(2000), reason: 'fraudulent' });

    const repeat = await notify(opened);
    expect(repeat.status).toBe(200);
    expect(await disputes()).toHaveLength(1);
    expect(await inbox()).toBe(stored + 1);

    const closed = fake.decideDispute(dp, 'won');
    expect((await notify(closed)).status).toBe(200);
    await m.settle();
    expect((await disputes())[0]).toMatchObject({ id: dispute.id, status: 'won' });
    expect((await notify(closed)).status).toBe(200);
    expect((await disputes())[0]).toMatchObject({ id: dispute.id, status: 'won' });
  });

  test("a dispute lost, Stripe's closing event delivered before its opening: kept, then applied once the dispute is known", async () => {
    const { paymentId } = await checkoutWith('4000000000000259');
    await m.settle();
    const [pi] = await intentsOf(paymentId);
    const opened = fake.eventsOf('charge.dispute.created').find((e) => e.data.object.payment_intent === pi.id)!;
    const dp = opened.data.object.id as string;
    const closed = fake.decideDispute(dp, 'lost');
    const disputes = async () => (await tenant().get(`/v1/disputes?paymentId=${paymentId}`)).body.data as Array<Record<string, any>>;

    // reordered: the decision first, answered as received and kept for its dispute
    expect((await notify(closed)).status).toBe(200);
    expect(await disputes()).toEqual([]);
    expect((await notify(opened)).status).toBe(200);
    const [dispute] = await disputes();
    expect(dispute).toMatchObject({ status: 'needs_response', providerReference: dp });

    m.clock.advance(60_000);
    await runDueNotifications(m.rt);
    await m.settle();
    expect((await disputes())[0]).toMatchObject({ id: dispute.id, status: 'lost' });
    const lostOnce = async () => (await m.eventTypesAbout(dispute.id)).filter((t) => t === 'dispute.lost');
    expect(await lostOnce()).toHaveLength(1);

    // delivered again by Stripe: nothing more
    expect((await notify(closed)).status).toBe(200);
    m.clock.advance(60_000);
    await runDueNotifications(m.rt);
    expect((await disputes())[0]).toMatchObject({ id: dispute.id, status: 'lost' });
    expect(await lostOnce()).toHaveLength(1);
  });
});
