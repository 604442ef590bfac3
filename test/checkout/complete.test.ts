import { useMoneyHarness, openSession } from '../helpers/money';
import { dialectName } from '../helpers/db';
import { expectProblem } from '../helpers/api';
import { eur } from '../helpers/amounts';

const m = useMoneyHarness();
let merchantKey: string;

const BASE = '/v1/checkout-sessions';
const card = (number: string) => ({
  paymentMethod: { type: 'card', card: { number, expMonth: 12, expYear: 2030, cvc: '123', holderName: 'Ada' } },
});

beforeAll(async () => {
  merchantKey = m.sandbox.merchantKey.secretKey;
});

const session = (body: object = {}) => openSession(m, { amount: eur(2000), successUrl: 'https://shop.example/ok', ...body }, merchantKey);

describe(`complete a checkout session (${dialectName})`, () => {
  test('the customer completes with the clientSecret: customerInfo and fulfillment applied first, the payment created', async () => {
    const s = await session({
      amount: eur(2000),
      lineItems: [{ id: 'a', label: 'Book', unitAmount: eur(2000), quantity: 1 }],
      fulfillmentOptions: [{ id: 'post', type: 'shipping', title: 'Post', price: eur(500) }],
    });
    const res = await m.as(s.clientSecret).post(`${BASE}/${s.id}/complete`, {
      ...card('4242424242424242'),
      customerInfo: { email: 'buyer@example.com' },
      selectedFulfillment: { fulfillmentOptionId: 'post' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: s.id,
      status: 'open',
      paymentId: expect.any(String),
      paymentStatus: 'processing',
      amount: eur(2500),
      customerInfo: { email: 'buyer@example.com' },
      selectedFulfillment: { fulfillmentOptionId: 'post', price: eur(500) },
    });
    expect(res.body.data.clientSecret).toBeUndefined();
    const payment = (await m.as(merchantKey).get(`/v1/payments/${res.body.data.paymentId}`)).body.data;
    expect(payment).toMatchObject({ checkoutSessionId: s.id, amount: eur(2500), status: 'processing' });
    await m.settle();
    const after = (await m.as(merchantKey).get(`${BASE}/${s.id}`)).body.data;
    expect(after).toMatchObject({ status: 'complete', paymentStatus: 'captured', paymentId: payment.id });
    // deliveries are concurrent: their arrival order is not the events' order
    const events = m
      .events()
      .filter((e) => e.data.id === s.id)
      .map((e) => e.type)
      .sort();
    expect(events).toEqual(['checkout.session.completed', 'checkout.session.created']);
    // paid: a second complete is refused
    expectProblem(await m.as(s.clientSecret).post(`${BASE}/${s.id}/complete`, card('4242424242424242')), 409, 'CHECKOUT_SESSION_COMPLETE');
  });

  test('bad card data is 400 naming the field; unknown fulfillment is 400; nothing changes', async () => {
    const s = await session();
    const luhn = await m.as(merchantKey).post(`${BASE}/${s.id}/complete`, card('4242424242424241'));
    expectProblem(luhn, 400);
    expect(luhn.body.errors[0].path).toBe('body.paymentMethod.card.number');
    const month = await m.as(merchantKey).post(`${BASE}/${s.id}/complete`, {
      paymentMethod: { type: 'card', card: { number: '4242424242424242', expMonth: 13, expYear: 2030 } },
    });
    expect(month.body.errors[0].path).toBe('body.paymentMethod.card.expMonth');
    const missing = await m.as(merchantKey).post(`${BASE}/${s.id}/complete`, {});
    expect(missing.body.errors[0].path).toBe('body.paymentMethod');
    const option = await m
      .as(merchantKey)
      .post(`${BASE}/${s.id}/complete`, { ...card('4242424242424242'), selectedFulfillment: { fulfillmentOptionId: 'x' } });
    expectProblem(option, 400, 'UNKNOWN_FULFILLMENT_OPTION');
    expect((await m.as(merchantKey).get(`${BASE}/${s.id}`)).body.data).toMatchObject({
      status: 'open',
      paymentId: null,
      paymentStatus: null,
    });
  });

  test('a declined payment leaves the session open; the merchant key may complete again', async () => {
    const s = await session();
    const first = await m.as(merchantKey).post(`${BASE}/${s.id}/complete`, card('4000000000000002'));
    expect(first.status).toBe(200);
    await m.settle();
    expect((await m.as(merchantKey).get(`${BASE}/${s.id}`)).body.data).toMatchObject({
      status: 'open',
      paymentStatus: 'failed',
      paymentId: first.body.data.paymentId,
    });
    const second = await m.as(merchantKey).post(`${BASE}/${s.id}/complete`, card('4242424242424242'));
    expect(second.status).toBe(200);
    expect(second.body.data.paymentId).not.toBe(first.body.data.paymentId);
    await m.settle();
    expect((await m.as(merchantKey).get(`${BASE}/${s.id}`)).body.data).toMatchObject({ status: 'complete', paymentStatus: 'captured' });
  });

  test('the same Idempotency-Key replays the answer; concurrent completes create one payment', async () => {
    const s = await session();
    const first = await m.as(s.clientSecret).post(`${BASE}/${s.id}/complete`, card('4242424242424242')).set('Idempotency-Key', 'pay-1');
    const replay = await m.as(s.clientSecret).post(`${BASE}/${s.id}/complete`, card('4242424242424242')).set('Idempotency-Key', 'pay-1');
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    await m.settle();

    const raced = await session();
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => m.as(raced.clientSecret).post(`${BASE}/${raced.id}/complete`, card('4242424242424242'))),
    );
    const ok = answers.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    for (const r of answers.filter((a) => a.status !== 200)) expect(r.status).toBe(409);
    const payments = await m.rt.db.models.Payment.count({ where: { checkoutSessionId: raced.id } });
    expect(payments).toBe(1);
    await m.settle();
  });
});
