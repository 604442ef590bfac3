import { useMoneyHarness } from '../helpers/money';
import { expectProblem } from '../helpers/api';
import { saveMethod, withdrawalSettings } from '../helpers/withdrawals';
import { fundMerchant } from '../helpers/funding';

/**
 * A withdrawal's Idempotency-Key: replays and reuse by the same caller are runIdempotent's (the API's one rule); a
 * merchant's key names one withdrawal whoever asked, so another caller (the tenant) using the key the merchant used
 * for the same merchant is 409 IDEMPOTENCY_KEY_REUSED, never a second withdrawal.
 */

jest.setTimeout(120_000);

const m = useMoneyHarness({ ledger: 'afterAll' });
let methodId: string;

beforeAll(async () => {
  await withdrawalSettings(m, { withdrawalCoolingPeriodHours: 0 });
  methodId = (await saveMethod(m)).id;
  await fundMerchant(m, 100_000);
});

test("the same caller replays, another caller under the merchant's key is refused", async () => {
  const merchant = m.as(m.sandbox.merchantKey.secretKey);
  const tenant = m.as(m.sandbox.tenantKey.secretKey);
  const body = { amount: { currency: 'EUR', valueMinor: 1_000 }, withdrawalMethodId: methodId };
  const first = await merchant.post('/v1/withdrawals', body).set('Idempotency-Key', 'shared-key');
  expect(first.status).toBe(201);
  expect(first.body.data.idempotencyKey).toBe('shared-key');
  const replay = await merchant.post('/v1/withdrawals', body).set('Idempotency-Key', 'shared-key');
  expect(replay.status).toBe(201);
  expect(replay.headers['idempotent-replayed']).toBe('true');
  expect(replay.body.data.id).toBe(first.body.data.id);
  const byTenant = await tenant.post('/v1/withdrawals', { ...body, merchantId: m.sandbox.merchantId }).set('Idempotency-Key', 'shared-key');
  expectProblem(byTenant, 409, 'IDEMPOTENCY_KEY_REUSED');
  expect(await m.rt.db.models.Withdrawal.count({ where: { idempotencyKey: 'shared-key' } })).toBe(1);
  // the tenant's key is free again for a request of its own
  const own = await tenant.post('/v1/withdrawals', { ...body, merchantId: m.sandbox.merchantId }).set('Idempotency-Key', 'tenant-own');
  expect(own.status).toBe(201);
});
