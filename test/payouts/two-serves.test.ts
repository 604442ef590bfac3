import { createTestRuntime, onPostgres, TEST_TOKEN_SECRET, withRuntimeOf, type TestRuntime } from '../helpers/db';
import { ManualClock } from '../../src/domain/clock';
import { runCli } from '../helpers/cli';
import { startServe, stopAllServes, type ServeProcess } from '../helpers/serve';
import { expectLedgerInvariant } from '../helpers/ledger';
import { fundByAdjustment } from '../helpers/funding';
import { createSandbox, type SandboxCredentials } from '../../src/services/sandbox/provision';
import { operatorContext } from '../../src/services/access/operators';
import { updateTenant } from '../../src/services/tenants/tenants';
import { createWithdrawalMethod } from '../../src/services/withdrawal-methods/methods';
import { setPayoutSchedule } from '../../src/services/payouts/schedule';
import { balancesOf } from '../../src/services/ledger/balances';

// Two `payplane serve` processes on one Postgres database run the payouts and settlements jobs (each ticks at its
// start, then every minute), and two `payplane jobs run` processes run each at the same moment beside them: a
// merchant's daily schedule makes one payout in the day, paid once; yesterday's settlement statement is finalized
// once, with one settlement.finalized. Postgres only: SQLite is one writer, one process (test/payouts/concurrency.test.ts
// and test/ledger/settlements.test.ts run the jobs from two runtimes on both databases).

jest.setTimeout(180_000);

const describePostgres = onPostgres ? describe : describe.skip;
let t: TestRuntime;
let sandbox: SandboxCredentials;
let servers: ServeProcess[] = [];

beforeAll(async () => {
  if (!onPostgres) return;
  t = await createTestRuntime();
  sandbox = await createSandbox(t.rt);
  const tenant = operatorContext(t.rt, { level: 'tenant', tenantId: sandbox.tenantId, livemode: false });
  await updateTenant(tenant, sandbox.tenantId, { withdrawalCoolingPeriodHours: 0 });
  const merchant = operatorContext(t.rt, {
    level: 'merchant',
    tenantId: sandbox.tenantId,
    merchantId: sandbox.merchantId,
    livemode: false,
  });
  const method = await createWithdrawalMethod(merchant, {
    methodType: 'bank_account',
    label: 'Main',
    details: { iban: 'DE89370400440532013000', accountHolderName: 'Sandbox GmbH' },
  });
  await fundByAdjustment(tenant, {
    tenantId: sandbox.tenantId,
    merchantId: sandbox.merchantId,
    valueMinor: 40_000,
    sourceId: 'two-serves-funding',
  });
  await setPayoutSchedule(merchant, { interval: 'daily', withdrawalMethodId: method.id });
  // a movement of yesterday (noon UTC): it opens yesterday's statement, which the serves' settlements job finalizes
  const now = new Date();
  const yesterdayNoon = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - 1, 12));
  const yesterday = {
    tenantId: sandbox.tenantId,
    merchantId: sandbox.merchantId,
    valueMinor: 500,
    sourceId: 'two-serves-yesterday',
    description: 'test funding of yesterday',
  };
  await withRuntimeOf(
    t.db,
    (past) => fundByAdjustment(operatorContext(past, { level: 'tenant', tenantId: sandbox.tenantId, livemode: false }), yesterday),
    {
      clock: new ManualClock(yesterdayNoon),
    },
  );
  const env = { PAYPLANE_SANDBOX_DELAY_MS: '0' };
  servers = await Promise.all([startServe(t.db, env), startServe(t.db, env)]);
}, 120_000);

afterAll(async () => {
  if (!onPostgres) return;
  await stopAllServes();
  await t.close();
}, 60_000);

describePostgres('two serve processes running the payouts job', () => {
  test('one payout in the period, paid once', async () => {
    const deadline = Date.now() + 60_000;
    let paid = 0;
    while (Date.now() < deadline) {
      paid = await t.rt.db.models.Payout.count({ where: { status: 'paid' } });
      if (paid > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(paid).toBe(1);
    // more funds the same day, and two `jobs run payouts` at once beside the serves: still one payout
    const tenant = operatorContext(t.rt, { level: 'tenant', tenantId: sandbox.tenantId, livemode: false });
    await fundByAdjustment(tenant, {
      tenantId: sandbox.tenantId,
      merchantId: sandbox.merchantId,
      valueMinor: 1_000,
      sourceId: 'two-serves-funding-2',
    });
    const env = { DATABASE_URL: t.db.url, PAYPLANE_HOME: t.db.home, PAYPLANE_TOKEN_SECRET: TEST_TOKEN_SECRET };
    const runs = await Promise.all([runCli(['jobs', 'run', 'payouts', '--json'], env), runCli(['jobs', 'run', 'payouts', '--json'], env)]);
    for (const run of runs) expect(run.status).toBe(0);
    const made = runs.flatMap((run) => run.json().result.created as unknown[]);
    const skipped = runs.flatMap((run) => run.json().result.skipped as { reason: string }[]);
    const payouts = await t.rt.db.models.Payout.findAll({ raw: true });
    // (a run that crossed midnight UTC would make a second payout of the new day's period: then it is another period)
    const periods = new Set(payouts.map((p) => (p as unknown as { periodKey: string }).periodKey));
    expect(payouts).toHaveLength(periods.size);
    expect(made).toHaveLength(payouts.length - 1);
    if (payouts.length === 1)
      expect(skipped.map((s) => s.reason)).toEqual(['already paid out this period', 'already paid out this period']);
    // 400.00 + yesterday's 5.00, less the 0.25 payout fee
    expect(Number((payouts[0] as unknown as { amountMinor: number | string }).amountMinor)).toBe(40_475);
    expect(await t.rt.db.models.Event.count({ where: { type: 'payout.succeeded' } })).toBe(payouts.length);
    const [balance] = await balancesOf(tenant, { merchantId: sandbox.merchantId, currency: 'EUR' });
    expect(balance.payable.valueMinor).toBe(0);
    expect(balance.available.valueMinor).toBe(payouts.length === 1 ? 1_000 : 0);
    await expectLedgerInvariant(t.rt);
    for (const server of servers) expect(server.output()).not.toMatch(/payouts run failed/);
    expect(servers).toHaveLength(2);
  });
});

describePostgres('two serve processes running the settlements job', () => {
  test("yesterday's statement finalized once, with one settlement.finalized", async () => {
    const { SettlementStatement, Event } = t.rt.db.models;
    const yesterday = async () => {
      const rows = await SettlementStatement.findAll({
        where: { merchantId: sandbox.merchantId, currency: 'EUR', livemode: false },
        order: [['periodStart', 'ASC']],
        raw: true,
      });
      return rows[0] as unknown as { id: string; status: string; periodStart: Date; finalizedAt: Date | null };
    };
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && (await yesterday()).status !== 'finalized') await new Promise((resolve) => setTimeout(resolve, 200));
    const statement = await yesterday();
    expect(statement.status).toBe('finalized');
    const env = { DATABASE_URL: t.db.url, PAYPLANE_HOME: t.db.home, PAYPLANE_TOKEN_SECRET: TEST_TOKEN_SECRET };
    const runs = await Promise.all([
      runCli(['jobs', 'run', 'settlements', '--json'], env),
      runCli(['jobs', 'run', 'settlements', '--json'], env),
    ]);
    for (const run of runs) expect([run.status, run.json().result]).toEqual([0, { finalized: 0 }]);
    const events = await Event.findAll({ where: { type: 'settlement.finalized' }, raw: true });
    expect(events.map((e) => (e as unknown as { data: { id: string } }).data.id)).toEqual([statement.id]);
    expect(await yesterday()).toEqual(statement);
    for (const server of servers) expect(server.output()).not.toMatch(/settlements run failed|job failed/);
  });
});
