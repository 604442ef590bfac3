import { useCliSandbox } from '../helpers/cli';
import { dialectName, withRuntimeOf } from '../helpers/db';
import { expectLedgerInvariant } from '../helpers/ledger';
import { TEST_IBAN } from '../helpers/withdrawals';
import { fundByAdjustment } from '../helpers/funding';
import type { Runtime } from '../../src/runtime';
import { operatorContext } from '../../src/services/access/operators';
import { updateTenant } from '../../src/services/tenants/tenants';
import { createWithdrawalMethod } from '../../src/services/withdrawal-methods/methods';
import { balancesOf } from '../../src/services/ledger/balances';
import { WEEKDAYS } from '../../src/services/payouts/schedule';
import { backgroundJobs } from '../../src/jobs';

// payplane payouts list|get|cancel, payout-schedule get|set and jobs run <job> (issue 23): the built binary on one
// sandbox, the payouts made by `jobs run payouts` through the sandbox payout provider (the wall clock: today's period).

jest.setTimeout(240_000);

const s = useCliSandbox();
const OTHER = '00000000-0000-4000-8000-000000000000';
const FEE = 25;
let methodId: string;

const tenantOperator = (rt: Runtime) => operatorContext(rt, { level: 'tenant', tenantId: s.sandbox.tenantId, livemode: false });

const fund = (valueMinor: number, currency = 'EUR') =>
  withRuntimeOf(s.db, (rt) =>
    fundByAdjustment(tenantOperator(rt), { tenantId: s.sandbox.tenantId, merchantId: s.sandbox.merchantId, valueMinor, currency }),
  );

const available = (currency = 'EUR') =>
  withRuntimeOf(s.db, async (rt) => {
    const [b] = await balancesOf(tenantOperator(rt), { merchantId: s.sandbox.merchantId, currency });
    return { available: b?.available.valueMinor ?? 0, payable: b?.payable.valueMinor ?? 0 };
  });

beforeAll(async () => {
  await withRuntimeOf(s.db, async (rt) => {
    await updateTenant(tenantOperator(rt), s.sandbox.tenantId, { withdrawalCoolingPeriodHours: 0 });
    const merchant = operatorContext(rt, {
      level: 'merchant',
      tenantId: s.sandbox.tenantId,
      merchantId: s.sandbox.merchantId,
      livemode: false,
    });
    methodId = (
      await createWithdrawalMethod(merchant, {
        methodType: 'bank_account',
        label: 'Main account',
        details: { iban: TEST_IBAN, accountHolderName: 'Sandbox Merchant GmbH' },
      })
    ).id;
  });
  await fund(100_000);
  await fund(50_000, 'USD');
});
s.beforeDrop(() => withRuntimeOf(s.db, (rt) => expectLedgerInvariant(rt)));

describe(`payplane payouts, payout-schedule, jobs run (${dialectName})`, () => {
  let paidId: string;

  test('help lists the commands, their flags and the jobs of the registry', async () => {
    const [payouts, set, jobs] = await Promise.all([
      s.cli('payouts', '--help'),
      s.cli('payout-schedule', 'set', '--help'),
      s.cli('jobs', 'run', '--help'),
    ]);
    for (const cmd of ['list', 'get', 'cancel']) expect(payouts.stdout).toContain(`payouts ${cmd}`);
    for (const flag of ['--interval', '--weekly-anchor', '--withdrawal-method', '--minimum', '--minimum-minor', 'EXAMPLES'])
      expect(set.stdout).toContain(flag);
    for (const job of backgroundJobs.map((j) => j.name)) expect(jobs.stdout).toContain(job);
    expect(jobs.stdout).toContain('payouts');
  });

  test('payout-schedule get: manual until set', async () => {
    const { tenantId, merchantId } = s.sandbox;
    const res = await s.cli('payout-schedule', 'get', '--tenant', tenantId, '--merchant', merchantId, '--json');
    expect(res.status).toBe(0);
    expect(res.json()).toMatchObject({ merchantId, interval: 'manual', withdrawalMethodId: null, updatedAt: null });
    const table = await s.cli('payout-schedule', 'get', '--tenant', tenantId, '--merchant', merchantId);
    expect(table.stdout).toMatch(/interval +manual/);
  });

  test('payout-schedule set: bad input is a usage error (exit 2) naming the flag', async () => {
    const { tenantId, merchantId } = s.sandbox;
    const base = ['payout-schedule', 'set', '--tenant', tenantId, '--merchant', merchantId];
    const cases: [string[], string][] = [
      [[...base, '--interval', 'weekly', '--withdrawal-method', methodId], '--weekly-anchor'],
      [[...base, '--interval', 'daily', '--weekly-anchor', 'monday', '--withdrawal-method', methodId], '--weekly-anchor'],
      [[...base, '--interval', 'daily'], '--withdrawal-method'],
      [[...base, '--interval', 'daily', '--withdrawal-method', methodId, '--minimum', '1.234', '--currency', 'EUR'], '--minimum'],
      [[...base, '--interval', 'daily', '--withdrawal-method', methodId, '--minimum', '5'], '--minimum'],
      [[...base, '--interval', 'daily', '--withdrawal-method', 'nope'], '--withdrawal-method'],
    ];
    for (const [argv, flag] of cases) {
      const res = await s.cli(...argv, '--json');
      expect([argv.join(' '), res.status]).toEqual([argv.join(' '), 2]);
      expect(res.json().error.errors.map((e: { path: string }) => e.path)).toContain(flag);
    }
    const badEnum = await s.cli(...base, '--interval', 'hourly');
    expect(badEnum.status).toBe(2);
    expect(badEnum.stderr).toContain('interval');
  });

  test('payout-schedule set daily with a minimum (major units); jobs run payouts pays out each currency', async () => {
    const { tenantId, merchantId } = s.sandbox;
    const set = await s.cli(
      'payout-schedule',
      'set',
      '--tenant',
      tenantId,
      '--merchant',
      merchantId,
      '--interval',
      'daily',
      '--withdrawal-method',
      methodId,
      '--minimum',
      '10.00',
      '--currency',
      'EUR',
      '--json',
    );
    expect(set.status).toBe(0);
    expect(set.json()).toMatchObject({
      interval: 'daily',
      withdrawalMethodId: methodId,
      minimumAmounts: [{ currency: 'EUR', valueMinor: 1_000 }],
    });
    const usd = await s.cli(
      'payout-schedule',
      'set',
      '--tenant',
      tenantId,
      '--merchant',
      merchantId,
      '--interval',
      'daily',
      '--minimum-minor',
      '100',
      '--currency',
      'USD',
      '--json',
    );
    expect(usd.status).toBe(0);
    expect(usd.json().minimumAmounts).toEqual([
      { currency: 'EUR', valueMinor: 1_000 },
      { currency: 'USD', valueMinor: 100 },
    ]);
    expect(usd.json().withdrawalMethodId).toBe(methodId);

    const run = await s.cli('jobs', 'run', 'payouts', '--json');
    expect(run.status).toBe(0);
    const result = run.json();
    expect(result.job).toBe('payouts');
    expect(result.result.created.map((p: { amount: unknown }) => p.amount)).toEqual(
      expect.arrayContaining([
        { currency: 'EUR', valueMinor: 100_000 - FEE },
        { currency: 'USD', valueMinor: 50_000 - FEE },
      ]),
    );
    expect(result.result.paid).toHaveLength(2);
    expect(await available()).toEqual({ available: 0, payable: 0 });
    paidId = result.result.created.find((p: { currency: string }) => p.currency === 'EUR').id;
    // the same day again: nothing
    const again = await s.cli('jobs', 'run', 'payouts');
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(/created +0/);
  });

  test('jobs run: any registered job; an unknown name lists the jobs', async () => {
    const release = await s.cli('jobs', 'run', 'ledger-release', '--json');
    expect(release.status).toBe(0);
    expect(release.json()).toMatchObject({ job: 'ledger-release', result: { released: 0 } });
    const unknown = await s.cli('jobs', 'run', 'payout', '--json');
    expect(unknown.status).toBe(2);
    expect(unknown.json().error.code).toBe('UNKNOWN_JOB');
    for (const job of backgroundJobs.map((j) => j.name)) expect(unknown.json().error.errors[0].message).toContain(job);
  });

  test("payouts list and get: tables with formatted amounts, filters, --json, --all; another tenant's scope is not found", async () => {
    const { tenantId, merchantId } = s.sandbox;
    const table = await s.cli('payouts', 'list', '--tenant', tenantId);
    expect(table.status).toBe(0);
    expect(table.stdout).toContain('999.75 EUR');
    expect(table.stdout).toContain('paid');
    const json = await s.cli('payouts', 'list', '--tenant', tenantId, '--merchant', merchantId, '--currency', 'EUR', '--json');
    expect(json.json().data.map((p: { id: string }) => p.id)).toEqual([paidId]);
    const all = await s.cli('payouts', 'list', '--tenant', tenantId, '--all', '--limit', '1', '--json');
    expect(all.json().data).toHaveLength(2);
    expect((await s.cli('payouts', 'list', '--tenant', tenantId, '--status', 'pending', '--json')).json().data).toEqual([]);
    const got = await s.cli('payouts', 'get', paidId, '--json');
    expect(got.status).toBe(0);
    expect(got.json()).toMatchObject({ id: paidId, status: 'paid', fee: { currency: 'EUR', valueMinor: FEE } });
    const shown = await s.cli('payouts', 'get', paidId);
    expect(shown.stdout).toMatch(/status +paid/);
    for (const scope of [
      ['--tenant', OTHER],
      ['--tenant', tenantId, '--merchant', OTHER],
    ]) {
      const other = await s.cli('payouts', 'get', paidId, ...scope, '--json');
      expect(other.status).toBe(4);
    }
    const paidCancel = await s.cli('payouts', 'cancel', paidId, '--yes', '--json');
    expect(paidCancel.status).toBe(5);
    expect(paidCancel.json().error.code).toBe('INVALID_STATE_TRANSITION');
  });

  test('payouts cancel: a pending payout (no payout terminal) returns to available; confirmation or --yes', async () => {
    const { tenantId, merchantId, payoutTerminalId } = s.sandbox as typeof s.sandbox & { payoutTerminalId: string };
    await withRuntimeOf(s.db, (rt) => rt.db.models.Terminal.update({ status: 'disabled' }, { where: { id: payoutTerminalId } }));
    await fund(7_000);
    // weekly on today's weekday: a new period, due today
    const weekly = await s.cli(
      'payout-schedule',
      'set',
      '--tenant',
      tenantId,
      '--merchant',
      merchantId,
      '--interval',
      'weekly',
      '--weekly-anchor',
      WEEKDAYS[new Date().getUTCDay()],
      '--clear-minimums',
      '--json',
    );
    expect(weekly.status).toBe(0);
    expect(weekly.json().minimumAmounts).toEqual([]);
    const run = await s.cli('jobs', 'run', 'payouts', '--json');
    const [pending] = run.json().result.created;
    expect(pending).toMatchObject({ status: 'pending', amount: { currency: 'EUR', valueMinor: 7_000 - FEE } });
    expect(run.json().result.unsent).toEqual([pending.id]);
    expect(await available()).toEqual({ available: 0, payable: 7_000 });
    const unconfirmed = await s.cli('payouts', 'cancel', pending.id, '--json');
    expect(unconfirmed.status).toBe(2);
    const canceled = await s.cli('payouts', 'cancel', pending.id, '--tenant', tenantId, '--yes', '--json');
    expect(canceled.status).toBe(0);
    expect(canceled.json()).toMatchObject({ id: pending.id, status: 'canceled' });
    expect(await available()).toEqual({ available: 7_000, payable: 0 });
  });

  test('events trigger payout.created|succeeded|failed: real sandbox payouts through a one-off schedule run', async () => {
    const { tenantId, merchantId, payoutTerminalId } = s.sandbox as typeof s.sandbox & { payoutTerminalId: string };
    await withRuntimeOf(s.db, (rt) => rt.db.models.Terminal.update({ status: 'active' }, { where: { id: payoutTerminalId } }));
    const before = await available();
    const paid = await s.cli('events', 'trigger', 'payout.succeeded', '--tenant', tenantId, '--merchant', merchantId, '--json');
    expect(paid.status).toBe(0);
    expect(paid.json()).toMatchObject({ type: 'payout.succeeded', sample: false, payoutStatus: 'paid' });
    expect(paid.json().events.map((e: { type: string }) => e.type)).toEqual(
      expect.arrayContaining(['payment.succeeded', 'payout.created', 'payout.succeeded']),
    );
    // only what the funding payment made available went out
    expect(await available()).toEqual(before);
    const got = await s.cli('payouts', 'get', paid.json().payoutId, '--json');
    expect(got.json()).toMatchObject({ status: 'paid', period: expect.stringMatching(/^trigger:/) });
    const failed = await s.cli('events', 'trigger', 'payout.failed', '--tenant', tenantId, '--merchant', merchantId, '--json');
    expect(failed.status).toBe(0);
    expect(failed.json()).toMatchObject({ type: 'payout.failed', payoutStatus: 'failed' });
    expect(failed.json().events.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(['payout.created', 'payout.failed']));
    const created = await s.cli('events', 'trigger', 'payout.created', '--tenant', tenantId, '--merchant', merchantId);
    expect(created.status).toBe(0);
    expect(created.stdout).toContain('payout.created');
    const help = await s.cli('events', 'trigger', '--help');
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('DE82 3704 0044 0532 0139 99');
  });

  test('events trigger withdrawal.*: real withdrawals funded by a sandbox payment, moved by two operators', async () => {
    const { tenantId, merchantId } = s.sandbox;
    // maker-checker on: the approver and the executor are two operators
    await withRuntimeOf(s.db, (rt) => rt.db.models.Tenant.update({ withdrawalMakerChecker: true }, { where: { id: tenantId } }));
    const before = await available();
    const ends: Record<string, string> = {
      'withdrawal.created': 'pending',
      'withdrawal.approved': 'approved',
      'withdrawal.succeeded': 'completed',
      'withdrawal.failed': 'failed',
      'withdrawal.rejected': 'rejected',
      'withdrawal.canceled': 'canceled',
    };
    let heldOrPaid = 0;
    for (const [type, status] of Object.entries(ends)) {
      const res = await s.cli('events', 'trigger', type, '--tenant', tenantId, '--merchant', merchantId, '--json');
      expect([type, res.status]).toEqual([type, 0]);
      expect(res.json()).toMatchObject({ type, sample: false, withdrawalStatus: status });
      const got = await s.cli('withdrawals', 'get', res.json().withdrawalId, '--tenant', tenantId, '--json');
      expect(got.json()).toMatchObject({ id: res.json().withdrawalId, status, withdrawalMethodId: res.json().withdrawalMethodId });
      if (['pending', 'approved', 'completed'].includes(status)) heldOrPaid += got.json().amount.valueMinor + got.json().fee.valueMinor;
    }
    // each funding payment made 25.00 available less the sandbox's 1.4% + 0.25 EUR (24.40), and each withdrawal asked
    // for half of it (12.20) plus its fee: what a pending, approved or completed one holds or paid out is gone
    const after = await available();
    expect(heldOrPaid).toBe(3 * (1_220 + 50));
    expect(after.available - before.available).toBe(6 * 2_440 - heldOrPaid);
    await withRuntimeOf(s.db, (rt) => expectLedgerInvariant(rt));
  });
});
