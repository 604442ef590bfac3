import { useApiHarness } from '../helpers/api';
import { expectLedgerInvariant } from '../helpers/ledger';
import { onPostgres } from '../helpers/db';
import { anotherTenantKey, merchantBalance, saveMethod, withdrawalSettings } from '../helpers/withdrawals';
import { fundMerchant } from '../helpers/funding';

/**
 * Races: twenty operators start the same execution at once (exactly one wins); twenty withdrawals that together
 * exceed the available balance (the accepted ones never exceed it). Real concurrency on Postgres (a pool of
 * connections, row locks); on SQLite the writers are serialized by the database, and the answers must be the same.
 */

jest.setTimeout(120_000);

const FEE = 50;
let methodId: string;

const h = useApiHarness();
beforeAll(async () => {
  await withdrawalSettings(h, { withdrawalCoolingPeriodHours: 0 });
  methodId = (await saveMethod(h)).id;
});
h.beforeClose(() => expectLedgerInvariant(h.rt));

test(`20 concurrent start-execution calls by different operators: exactly one succeeds (${onPostgres ? 'postgres' : 'sqlite'})`, async () => {
  await fundMerchant(h, 50_000);
  const tenant = h.as(h.sandbox.tenantKey.secretKey);
  const created = await h
    .as(h.sandbox.merchantKey.secretKey)
    .post('/v1/withdrawals', { amount: { currency: 'EUR', valueMinor: 10_000 }, withdrawalMethodId: methodId })
    .set('Idempotency-Key', 'race-start');
  expect(created.status).toBe(201);
  const id = created.body.data.id;
  await tenant.post(`/v1/withdrawals/${id}/approve`).expect(200);
  const operators = await Promise.all(Array.from({ length: 20 }, (_, i) => anotherTenantKey(h, `Operator ${i}`)));
  const answers = await Promise.all(operators.map((op) => h.as(op.secretKey).post(`/v1/withdrawals/${id}/start-execution`)));
  const winners = answers.filter((r) => r.status === 200);
  expect(winners).toHaveLength(1);
  expect(answers.filter((r) => r.status === 409).map((r) => r.body.code)).toEqual(Array(19).fill('INVALID_STATE_TRANSITION'));
  const winner = operators.find((op) => op.id === winners[0].body.data.executedBy);
  expect(winner).toBeDefined();
  const stored = (await tenant.get(`/v1/withdrawals/${id}`)).body.data;
  expect(stored).toMatchObject({ status: 'executing', executedBy: winner!.id });
  // one audit entry for the one move
  expect(await h.rt.db.models.AuditEntry.count({ where: { targetId: id, action: 'withdrawal.execution_started' } })).toBe(1);
  await h.as(winner!.secretKey).post(`/v1/withdrawals/${id}/complete`, { providerReference: 'RACE-1' }).expect(200);
});

test('20 concurrent withdrawals exceeding the available balance: the accepted ones never exceed it', async () => {
  const { available: start } = await merchantBalance(h);
  // top up to exactly 10,000 available
  await fundMerchant(h, 10_000 - start);
  expect((await merchantBalance(h)).available).toBe(10_000);
  const merchant = h.as(h.sandbox.merchantKey.secretKey);
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      merchant
        .post('/v1/withdrawals', { amount: { currency: 'EUR', valueMinor: 1_000 }, withdrawalMethodId: methodId })
        .set('Idempotency-Key', `race-${i}`),
    ),
  );
  const accepted = answers.filter((r) => r.status === 201);
  const refused = answers.filter((r) => r.status === 422);
  expect(accepted.length + refused.length).toBe(20);
  expect(refused.every((r) => r.body.code === 'INSUFFICIENT_BALANCE')).toBe(true);
  // 1,000 + 50 fee each: nine fit in 10,000
  expect(accepted).toHaveLength(Math.floor(10_000 / (1_000 + FEE)));
  const balance = await merchantBalance(h);
  expect(balance.available).toBe(10_000 - accepted.length * (1_000 + FEE));
  expect(balance.available).toBeGreaterThanOrEqual(0);
  expect(balance.payable).toBe(accepted.length * (1_000 + FEE));
  await expectLedgerInvariant(h.rt);
});
