import request from 'supertest';
import { useMoneyHarness, payWithCard } from '../helpers/money';
import { expectProblem, createLiveTenantKey } from '../helpers/api';
import { dialectName, onPostgres } from '../helpers/db';
import * as providers from '../../src/services/processing/providers';
import type { PaymentAttemptRow, PaymentRow } from '../../src/db/models';

/** Capture, cancel, refunds (rules and concurrency), visibility, limits, routing and cascading of payments. */

const m = useMoneyHarness({ ledger: 'afterEach' });

const merchant = () => m.as(m.sandbox.merchantKey.secretKey);
const tenant = () => m.as(m.sandbox.tenantKey.secretKey);
const platform = () => m.as(m.sandbox.platformToken);
const CARD_PROVIDER = providers.SANDBOX_CARD_PROVIDER_ID;

async function balance(currency = 'EUR'): Promise<Record<string, number>> {
  const b = (await merchant().get(`/v1/balances?currency=${currency}`)).body.data[0];
  return b
    ? { pending: b.pending.valueMinor, available: b.available.valueMinor, reserved: b.reserved.valueMinor }
    : { pending: 0, available: 0, reserved: 0 };
}

const typesSince = (mark: number, id: string) =>
  m
    .events()
    .slice(mark)
    .filter((e) => e.data.id === id || e.data.paymentId === id)
    .map((e) => e.type)
    .sort();

async function attemptsOf(paymentId: string) {
  return (await m.rt.db.models.PaymentAttempt.findAll({
    where: { paymentId },
    order: [['sequence', 'ASC']],
    raw: true,
  })) as unknown as PaymentAttemptRow[];
}

describe(`payments (${dialectName})`, () => {
  test('manual capture: requires_capture books nothing; a partial capture books fees on the captured amount; capture again is 409', async () => {
    const before = await balance();
    const { paymentId, payment } = await payWithCard(m, '4242424242424242', { captureMethod: 'manual' });
    expect(payment).toMatchObject({
      status: 'requires_capture',
      approved: true,
      amountBreakdown: { authorized: { valueMinor: 10_000 }, captured: { valueMinor: 0 } },
    });
    expect(
      m
        .events()
        .filter((e) => e.data.id === paymentId)
        .map((e) => e.type),
    ).toContain('payment.requires_capture');
    expect(await balance()).toEqual(before);

    expectProblem(
      await merchant().post(`/v1/payments/${paymentId}/capture`, { amount: { currency: 'EUR', valueMinor: 10_001 } }),
      422,
      'CAPTURE_EXCEEDS_AUTHORIZED',
    );
    expectProblem(await merchant().post(`/v1/payments/${paymentId}/capture`, { amount: { currency: 'USD', valueMinor: 100 } }), 400);
    const mark = m.events().length;
    const captured = await merchant().post(`/v1/payments/${paymentId}/capture`, { amount: { currency: 'EUR', valueMinor: 6_000 } });
    expect(captured.status).toBe(200);
    const fee = 84 + 25; // 1.4% of 60.00 + 0.25
    expect(captured.body.data).toMatchObject({
      status: 'captured',
      amountBreakdown: {
        authorized: { valueMinor: 10_000 },
        captured: { valueMinor: 6_000 },
        fee: { valueMinor: fee },
        net: { valueMinor: 6_000 - fee },
      },
    });
    expect(captured.body.data.feeBreakdown).toBeUndefined(); // merchant view
    await m.settle();
    expect(typesSince(mark, paymentId)).toEqual(['payment.captured', 'payment.succeeded']);
    expect(await balance()).toEqual({ ...before, pending: before.pending + 6_000 - fee });
    expectProblem(await merchant().post(`/v1/payments/${paymentId}/capture`, {}), 409, 'PAYMENT_NOT_CAPTURABLE');
    const asTenant = (await tenant().get(`/v1/payments/${paymentId}`)).body.data;
    expect(asTenant.feeBreakdown).toEqual({
      providerFee: { currency: 'EUR', valueMinor: 0 },
      tenantFee: { currency: 'EUR', valueMinor: fee },
      platformFee: { currency: 'EUR', valueMinor: 0 },
      partnerCommission: { currency: 'EUR', valueMinor: 0 },
    });
  });

  test('cancel: a requires_capture payment is voided with payment.canceled and no refund; a captured one is 409', async () => {
    const before = await balance();
    const { paymentId } = await payWithCard(m, '5555555555554444', { captureMethod: 'manual' });
    const mark = m.events().length;
    const canceled = await merchant().post(`/v1/payments/${paymentId}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body.data).toMatchObject({
      status: 'voided',
      amountBreakdown: { captured: { valueMinor: 0 }, refunded: { valueMinor: 0 } },
    });
    await m.settle();
    expect(typesSince(mark, paymentId)).toEqual(['payment.canceled']);
    expect((await merchant().get(`/v1/payments/${paymentId}/refunds`)).body.data).toEqual([]);
    expect(await balance()).toEqual(before);
    expectProblem(await merchant().post(`/v1/payments/${paymentId}/cancel`), 409, 'PAYMENT_NOT_CANCELABLE');

    const captured = await payWithCard(m, '4242424242424242');
    expectProblem(await merchant().post(`/v1/payments/${captured.paymentId}/cancel`), 409, 'PAYMENT_NOT_CANCELABLE');
    expectProblem(await merchant().post(`/v1/payments/${captured.paymentId}/capture`), 409, 'PAYMENT_NOT_CAPTURABLE');
  });

  test('cancel of a processing or requires_action payment voids it without waiting; a late approval changes nothing', async () => {
    const challenged = await payWithCard(m, '4000002760003184');
    expect(challenged.payment.status).toBe('requires_action');
    const canceled = await merchant().post(`/v1/payments/${challenged.paymentId}/cancel`);
    expect(canceled.body.data).toMatchObject({ status: 'voided', action: null });
    const path = new URL(challenged.payment.action.url, 'http://localhost').pathname;
    await request(m.app).post(path).type('form').send({ action: 'complete' });
    await m.settle();
    expect((await tenant().get(`/v1/payments/${challenged.paymentId}`)).body.data).toMatchObject({
      status: 'voided',
      providerStatus: 'voided',
      amountBreakdown: { captured: { valueMinor: 0 } },
    });

    const before = await balance();
    const processing = await payWithCard(m, '4242424242424242', { settle: false });
    expect(processing.payment.status).toBe('processing');
    expect((await merchant().post(`/v1/payments/${processing.paymentId}/cancel`)).body.data.status).toBe('voided');
    await m.settle();
    expect((await tenant().get(`/v1/payments/${processing.paymentId}`)).body.data).toMatchObject({
      status: 'voided',
      providerStatus: 'voided',
    });
    expect(
      m
        .events()
        .filter((e) => e.data.id === processing.paymentId)
        .map((e) => e.type),
    ).not.toContain('payment.succeeded');
    expect(await balance()).toEqual(before);
  });

  test('refunds: partial then the rest; no payment event; the merchant is debited; over-refund is 422; idempotent replay', async () => {
    const { paymentId } = await payWithCard(m, '4242424242424242');
    const before = await balance();
    const mark = m.events().length;
    const first = await merchant()
      .post(`/v1/payments/${paymentId}/refunds`, {
        amount: { currency: 'EUR', valueMinor: 3_000 },
        reason: 'damaged',
        items: [{ label: 'Mug', unitAmount: { currency: 'EUR', valueMinor: 3_000 }, quantity: 1 }],
      })
      .set('Idempotency-Key', `refund-1-${paymentId}`);
    expect(first.status).toBe(201);
    expect(first.body.data.items[0]).toMatchObject({ id: expect.any(String), label: 'Mug' });
    const replay = await merchant()
      .post(`/v1/payments/${paymentId}/refunds`, {
        amount: { currency: 'EUR', valueMinor: 3_000 },
        reason: 'damaged',
        items: [{ label: 'Mug', unitAmount: { currency: 'EUR', valueMinor: 3_000 }, quantity: 1 }],
      })
      .set('Idempotency-Key', `refund-1-${paymentId}`);
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.data.id).toBe(first.body.data.id);
    await m.settle();
    expect((await merchant().get(`/v1/payments/${paymentId}`)).body.data).toMatchObject({
      status: 'partially_refunded',
      amountBreakdown: { refunded: { valueMinor: 3_000 } },
    });
    expectProblem(
      await merchant().post(`/v1/payments/${paymentId}/refunds`, { amount: { currency: 'EUR', valueMinor: 7_001 } }),
      422,
      'REFUND_EXCEEDS_REFUNDABLE',
    );
    const rest = await merchant().post(`/v1/payments/${paymentId}/refunds`, {});
    expect(rest.body.data).toMatchObject({ status: 'pending', amount: { valueMinor: 7_000 } });
    await m.settle();
    expect((await merchant().get(`/v1/refunds/${rest.body.data.id}`)).body.data.status).toBe('succeeded');
    const payment = (await merchant().get(`/v1/payments/${paymentId}`)).body.data;
    expect(payment).toMatchObject({
      status: 'refunded',
      amountBreakdown: {
        captured: { valueMinor: 10_000 },
        refunded: { valueMinor: 10_000 },
        fee: { valueMinor: 165 },
        net: { valueMinor: -165 },
      },
    });
    expect(typesSince(mark, paymentId)).toEqual(['refund.created', 'refund.created', 'refund.succeeded', 'refund.succeeded']);
    const after = await balance();
    expect(after.available).toBe(before.available - 10_000);
    expect(after.pending).toBe(before.pending);
    expectProblem(await merchant().post(`/v1/payments/${paymentId}/refunds`, {}), 409, 'PAYMENT_ALREADY_REFUNDED');
    const list = await merchant().get(`/v1/payments/${paymentId}/refunds`);
    expect(list.body.data.map((r: { id: string }) => r.id)).toEqual([rest.body.data.id, first.body.data.id]);
    // a refund drove available below zero: the tenant hears of it (balance.negative is tenant-level)
    const negative = await m.rt.db.models.Event.findAll({ where: { type: 'balance.negative' }, raw: true });
    expect(negative.length).toBeGreaterThan(0);
    expect(m.events().some((e) => e.type === 'balance.negative')).toBe(false);

    const failed = await payWithCard(m, '4000000000000002');
    expectProblem(await merchant().post(`/v1/payments/${failed.paymentId}/refunds`, {}), 409, 'PAYMENT_NOT_REFUNDABLE');
  });

  test('provider rules: partial refunds only where supported; one lifetime full refund where the provider says so; one refund without multiple_refunds', async () => {
    const adjust = (features: object[]) =>
      platform().patch(`/v1/admin/provider-integrations/${CARD_PROVIDER}/capabilities`, { supportedFeatures: features });
    try {
      expect((await adjust([{ feature: 'partial_refund', supported: false }])).status).toBe(200);
      const a = await payWithCard(m, '4242424242424242');
      expectProblem(
        await merchant().post(`/v1/payments/${a.paymentId}/refunds`, { amount: { currency: 'EUR', valueMinor: 100 } }),
        422,
        'PARTIAL_REFUND_NOT_SUPPORTED',
      );
      expect((await merchant().post(`/v1/payments/${a.paymentId}/refunds`, {})).status).toBe(201);

      await adjust([
        { feature: 'partial_refund', supported: true },
        { feature: 'multiple_refunds', supported: false },
      ]);
      const b = await payWithCard(m, '4242424242424242');
      expect((await merchant().post(`/v1/payments/${b.paymentId}/refunds`, { amount: { currency: 'EUR', valueMinor: 100 } })).status).toBe(
        201,
      );
      await m.settle();
      expectProblem(
        await merchant().post(`/v1/payments/${b.paymentId}/refunds`, { amount: { currency: 'EUR', valueMinor: 100 } }),
        422,
        'MULTIPLE_REFUNDS_NOT_SUPPORTED',
      );
    } finally {
      await platform().patch(`/v1/admin/provider-integrations/${CARD_PROVIDER}/capabilities`, { reset: true });
    }
    // the catalog's single-refund sandbox acquirer allows one lifetime full refund per payment
    const single = await tenant().post('/v1/admin/terminals', {
      providerIntegrationId: providers.SANDBOX_SINGLE_REFUND_PROVIDER_ID,
      name: 'Single refund terminal',
      supportedCurrencies: ['EUR'],
      credentials: { merchantAccount: 'single', apiKey: 'k1' },
    });
    expect(single.status).toBe(201);
    await platform().patch(`/v1/admin/provider-integrations/${CARD_PROVIDER}/status`, { status: 'maintenance' });
    let c: Awaited<ReturnType<typeof payWithCard>>;
    try {
      c = await payWithCard(m, '4242424242424242');
    } finally {
      await platform().patch(`/v1/admin/provider-integrations/${CARD_PROVIDER}/status`, { status: 'available' });
      await tenant().post(`/v1/admin/terminals/${single.body.data.id}/disable`);
    }
    expect(c.payment).toMatchObject({ status: 'captured', terminalId: single.body.data.id });
    expectProblem(
      await merchant().post(`/v1/payments/${c.paymentId}/refunds`, { amount: { currency: 'EUR', valueMinor: 100 } }),
      422,
      'SINGLE_FULL_REFUND_ONLY',
    );
    expect((await merchant().post(`/v1/payments/${c.paymentId}/refunds`, {})).status).toBe(201);
    await m.settle();
    expectProblem(await merchant().post(`/v1/payments/${c.paymentId}/refunds`, {}), 409, 'PAYMENT_ALREADY_REFUNDED');
  });

  test(`50 concurrent full refunds of one payment make exactly one refund (${dialectName}); the same key replays it`, async () => {
    const { paymentId } = await payWithCard(m, '4242424242424242');
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        merchant().post(`/v1/payments/${paymentId}/refunds`, {}).set('Idempotency-Key', `concurrent-${paymentId}-${i}`),
      ),
    );
    const created = results.filter((r) => r.status === 201);
    expect(created).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) expectProblem(r, 422, 'REFUND_EXCEEDS_REFUNDABLE');
    const winner = results.indexOf(created[0]);
    const sameKey = await Promise.all(
      Array.from({ length: 5 }, () =>
        merchant().post(`/v1/payments/${paymentId}/refunds`, {}).set('Idempotency-Key', `concurrent-${paymentId}-${winner}`),
      ),
    );
    for (const r of sameKey) expect(r.body.data?.id ?? r.body.code).toBe(created[0].body.data.id);
    await m.settle();
    expect(await m.rt.db.models.Refund.count({ where: { paymentId } })).toBe(1);
    expect((await merchant().get(`/v1/payments/${paymentId}`)).body.data).toMatchObject({
      status: 'refunded',
      amountBreakdown: { refunded: { valueMinor: 10_000 } },
    });
    if (onPostgres) expect(results).toHaveLength(50);
  });

  test('visibility: merchant view hides provider details; other tenants and the other mode get 404; filters and platform reads', async () => {
    const { paymentId, sessionId } = await payWithCard(m, '4242424242424242');
    const asMerchant = (await merchant().get(`/v1/payments/${paymentId}`)).body.data;
    for (const hidden of ['terminalId', 'routingDecision', 'feeBreakdown', 'providerReference', 'providerStatus'])
      expect(asMerchant).not.toHaveProperty(hidden);
    const asTenant = (await tenant().get(`/v1/payments/${paymentId}`)).body.data;
    expect(asTenant).toMatchObject({
      terminalId: m.sandbox.terminalId,
      providerReference: expect.any(String),
      routingDecision: { strategy: expect.any(String) },
    });
    const asPlatform = await platform().get(`/v1/payments/${paymentId}`);
    expect(asPlatform.status).toBe(200);
    const live = await createLiveTenantKey(m);
    expectProblem(await m.as(live.secretKey).get(`/v1/payments/${paymentId}`), 404);
    expectProblem(await m.as(live.secretKey).get(`/v1/payments/${paymentId}/refunds`), 404);
    const bySession = await merchant().get(`/v1/payments?checkoutSessionId=${sessionId}`);
    expect(bySession.body.data.map((p: { id: string }) => p.id)).toEqual([paymentId]);
    const failedOnly = await tenant().get('/v1/payments?status=failed&limit=100');
    expect(failedOnly.body.data.every((p: { status: string }) => p.status === 'failed')).toBe(true);
    expectProblem(await merchant().get('/v1/payments?status=paid'), 400);
    expectProblem(await merchant().get('/v1/refunds/not-a-uuid'), 404);
    // the card number never reaches the database in clear
    const rows = JSON.stringify(await m.rt.db.models.Payment.findAll({ raw: true }));
    expect(rows).not.toContain('4242424242424242');
  });

  test('limits: a merchant limit refuses with LIMIT_EXCEEDED; a terminal limit routes the payment to another terminal', async () => {
    const limit = await tenant().post(`/v1/admin/merchants/${m.sandbox.merchantId}/limits`, {
      period: { value: 1, unit: 'day' },
      metric: 'volume',
      threshold: 15_000,
      currency: 'USD',
    });
    expect(limit.status).toBe(201);
    await payWithCard(m, '4242424242424242', { currency: 'USD' });
    const over = await merchant().post('/v1/checkout-sessions', { amount: { currency: 'USD', valueMinor: 10_000 } });
    const refused = await merchant().post(`/v1/checkout-sessions/${over.body.data.id}/complete`, {
      paymentMethod: { type: 'card', card: { number: '4242424242424242', expMonth: 12, expYear: 2030, cvc: '123' } },
    });
    expectProblem(refused, 422, 'LIMIT_EXCEEDED');
    expect(refused.body.detail).toContain(limit.body.data.id);
    await tenant().post(`/v1/admin/merchants/${m.sandbox.merchantId}/limits/${limit.body.data.id}/disable`);

    const second = await tenant().post('/v1/admin/terminals', {
      providerIntegrationId: CARD_PROVIDER,
      name: 'Second terminal',
      supportedCurrencies: ['EUR', 'USD'],
      credentials: { merchantAccount: 'two', apiKey: 'k2' },
    });
    expect(second.status).toBe(201);
    const capped = await tenant().post(`/v1/admin/terminals/${m.sandbox.terminalId}/limits`, {
      period: { value: 1, unit: 'hour' },
      metric: 'volume',
      threshold: 1,
      currency: 'USD',
    });
    expect(capped.status).toBe(201);
    const { payment } = await payWithCard(m, '4242424242424242', { currency: 'USD' });
    expect(payment).toMatchObject({ status: 'captured', terminalId: second.body.data.id });
    const excluded = payment.routingDecision.candidates.find((c: { terminalId: string }) => c.terminalId === m.sandbox.terminalId);
    expect(excluded).toMatchObject({ eligible: false, reasons: [expect.stringContaining('limit')] });
    await tenant().post(`/v1/admin/terminals/${m.sandbox.terminalId}/limits/${capped.body.data.id}/disable`);
  });

  test("a session names a payin channel: the channel's limits apply and the payment carries it", async () => {
    const channel = await tenant().post('/v1/admin/channels', { name: 'Web shop', direction: 'payin', currencies: ['EUR'] });
    expect(channel.status).toBe(201);
    const limit = await tenant().post(`/v1/admin/channels/${channel.body.data.id}/limits`, {
      period: { value: 1, unit: 'day' },
      metric: 'count',
      threshold: 1,
    });
    expect(limit.status).toBe(201);
    const session = () =>
      merchant().post('/v1/checkout-sessions', { amount: { currency: 'EUR', valueMinor: 500 }, channelId: channel.body.data.id });
    const card = { paymentMethod: { type: 'card', card: { number: '4242424242424242', expMonth: 12, expYear: 2030, cvc: '123' } } };
    const first = await session();
    expect(first.body.data.channelId).toBe(channel.body.data.id);
    const paid = await merchant().post(`/v1/checkout-sessions/${first.body.data.id}/complete`, card);
    await m.settle();
    expect((await tenant().get(`/v1/payments/${paid.body.data.paymentId}`)).body.data).toMatchObject({
      status: 'captured',
      channelId: channel.body.data.id,
    });
    const second = await session();
    expectProblem(await merchant().post(`/v1/checkout-sessions/${second.body.data.id}/complete`, card), 422, 'LIMIT_EXCEEDED');
    expectProblem(
      await merchant().post('/v1/checkout-sessions', { amount: { currency: 'USD', valueMinor: 500 }, channelId: channel.body.data.id }),
      400,
    );
    expectProblem(
      await merchant().post('/v1/checkout-sessions', {
        amount: { currency: 'EUR', valueMinor: 500 },
        channelId: m.sandbox.payoutChannelId,
      }),
      400,
    );
  });

  test('cascading: a soft decline is tried at the next terminal up to maxDeclineAttempts; a hard decline is not; the sealed card is wiped', async () => {
    const profiles = await tenant().get(`/v1/admin/integration-profiles?merchantId=${m.sandbox.merchantId}`);
    const profileId = profiles.body.data[0].id;
    expect(
      (await tenant().patch(`/v1/admin/integration-profiles/${profileId}`, { cascadingEnabled: true, maxDeclineAttempts: 3 })).status,
    ).toBe(200);
    const terminals = (await tenant().get('/v1/admin/terminals?limit=100')).body.data.filter(
      (t: { status: string; direction: string }) => t.status === 'active' && t.direction === 'payin',
    );
    expect(terminals.length).toBeGreaterThanOrEqual(2);

    const soft = await payWithCard(m, '4000000000000119');
    expect(soft.payment).toMatchObject({ status: 'failed', errorCode: 'processing_error' });
    const softAttempts = await attemptsOf(soft.paymentId);
    expect(softAttempts.length).toBe(Math.min(3, terminals.length));
    expect(new Set(softAttempts.map((a) => a.terminalId)).size).toBe(softAttempts.length);
    expect(softAttempts.every((a) => a.status === 'failed')).toBe(true);

    const hard = await payWithCard(m, '4000000000009995');
    expect(hard.payment.errorCode).toBe('insufficient_funds');
    expect(await attemptsOf(hard.paymentId)).toHaveLength(1);

    const ok = await payWithCard(m, '4242424242424242');
    expect(ok.payment.status).toBe('captured');
    expect(await attemptsOf(ok.paymentId)).toHaveLength(1);
    const rows = (await m.rt.db.models.Payment.findAll({
      where: { id: [soft.paymentId, hard.paymentId, ok.paymentId] },
      raw: true,
    })) as unknown as PaymentRow[];
    expect(rows.map((r) => r.cardVault)).toEqual([null, null, null]);

    await tenant().patch(`/v1/admin/integration-profiles/${profileId}`, { maxDeclineAttempts: 1 });
    const once = await payWithCard(m, '4000000000000002');
    expect(await attemptsOf(once.paymentId)).toHaveLength(1);
    await tenant().patch(`/v1/admin/integration-profiles/${profileId}`, { cascadingEnabled: false });
  });

  test('a provider in maintenance takes no payments: with no eligible terminal the payment fails with no_eligible_terminal', async () => {
    expect((await platform().patch(`/v1/admin/provider-integrations/${CARD_PROVIDER}/status`, { status: 'maintenance' })).status).toBe(200);
    try {
      const { payment } = await payWithCard(m, '4242424242424242');
      expect(payment).toMatchObject({ status: 'failed', errorCode: 'no_eligible_terminal', terminalId: null });
      expect(payment.routingDecision.candidates.every((c: { eligible: boolean }) => !c.eligible)).toBe(true);
    } finally {
      await platform().patch(`/v1/admin/provider-integrations/${CARD_PROVIDER}/status`, { status: 'available' });
    }
  });
});
