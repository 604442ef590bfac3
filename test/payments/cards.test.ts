import request from 'supertest';
import { useMoneyHarness, payWithCard } from '../helpers/money';
import { dialectName } from '../helpers/db';

/**
 * Every sandbox test card end to end over HTTP: checkout session, complete, the acquirer's asynchronous answer, the
 * merchant endpoint's signed webhooks, and the merchant's balances (sandbox fees: EUR 1.4% + 0.25).
 */

const m = useMoneyHarness({ ledger: 'afterEach' });

const merchant = () => m.as(m.sandbox.merchantKey.secretKey);
const tenant = () => m.as(m.sandbox.tenantKey.secretKey);

async function balances(): Promise<Record<string, number>> {
  const res = await merchant().get('/v1/balances?currency=EUR');
  const b = res.body.data[0];
  if (!b) return { pending: 0, available: 0, reserved: 0, payable: 0 };
  return {
    pending: b.pending.valueMinor,
    available: b.available.valueMinor,
    reserved: b.reserved.valueMinor,
    payable: b.payable.valueMinor,
  };
}

const NET = 10_000 - (140 + 25);
const SUCCESS_EVENTS = [
  'checkout.session.completed',
  'checkout.session.created',
  'payment.captured',
  'payment.created',
  'payment.processing',
  'payment.succeeded',
];
const FAILED_EVENTS = ['checkout.session.created', 'payment.created', 'payment.failed', 'payment.processing'];

describe(`sandbox test cards end to end (${dialectName})`, () => {
  test.each(['4242424242424242', '5555555555554444'])(
    '%s succeeds: captured, webhooks signed, pending balance credited net of fees',
    async (card) => {
      const before = await balances();
      const { paymentId, sessionId, payment } = await payWithCard(m, card);
      expect(payment).toMatchObject({
        status: 'captured',
        approved: true,
        errorCode: null,
        amountBreakdown: {
          authorized: { valueMinor: 10_000 },
          captured: { valueMinor: 10_000 },
          refunded: { valueMinor: 0 },
          fee: { valueMinor: 165 },
          net: { valueMinor: NET },
        },
        card: { last4: card.slice(-4), brand: card.startsWith('4') ? 'visa' : 'mastercard' },
      });
      expect(JSON.stringify(payment)).not.toContain(card);
      expect((await m.eventTypesAbout(paymentId, sessionId)).sort()).toEqual(SUCCESS_EVENTS);
      const session = await merchant().get(`/v1/checkout-sessions/${sessionId}`);
      expect(session.body.data).toMatchObject({ status: 'complete', paymentId, paymentStatus: 'captured' });
      expect(await balances()).toEqual({ ...before, pending: before.pending + NET });
    },
  );

  test.each([
    ['4000000000000002', 'card_declined'],
    ['4000000000009995', 'insufficient_funds'],
    ['4000000000009987', 'lost_card'],
    ['4000000000000069', 'expired_card'],
    ['4000000000000127', 'incorrect_cvc'],
    ['4000000000000119', 'processing_error'],
    ['4111111111111111', 'card_not_supported'],
  ])('%s fails with %s: payment.failed, no money moves, the session stays open for another card', async (card, code) => {
    const before = await balances();
    const { paymentId, sessionId, payment } = await payWithCard(m, card);
    expect(payment).toMatchObject({
      status: 'failed',
      approved: false,
      errorCode: code,
      amountBreakdown: { captured: { valueMinor: 0 }, fee: { valueMinor: 0 } },
    });
    expect(payment.errorMessage).toEqual(expect.any(String));
    expect((await m.eventTypesAbout(paymentId, sessionId)).sort()).toEqual(FAILED_EVENTS);
    const failed = m.events().find((e) => e.type === 'payment.failed' && e.data.id === paymentId)!;
    expect(failed.data).toMatchObject({ status: 'failed', errorCode: code });
    expect(failed.data.terminalId).toBeUndefined(); // merchant view: no provider details
    const session = await merchant().get(`/v1/checkout-sessions/${sessionId}`);
    expect(session.body.data).toMatchObject({ status: 'open', paymentStatus: 'failed' });
    expect(await balances()).toEqual(before);
  });

  test('4000002760003184 needs a 3DS challenge: requires_action with the page, Complete, then captured with threeDSResult', async () => {
    const before = await balances();
    const { paymentId, sessionId, payment } = await payWithCard(m, '4000002760003184');
    expect(payment).toMatchObject({
      status: 'requires_action',
      action: { type: 'redirect', url: expect.stringContaining('/sandbox/3ds/') },
    });
    const requiresAction = m.events().find((e) => e.type === 'payment.requires_action' && e.data.id === paymentId)!;
    expect(requiresAction.data.action).toEqual(payment.action);
    const path = new URL(payment.action.url, 'http://localhost').pathname;
    const page = await request(m.app).get(path);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Complete');
    const pressed = await request(m.app).post(path).type('form').send({ action: 'complete' });
    expect([200, 303]).toContain(pressed.status);
    await m.settle();
    const after = (await tenant().get(`/v1/payments/${paymentId}`)).body.data;
    expect(after).toMatchObject({
      status: 'captured',
      action: null,
      threeDSResult: { status: 'authenticated', challenged: true, liabilityShift: true },
    });
    expect((await m.eventTypesAbout(paymentId, sessionId)).sort()).toEqual([...SUCCESS_EVENTS, 'payment.requires_action'].sort());
    const succeeded = m.events().find((e) => e.type === 'payment.succeeded' && e.data.id === paymentId)!;
    expect(succeeded.data.threeDSResult).toMatchObject({ challenged: true });
    expect(await balances()).toEqual({ ...before, pending: before.pending + NET });
  });

  test('4000002760003184 with Fail on the challenge page: the payment fails with authentication_failed', async () => {
    const { paymentId, payment } = await payWithCard(m, '4000002760003184');
    const path = new URL(payment.action.url, 'http://localhost').pathname;
    await request(m.app).post(path).type('form').send({ action: 'fail' });
    await m.settle();
    const after = (await tenant().get(`/v1/payments/${paymentId}`)).body.data;
    expect(after).toMatchObject({ status: 'failed', errorCode: 'authentication_failed' });
    const failed = m.events().find((e) => e.type === 'payment.failed' && e.data.id === paymentId)!;
    expect(failed.data.threeDSResult).toMatchObject({ challenged: true });
  });

  test('4000000000003220 passes 3DS frictionless: captured, threeDSResult in payment.succeeded', async () => {
    const { paymentId, sessionId, payment } = await payWithCard(m, '4000000000003220');
    expect(payment).toMatchObject({ status: 'captured', threeDSResult: { challengeFlow: 'frictionless', challenged: false } });
    expect((await m.eventTypesAbout(paymentId, sessionId)).sort()).toEqual(SUCCESS_EVENTS);
    const succeeded = m.events().find((e) => e.type === 'payment.succeeded' && e.data.id === paymentId)!;
    expect(succeeded.data.threeDSResult).toMatchObject({ challengeFlow: 'frictionless' });
  });

  test('4000000000000077 makes the funds available at once (no holding period)', async () => {
    const before = await balances();
    const { payment } = await payWithCard(m, '4000000000000077');
    expect(payment.status).toBe('captured');
    expect(await balances()).toEqual({ ...before, available: before.available + NET });
  });

  test('4000000000005126: the payment succeeds, its refund fails asynchronously and gives nothing back', async () => {
    const { paymentId, sessionId } = await payWithCard(m, '4000000000005126');
    const before = await balances();
    const refund = await merchant()
      .post(`/v1/payments/${paymentId}/refunds`, { reason: 'customer asked' })
      .set('Idempotency-Key', `r-${paymentId}`);
    expect(refund.status).toBe(201);
    expect(refund.body.data).toMatchObject({ status: 'pending', amount: { currency: 'EUR', valueMinor: 10_000 }, paymentId });
    await m.settle();
    const final = await merchant().get(`/v1/refunds/${refund.body.data.id}`);
    expect(final.body.data).toMatchObject({ status: 'failed', statusReason: expect.any(String) });
    expect((await m.eventTypesAbout(paymentId, sessionId)).sort()).toEqual([...SUCCESS_EVENTS, 'refund.created', 'refund.failed'].sort());
    const payment = (await merchant().get(`/v1/payments/${paymentId}`)).body.data;
    expect(payment).toMatchObject({ status: 'captured', amountBreakdown: { refunded: { valueMinor: 0 } } });
    expect(await balances()).toEqual(before);
  });
});
