import { useMoneyHarness, payWithCard } from '../helpers/money';
import { dialectName } from '../helpers/db';
import { eur } from '../helpers/amounts';
import { expectProblem } from '../helpers/api';
import {
  STRIPE_PROVIDER,
  acquirerConfig,
  attemptsOf,
  createAcquirerTerminal,
  disableSandboxTerminal,
  pointProvider,
} from '../helpers/acquirers';
import { FakeStripe } from '../fakes/stripe';
import { connectorFor, registerConnector, type Connector } from '../../src/connectors/registry';
import { recoverStalledCalls } from '../../src/services/payments/recovery';
import { PAYMENT_OPERATION_LEASE_MS } from '../../src/services/payments/payments';

/**
 * A process that dies between a Stripe call and the record of its answer. The registered stripe connector is wrapped:
 * the real connector makes the call (the fake of Stripe carries it out), then the wrapper throws a plain Error, as a
 * process dying before the answer is applied (throughProvider leaves the intent recorded: a pending attempt or refund
 * with no provider reference). The recovery job, once the record is stale, settles it from Stripe's own record (a
 * look-up by our reference), never sending the card or the refund again. A capture whose answer is lost to a timeout
 * stays recorded on the payment, and the recovery job sends it again under the same idempotency key: Stripe replays
 * its first answer, one capture.
 */

const fake = new FakeStripe();
const TIMEOUT_MS = 2_000;
const m = useMoneyHarness({ ledger: 'afterAll', config: acquirerConfig(TIMEOUT_MS) });
const merchant = () => m.as(m.sandbox.merchantKey.secretKey);
const tenant = () => m.as(m.sandbox.tenantKey.secretKey);
const STALE_MS = 120_000;

const real = connectorFor('stripe');
/** The next call of these operations reaches Stripe, then the process "dies" before its answer is recorded. */
const crashAfter = new Set<'authorize' | 'refund'>();
const calls: Array<{ operation: string; crashed: boolean }> = [];

function dying(connector: Connector): Connector {
  return new Proxy(connector, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (property !== 'authorize' && property !== 'refund') return (value as (...a: unknown[]) => unknown).bind(target);
      return async (...args: unknown[]) => {
        const answer = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        const crashed = crashAfter.delete(property);
        calls.push({ operation: property, crashed });
        if (crashed) throw new Error(`the process died after Stripe's ${property} answered`);
        return answer;
      };
    },
  });
}

beforeAll(async () => {
  registerConnector('stripe', dying(real));
  await fake.start();
  await pointProvider(m, STRIPE_PROVIDER, fake.baseUrl);
  await createAcquirerTerminal(m, STRIPE_PROVIDER, fake.credentials, { name: 'Stripe (fake)' });
  await disableSandboxTerminal(m);
});
afterAll(async () => {
  registerConnector('stripe', real);
  await fake.stop();
});

const payment = async (id: string) => (await tenant().get(`/v1/payments/${id}`)).body.data;
const createdFor = (reference: string) =>
  fake.requestsTo('POST', '/v1/payment_intents').filter((r) => r.params.metadata.payplane_reference === reference);

/** The recovery job run once the clock is past its staleness (the records it leaves alone before that are checked). */
async function recoverLater(ms = STALE_MS + 60_000): Promise<number> {
  m.clock.advance(ms);
  const recovered = await recoverStalledCalls(m.rt, { staleMs: STALE_MS });
  await m.settle();
  return recovered;
}

describe(`a crash between a Stripe call and its record (${dialectName})`, () => {
  let paymentId: string;

  test('an authorization Stripe approved, the process dead before the answer: recovery settles it from Stripe, one PaymentIntent', async () => {
    crashAfter.add('authorize');
    const session = await merchant().post('/v1/checkout-sessions', { amount: eur(2_500), successUrl: 'https://shop.example/ok' });
    expect(session.status).toBe(201);
    const completed = await m.as(session.body.data.clientSecret).post(`/v1/checkout-sessions/${session.body.data.id}/complete`, {
      paymentMethod: { type: 'card', card: { number: '4242424242424242', expMonth: 12, expYear: 2030, cvc: '123', holderName: 'Ada' } },
    });
    // the request died with the process: whatever it answered, nothing of Stripe's answer was recorded
    expect(completed.status).toBeGreaterThanOrEqual(500);
    expect(calls.at(-1)).toEqual({ operation: 'authorize', crashed: true });
    const rows = await m.rt.db.models.Payment.findAll({ where: { checkoutSessionId: session.body.data.id } as never });
    expect(rows).toHaveLength(1);
    paymentId = rows[0]!.get('id') as string;
    const [attempt] = await attemptsOf(m, paymentId);
    expect(attempt).toMatchObject({ status: 'pending', providerReference: null, terminalId: expect.any(String) });
    expect(await payment(paymentId)).toMatchObject({ status: 'processing' });
    const [pi] = [...fake.paymentIntents.values()].filter((p) => p.metadata.payplane_reference === attempt!.id);
    expect(pi).toMatchObject({ status: 'succeeded', amount: 2_500 });

    // not stale yet: left alone
    expect(await recoverStalledCalls(m.rt, { staleMs: STALE_MS })).toBe(0);
    expect((await attemptsOf(m, paymentId))[0]).toMatchObject({ status: 'pending' });

    expect(await recoverLater()).toBeGreaterThanOrEqual(1);
    expect(await payment(paymentId)).toMatchObject({
      status: 'captured',
      providerReference: pi!.id,
      amountBreakdown: { captured: eur(2_500) },
    });
    expect((await attemptsOf(m, paymentId))[0]).toMatchObject({ status: 'succeeded', providerReference: pi!.id });
    // one PaymentIntent made with the card: the look-up read it, nothing was sent again
    const created = createdFor(attempt!.id);
    expect(created).toHaveLength(1);
    expect(created[0]!.params.payment_method_data).toMatchObject({ type: 'card' });
    expect(calls.filter((c) => c.operation === 'authorize')).toHaveLength(1);
    expect(await m.eventTypesAbout(paymentId)).toEqual(expect.arrayContaining(['payment.captured']));
    expect((await merchant().get(`/v1/checkout-sessions/${session.body.data.id}`)).body.data).toMatchObject({
      status: 'complete',
      paymentStatus: 'captured',
    });
    // another run changes nothing
    await recoverLater();
    expect(createdFor(attempt!.id)).toHaveLength(1);
    expect(await payment(paymentId)).toMatchObject({ status: 'captured' });
  });

  test('a refund Stripe made, the process dead before the answer: recovery settles it from Stripe, one refund', async () => {
    crashAfter.add('refund');
    const asked = await merchant().post(`/v1/payments/${paymentId}/refunds`, { amount: eur(700) });
    expect(asked.status).toBeGreaterThanOrEqual(500);
    expect(calls.at(-1)).toEqual({ operation: 'refund', crashed: true });
    const rows = await m.rt.db.models.Refund.findAll({ where: { paymentId } as never });
    expect(rows).toHaveLength(1);
    const refund = rows[0]!.get({ plain: true }) as { id: string; status: string; providerReference: string | null };
    expect(refund).toMatchObject({ status: 'pending', providerReference: null });
    const atStripe = () => [...fake.refunds.values()].filter((r) => r.metadata.payplane_reference === refund.id);
    expect(atStripe()).toHaveLength(1);

    expect(await recoverLater()).toBeGreaterThanOrEqual(1);
    const settled = (await merchant().get(`/v1/refunds/${refund.id}`)).body.data;
    expect(settled).toMatchObject({ status: 'succeeded', amount: eur(700) });
    expect(atStripe()).toHaveLength(1);
    expect(atStripe()[0]).toMatchObject({ amount: 700, status: 'succeeded' });
    expect(fake.requestsTo('POST', '/v1/refunds').filter((r) => r.params.metadata.payplane_reference === refund.id)).toHaveLength(1);
    expect((await payment(paymentId)).amountBreakdown).toMatchObject({ refunded: eur(700) });
  });

  test('a capture whose answer is lost to a timeout stays recorded; recovery sends it again with the same key, Stripe replays: one capture', async () => {
    const { paymentId: manual } = await payWithCard(m, '4242424242424242', { amount: 3_000, captureMethod: 'manual' });
    expect(await payment(manual)).toMatchObject({ status: 'requires_capture' });
    const pi = (await payment(manual)).providerReference as string;
    const captures = () => fake.requestsTo('POST', `/v1/payment_intents/${pi}/capture`);

    const held = fake.holdNextAnswer();
    try {
      const lost = await merchant().post(`/v1/payments/${manual}/capture`, { amount: eur(2_000) });
      expectProblem(lost, 503, 'PROVIDER_UNAVAILABLE');
    } finally {
      held.release();
    }
    // Stripe captured it; we do not know yet
    expect(fake.paymentIntents.get(pi)).toMatchObject({ status: 'succeeded', amount_received: 2_000 });
    const row = (await m.rt.db.models.Payment.findByPk(manual))!.get({ plain: true }) as {
      status: string;
      pendingOperation: { kind: string; reference: string } | null;
    };
    expect(row.status).toBe('requires_capture');
    expect(row.pendingOperation).toMatchObject({ kind: 'capture', reference: expect.any(String) });
    expectProblem(await merchant().post(`/v1/payments/${manual}/capture`, {}), 409, 'PAYMENT_OPERATION_IN_PROGRESS');
    expect(captures()).toHaveLength(1);

    expect(await recoverLater(PAYMENT_OPERATION_LEASE_MS + 1_000)).toBeGreaterThanOrEqual(1);
    expect(await payment(manual)).toMatchObject({ status: 'captured', amountBreakdown: { captured: eur(2_000) } });
    const sent = captures();
    expect(sent).toHaveLength(2);
    expect(sent[0]!.idempotencyKey).toBeTruthy();
    expect(sent[1]!.idempotencyKey).toBe(sent[0]!.idempotencyKey);
    expect(sent[1]!.replayed).toBe(true);
    expect(fake.paymentIntents.get(pi)).toMatchObject({ status: 'succeeded', amount_received: 2_000 });
    const after = (await m.rt.db.models.Payment.findByPk(manual))!.get({ plain: true }) as { pendingOperation: unknown };
    expect(after.pendingOperation).toBeNull();
  });
});
