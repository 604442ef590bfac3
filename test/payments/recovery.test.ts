import { useMoneyHarness, openSession } from '../helpers/money';
import { dialectName } from '../helpers/db';
import { eur } from '../helpers/amounts';
import { operatorContext } from '../../src/services/access/operators';
import { connectorFor, registerConnector, type Connector } from '../../src/connectors';
import { completeCheckoutSession } from '../../src/services/checkout/completion';
import { createRefund } from '../../src/services/payments/refunds';
import { recoverStalledCalls } from '../../src/services/payments/recovery';
import type { PaymentRow } from '../../src/db/models';

/**
 * A process that dies between committing an attempt (or a refund) and calling the provider leaves it pending with no
 * provider reference; the recovery job looks it up at the acquirer later (never sends it again): unknown there, the
 * attempt fails (and may cascade) and the refund fails (its amount released).
 */

const m = useMoneyHarness({ ledger: 'afterEach' });
const sandboxCard = connectorFor('sandbox-card');
afterEach(async () => {
  registerConnector('sandbox-card', sandboxCard);
});

/** The sandbox acquirer, except that one operation dies as the process would. */
function dyingOn(operation: 'authorize' | 'refund'): Connector {
  const dying = Object.create(sandboxCard) as Connector;
  dying[operation] = async () => {
    throw new Error('process died before the provider was called');
  };
  return dying;
}

const ctx = () =>
  operatorContext(m.rt, { level: 'merchant', tenantId: m.sandbox.tenantId, merchantId: m.sandbox.merchantId, livemode: false });
const card = { type: 'card' as const, card: { number: '4242424242424242', expMonth: 12, expYear: 2030, cvc: '123' } };

describe(`recovery of provider calls that never happened (${dialectName})`, () => {
  test('an attempt the acquirer never got fails after the stale period (not sent again); its session takes another card', async () => {
    const { id: sessionId } = await openSession(m, { amount: eur(4_000) });
    registerConnector('sandbox-card', dyingOn('authorize'));
    await expect(completeCheckoutSession(ctx(), sessionId, { paymentMethod: card })).rejects.toThrow('process died');
    registerConnector('sandbox-card', sandboxCard);
    const session = (await m.as(m.sandbox.merchantKey.secretKey).get(`/v1/checkout-sessions/${sessionId}`)).body.data;
    expect(session.paymentStatus).toBe('processing');

    expect(await recoverStalledCalls(m.rt)).toBe(0); // not stale yet
    m.clock.advance(3 * 60_000);
    const authorizations: string[] = [];
    const counting = Object.create(sandboxCard) as Connector;
    counting.authorize = async (...args) => {
      authorizations.push(args[2].reference);
      return sandboxCard.authorize(...args);
    };
    registerConnector('sandbox-card', counting);
    expect(await recoverStalledCalls(m.rt)).toBe(1);
    await m.settle();
    expect(authorizations).toEqual([]); // looked up, never sent again
    registerConnector('sandbox-card', sandboxCard);
    const payment = (await m.as(m.sandbox.tenantKey.secretKey).get(`/v1/payments/${session.paymentId}`)).body.data;
    expect(payment).toMatchObject({ status: 'failed', errorCode: 'provider_unavailable' });
    const again = await m.as(m.sandbox.merchantKey.secretKey).post(`/v1/checkout-sessions/${sessionId}/complete`, { paymentMethod: card });
    expect(again.status).toBe(200);
    await m.settle();
    expect((await m.as(m.sandbox.merchantKey.secretKey).get(`/v1/checkout-sessions/${sessionId}`)).body.data.status).toBe('complete');
  });

  test('with cascading on, the attempt the acquirer never got cascades to the next terminal (the sealed card) and the payment succeeds', async () => {
    const profiles = await m.as(m.sandbox.tenantKey.secretKey).get(`/v1/admin/integration-profiles?merchantId=${m.sandbox.merchantId}`);
    await m
      .as(m.sandbox.tenantKey.secretKey)
      .patch(`/v1/admin/integration-profiles/${profiles.body.data[0].id}`, { cascadingEnabled: true });
    await m.as(m.sandbox.tenantKey.secretKey).post('/v1/admin/terminals', {
      providerIntegrationId: '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e01',
      name: 'Backup',
      supportedCurrencies: ['EUR'],
      credentials: { merchantAccount: 'backup', apiKey: 'k' },
    });
    const { id: sessionId } = await openSession(m, { amount: eur(4_000) });
    registerConnector('sandbox-card', dyingOn('authorize'));
    await expect(completeCheckoutSession(ctx(), sessionId, { paymentMethod: card })).rejects.toThrow('process died');
    registerConnector('sandbox-card', sandboxCard);
    m.clock.advance(3 * 60_000);
    expect(await recoverStalledCalls(m.rt)).toBe(1);
    await m.settle();
    const session = (await m.as(m.sandbox.merchantKey.secretKey).get(`/v1/checkout-sessions/${sessionId}`)).body.data;
    expect(session).toMatchObject({ status: 'complete', paymentStatus: 'captured' });
    const row = await m.rt.db.models.Payment.findByPk(session.paymentId, { raw: true });
    expect(row).toMatchObject({ status: 'captured', cardVault: null });
  });

  test('a refund whose provider call never happened fails once looked up (nothing refunded, its amount released), and may be asked again', async () => {
    const { id: sessionId } = await openSession(m, { amount: eur(4_000) });
    await m.as(m.sandbox.merchantKey.secretKey).post(`/v1/checkout-sessions/${sessionId}/complete`, { paymentMethod: card });
    await m.settle();
    const paymentId = (await m.as(m.sandbox.merchantKey.secretKey).get(`/v1/checkout-sessions/${sessionId}`)).body.data.paymentId;
    registerConnector('sandbox-card', dyingOn('refund'));
    await expect(createRefund(ctx(), paymentId, {})).rejects.toThrow('process died');
    registerConnector('sandbox-card', sandboxCard);
    m.clock.advance(3 * 60_000);
    expect(await recoverStalledCalls(m.rt)).toBe(1);
    await m.settle();
    const refunds = (await m.as(m.sandbox.merchantKey.secretKey).get(`/v1/payments/${paymentId}/refunds`)).body.data;
    expect(refunds).toEqual([expect.objectContaining({ status: 'failed', amount: { currency: 'EUR', valueMinor: 4_000 } })]);
    const row = (await m.rt.db.models.Payment.findByPk(paymentId, { raw: true })) as unknown as PaymentRow;
    expect([row.status, Number(row.refundPendingMinor), Number(row.refundedMinor)]).toEqual(['captured', 0, 0]);
    // nothing was refunded: the whole amount may be refunded again
    expect((await createRefund(ctx(), paymentId, {})).status).toBe('pending');
    await m.settle();
    expect((await m.as(m.sandbox.merchantKey.secretKey).get(`/v1/payments/${paymentId}`)).body.data.status).toBe('refunded');
  });
});
