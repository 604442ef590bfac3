import { operatorContext } from '../../src/services/access/operators';
import { createRefund } from '../../src/services/payments/refunds';
import { useMoneyHarness, payWithCard } from '../helpers/money';

// A refund keeps its caller's Idempotency-Key (refunds commit before their answer is stored under the key, so a
// retry after a crash in between must find the refund rather than make another). Keys are per caller, as in the
// idempotency records: two callers using the same key string each get their own refund.

describe('refunds and Idempotency-Keys at the service', () => {
  const m = useMoneyHarness();

  const tenant = () => operatorContext(m.rt, { level: 'tenant', tenantId: m.sandbox.tenantId, livemode: false, operator: 'ops-a' });
  const merchant = () =>
    operatorContext(m.rt, {
      level: 'merchant',
      tenantId: m.sandbox.tenantId,
      merchantId: m.sandbox.merchantId,
      livemode: false,
      operator: 'ops-b',
    });
  const refundsOf = async (paymentId: string) =>
    (await m.as(m.sandbox.tenantKey.secretKey).get(`/v1/payments/${paymentId}/refunds`)).body.data as { id: string }[];

  test('the same caller, key and request: the committed refund is answered again, none is made', async () => {
    const { paymentId } = await payWithCard(m, '4242424242424242');
    const body = { amount: { currency: 'EUR', valueMinor: 1_000 }, reason: 'requested_by_customer' as const };
    const first = await createRefund(tenant(), paymentId, body, 'key-1');
    const again = await createRefund(tenant(), paymentId, body, 'key-1');
    expect(again.id).toBe(first.id);
    expect((await refundsOf(paymentId)).map((r) => r.id)).toEqual([first.id]);
  });

  test('another request under the same key of the same caller is 409 IDEMPOTENCY_KEY_REUSED', async () => {
    const { paymentId } = await payWithCard(m, '4242424242424242');
    await createRefund(tenant(), paymentId, { amount: { currency: 'EUR', valueMinor: 1_000 }, merchantReference: 'r-1' }, 'key-2');
    await expect(
      createRefund(tenant(), paymentId, { amount: { currency: 'EUR', valueMinor: 1_000 }, merchantReference: 'r-2' }, 'key-2'),
    ).rejects.toMatchObject({
      status: 409,
      code: 'IDEMPOTENCY_KEY_REUSED',
    });
    await expect(
      createRefund(tenant(), paymentId, { amount: { currency: 'EUR', valueMinor: 2_000 }, merchantReference: 'r-1' }, 'key-2'),
    ).rejects.toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
    });
    expect(await refundsOf(paymentId)).toHaveLength(1);
  });

  test('two callers with the same key string each get their own refund', async () => {
    const { paymentId } = await payWithCard(m, '4242424242424242');
    const body = { amount: { currency: 'EUR', valueMinor: 1_000 } };
    const byTenant = await createRefund(tenant(), paymentId, body, 'shared-key');
    const byMerchant = await createRefund(merchant(), paymentId, body, 'shared-key');
    expect(byMerchant.id).not.toBe(byTenant.id);
    expect(await refundsOf(paymentId)).toHaveLength(2);
  });

  test('without a key every call is a refund of its own', async () => {
    const { paymentId } = await payWithCard(m, '4242424242424242');
    const body = { amount: { currency: 'EUR', valueMinor: 1_000 } };
    await createRefund(tenant(), paymentId, body);
    await createRefund(tenant(), paymentId, body);
    expect(await refundsOf(paymentId)).toHaveLength(2);
  });
});
