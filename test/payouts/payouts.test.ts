import { useMoneyHarness, type MoneyHarness } from '../helpers/money';
import { createLiveTenantKey, createSecondMerchant, expectProblem } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { merchantBalance, saveMethod, withdrawalSettings } from '../helpers/withdrawals';
import { fundMerchant } from '../helpers/funding';
import { backgroundJobs, jobNamed } from '../../src/jobs';
import { payoutsJob } from '../../src/jobs/payouts';
import { SANDBOX_FAILING_IBAN } from '../../src/connectors/sandbox-payout';
import type { PayoutRunResult } from '../../src/services/payouts/run';
import { sampleEventData } from '../../src/services/webhooks/samples';

/**
 * Payout schedules and scheduled payouts over HTTP, with the job driven by the test clock: once per period (days and
 * weeks crossed), the minimum respected, manual makes none, the reserve kept, the fee to its earner, the ledger
 * balanced; the failure path (the sandbox's failing IBAN) and the cancel path; 404 across merchants, tenants, modes.
 */

jest.setTimeout(180_000);

const FEE = 25; // the sandbox schedule's payout fee (EUR)
const m = useMoneyHarness({ ledger: 'afterAll' });
let merchant: ReturnType<MoneyHarness['as']>;
let tenant: ReturnType<MoneyHarness['as']>;
let methodId: string;

beforeAll(async () => {
  // 2026-03-02 is a Monday
  m.clock.set(new Date('2026-03-02T08:00:00.000Z'));
  merchant = m.as(m.sandbox.merchantKey.secretKey);
  tenant = m.as(m.sandbox.tenantKey.secretKey);
  await withdrawalSettings(m, { withdrawalCoolingPeriodHours: 0 });
  methodId = (await saveMethod(m)).id;
});
const run = async () => (await payoutsJob.runNow(m.rt)) as PayoutRunResult;
const day = (n = 1) => m.clock.advance(n * 86_400_000);
const setSchedule = (body: Record<string, unknown>) => merchant.put('/v1/payout-schedule', body);
const payoutsOf = async (query = '') =>
  (await tenant.get(`/v1/payouts?merchantId=${m.sandbox.merchantId}&limit=100${query}`).expect(200)).body.data as Array<
    Record<string, any>
  >;

describe(`payout schedules (${dialectName})`, () => {
  test('the job is registered with the other jobs', () => {
    expect(backgroundJobs).toContain(payoutsJob);
    expect(jobNamed('payouts')).toBe(payoutsJob);
  });

  test('a merchant that never set one is manual; tenant callers name the merchant', async () => {
    const own = await merchant.get('/v1/payout-schedule').expect(200);
    expect(own.body.data).toMatchObject({
      merchantId: m.sandbox.merchantId,
      interval: 'manual',
      weeklyAnchor: null,
      withdrawalMethodId: null,
      minimumAmounts: [],
      updatedAt: null,
    });
    expectProblem(await tenant.get('/v1/payout-schedule'), 400);
    const asTenant = await tenant.get(`/v1/payout-schedule?merchantId=${m.sandbox.merchantId}`).expect(200);
    expect(asTenant.body.data.interval).toBe('manual');
  });

  test('manual makes no payouts: withdrawals stay', async () => {
    await fundMerchant(m, 10_000);
    const result = await run();
    expect(result.created).toEqual([]);
    expect(await payoutsOf()).toEqual([]);
    expect((await merchantBalance(m)).available).toBe(10_000);
  });

  test('bad schedules are 400 naming the field (or 404 / 422)', async () => {
    const field = async (body: Record<string, unknown>, path: string, caller = merchant) => {
      const res = await caller.put('/v1/payout-schedule', body);
      expectProblem(res, 400);
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    };
    await field({ interval: 'daily', weeklyAnchor: 'monday', withdrawalMethodId: methodId }, 'body.weeklyAnchor');
    await field({ interval: 'weekly', withdrawalMethodId: methodId }, 'body.weeklyAnchor');
    await field({ interval: 'weekly', weeklyAnchor: 'someday', withdrawalMethodId: methodId }, 'body.weeklyAnchor');
    await field({ interval: 'daily' }, 'body.withdrawalMethodId');
    await field({ interval: 'hourly', withdrawalMethodId: methodId }, 'body.interval');
    await field(
      {
        interval: 'daily',
        withdrawalMethodId: methodId,
        minimumAmounts: [
          { currency: 'EUR', valueMinor: 1 },
          { currency: 'EUR', valueMinor: 2 },
        ],
      },
      'body.minimumAmounts[1].currency',
    );
    await field(
      { interval: 'daily', withdrawalMethodId: methodId, minimumAmounts: [{ currency: 'EUR', valueMinor: -1 }] },
      'body.minimumAmounts[0].valueMinor',
    );
    await field({ interval: 'daily', withdrawalMethodId: methodId }, 'body.merchantId', tenant);
    // a method of another merchant: 400 for the tenant (it sees both), 404 for the merchant (it sees only its own)
    const second = await createSecondMerchant(m, 'Payout second merchant');
    const othersMethod = await m
      .as(second.secretKey)
      .post('/v1/merchant-withdrawal-methods', {
        methodType: 'bank_account',
        label: 'Other',
        details: { iban: 'DE89370400440532013000', accountHolderName: 'Other GmbH' },
      })
      .expect(201);
    await field(
      { merchantId: m.sandbox.merchantId, interval: 'daily', withdrawalMethodId: othersMethod.body.data.id },
      'body.withdrawalMethodId',
      tenant,
    );
    expectProblem(await setSchedule({ interval: 'daily', withdrawalMethodId: othersMethod.body.data.id }), 404);
    // a merchant cannot set another merchant's schedule
    expectProblem(await setSchedule({ merchantId: second.merchantId, interval: 'manual' }), 404);
    // a method still cooling: 422
    await withdrawalSettings(m, { withdrawalCoolingPeriodHours: 24 });
    const cooling = await saveMethod(m, 'Cooling account');
    await withdrawalSettings(m, { withdrawalCoolingPeriodHours: 0 });
    expectProblem(await setSchedule({ interval: 'daily', withdrawalMethodId: cooling.id }), 422, 'WITHDRAWAL_METHOD_NOT_ACTIVE');
    // nothing was set
    expect((await merchant.get('/v1/payout-schedule').expect(200)).body.data.interval).toBe('manual');
  });

  test('set and read back, audited', async () => {
    const res = await setSchedule({
      interval: 'daily',
      withdrawalMethodId: methodId,
      minimumAmounts: [{ currency: 'EUR', valueMinor: 5_000 }],
    }).expect(200);
    expect(res.body.data).toMatchObject({
      interval: 'daily',
      weeklyAnchor: null,
      withdrawalMethodId: methodId,
      minimumAmounts: [{ currency: 'EUR', valueMinor: 5_000 }],
    });
    const read = await tenant.get(`/v1/payout-schedule?merchantId=${m.sandbox.merchantId}`).expect(200);
    expect(read.body.data).toEqual(res.body.data);
    const audit = await m.rt.db.models.AuditEntry.count({ where: { action: 'payout_schedule.created' } });
    expect(audit).toBe(1);
  });
});

describe(`scheduled payouts (${dialectName})`, () => {
  let firstId: string;

  test('daily: the available balance less the fee is paid out once per day; the reserve stays', async () => {
    await fundMerchant(m, 7_000, { account: 'merchant_reserve' });
    const before = await merchantBalance(m);
    expect(before).toMatchObject({ available: 10_000, reserved: 7_000, payable: 0 });
    const result = await run();
    expect(result.created).toHaveLength(1);
    const created = result.created[0];
    expect(created).toMatchObject({
      status: 'pending',
      amount: { currency: 'EUR', valueMinor: 10_000 - FEE },
      fee: { currency: 'EUR', valueMinor: FEE },
      period: 'daily:2026-03-02',
    });
    expect(result.inTransit).toEqual([created.id]);
    expect(result.paid).toEqual([created.id]);
    firstId = created.id;
    const payout = (await merchant.get(`/v1/payouts/${created.id}`).expect(200)).body.data;
    expect(payout).toMatchObject({
      status: 'paid',
      merchantId: m.sandbox.merchantId,
      livemode: false,
      withdrawalMethodId: methodId,
      failureReason: null,
      providerReference: expect.stringMatching(/^sbpo_/),
      paidAt: '2026-03-02T08:00:00.000Z',
      arrivalDate: '2026-03-02T08:00:00.000Z',
    });
    expect(payout.destination.type).toBe('bank_account');
    expect(JSON.stringify(payout.destination)).not.toContain('0532013000');
    // merchants see the total fee only
    expect(payout.feeBreakdown).toBeUndefined();
    expect((await tenant.get(`/v1/payouts/${created.id}`).expect(200)).body.data.feeBreakdown).toMatchObject({ tenantFee: FEE });
    expect(await merchantBalance(m)).toMatchObject({ available: 0, reserved: 7_000, payable: 0 });
    expect(await m.eventTypesAbout(created.id)).toEqual(['payout.created', 'payout.succeeded']);
    // the ledger: held, then paid out; the fee to the tenant
    const entries = (await m.rt.db.models.LedgerEntry.findAll({ where: { sourceId: created.id }, raw: true })) as unknown as Array<{
      sourceType: string;
      account: string;
      amountMinor: number | string;
    }>;
    const of = (type: string, account: string) =>
      entries.filter((e) => e.sourceType === type && e.account === account).reduce((s, e) => s + Number(e.amountMinor), 0);
    expect(of('payout', 'merchant_available')).toBe(-10_000);
    expect(of('payout', 'merchant_payable')).toBe(10_000);
    expect(of('payout_paid', 'merchant_payable')).toBe(-10_000);
    expect(of('payout_paid', 'payout_clearing')).toBe(10_000 - FEE);
    expect(of('payout_paid', 'tenant_revenue')).toBe(FEE);
    const audit = await m.rt.db.models.AuditEntry.findAll({
      where: { targetId: created.id },
      order: [
        ['createdAt', 'ASC'],
        ['id', 'ASC'],
      ],
    });
    expect(audit.map((a) => a.get('action'))).toEqual(['payout.created', 'payout.in_transit', 'payout.paid']);
    // balance transactions name the payout
    const txs = (await merchant.get(`/v1/balance-transactions?sourceId=${created.id}`).expect(200)).body.data;
    expect(new Set(txs.map((t: { type: string }) => t.type))).toEqual(new Set(['payout', 'payout_paid']));
  });

  test('the same day again: no second payout, whatever came in', async () => {
    await fundMerchant(m, 20_000);
    m.clock.advance(3_600_000);
    const result = await run();
    expect(result.created).toEqual([]);
    expect(result.skipped).toEqual([
      expect.objectContaining({ currency: 'EUR', period: 'daily:2026-03-02', reason: 'already paid out this period' }),
    ]);
    expect(await payoutsOf()).toHaveLength(1);
  });

  test('the next day: a new payout; below the minimum none, until the balance reaches it within the day', async () => {
    day();
    const next = await run();
    expect(next.created).toHaveLength(1);
    expect(next.created[0]).toMatchObject({ period: 'daily:2026-03-03', amount: { valueMinor: 20_000 - FEE } });
    day();
    await fundMerchant(m, 3_000);
    const short = await run();
    expect(short.created).toEqual([]);
    expect(short.skipped[0].reason).toMatch(/below the schedule's minimum/);
    await fundMerchant(m, 2_025);
    m.clock.advance(3_600_000);
    const reached = await run();
    expect(reached.created).toHaveLength(1);
    expect(reached.created[0]).toMatchObject({ period: 'daily:2026-03-04', amount: { valueMinor: 5_000 } });
    expect((await merchantBalance(m)).available).toBe(0);
  });

  test('weekly: one payout per week, on its anchor day', async () => {
    // Wednesday 2026-03-04: weekly on Fridays
    await setSchedule({ interval: 'weekly', weeklyAnchor: 'friday', withdrawalMethodId: methodId }).expect(200);
    await fundMerchant(m, 1_000);
    expect((await run()).created).toEqual([]); // Wednesday
    day(); // Thursday
    expect((await run()).created).toEqual([]);
    day(); // Friday 2026-03-06
    const friday = await run();
    expect(friday.created).toHaveLength(1);
    expect(friday.created[0].period).toBe('weekly:2026-03-06');
    await fundMerchant(m, 500);
    for (let i = 0; i < 6; i++) {
      day(); // Saturday … Thursday
      expect((await run()).created).toEqual([]);
    }
    day(); // Friday 2026-03-13
    const nextFriday = await run();
    expect(nextFriday.created.map((p) => p.period)).toEqual(['weekly:2026-03-13']);
    expect(nextFriday.created[0].amount.valueMinor).toBe(500 - FEE);
  });

  test('list filters and cursor pagination; 404 across merchants, tenants and modes', async () => {
    const all = await payoutsOf();
    expect(all).toHaveLength(5);
    expect((await payoutsOf('&status=paid')).length).toBe(5);
    expect(await payoutsOf('&status=pending')).toEqual([]);
    expect(await payoutsOf('&currency=USD')).toEqual([]);
    const page1 = await merchant.get('/v1/payouts?limit=2').expect(200);
    expect(page1.body.data).toHaveLength(2);
    expect(page1.body.pagination.hasMore).toBe(true);
    const page2 = await merchant.get(`/v1/payouts?limit=2&cursor=${page1.body.pagination.nextCursor}`).expect(200);
    expect(page2.body.data[0].id).not.toBe(page1.body.data[0].id);
    expectProblem(await merchant.get('/v1/payouts?status=lost'), 400);
    const second = await createSecondMerchant(m, 'Payout third merchant');
    expectProblem(await m.as(second.secretKey).get(`/v1/payouts/${firstId}`), 404);
    expect((await m.as(second.secretKey).get('/v1/payouts').expect(200)).body.data).toEqual([]);
    const live = await createLiveTenantKey(m);
    expectProblem(await m.as(live.secretKey).get(`/v1/payouts/${firstId}`), 404);
    // the platform sees it (a token of the test clock's time)
    const platform = await m.rt.tokens.issue(m.sandbox.platformUserId, 3600, false);
    expect((await m.as(platform.token).get(`/v1/payouts/${firstId}`).expect(200)).body.data.id).toBe(firstId);
    // the merchant may not cancel (tenant only): 403
    expectProblem(await merchant.post(`/v1/payouts/${firstId}/cancel`), 403);
    // a paid payout cannot be canceled
    expectProblem(await tenant.post(`/v1/payouts/${firstId}/cancel`), 409, 'INVALID_STATE_TRANSITION');
  });

  test('failure: the provider refuses the destination; the funds return to available; payout.failed', async () => {
    const failing = await saveMethod(m, 'Closed account', SANDBOX_FAILING_IBAN);
    await setSchedule({ interval: 'daily', withdrawalMethodId: failing.id }).expect(200);
    await fundMerchant(m, 4_000);
    const before = await merchantBalance(m);
    const result = await run();
    expect(result.created).toHaveLength(1);
    expect(result.failed).toEqual([result.created[0].id]);
    const payout = (await merchant.get(`/v1/payouts/${result.created[0].id}`).expect(200)).body.data;
    expect(payout).toMatchObject({
      status: 'failed',
      failureReason: expect.stringContaining('account is closed'),
      failedAt: expect.any(String),
      paidAt: null,
    });
    expect(await merchantBalance(m)).toEqual(before);
    expect(await m.eventTypesAbout(payout.id)).toEqual(['payout.created', 'payout.failed']);
    // once per period: the failed payout used this day's
    expect((await run()).created).toEqual([]);
    expectProblem(await tenant.post(`/v1/payouts/${payout.id}/cancel`), 409, 'INVALID_STATE_TRANSITION');
  });

  test('cancel: a pending payout not yet sent (no payout terminal) returns to available', async () => {
    await setSchedule({ interval: 'daily', withdrawalMethodId: methodId }).expect(200);
    day();
    await tenant.post(`/v1/admin/terminals/${m.sandbox.payoutTerminalId}/disable`).expect(200);
    const before = await merchantBalance(m);
    const result = await run();
    expect(result.created).toHaveLength(1);
    const id = result.created[0].id;
    expect(result.unsent).toEqual([id]);
    expect((await tenant.get(`/v1/payouts/${id}`).expect(200)).body.data.status).toBe('pending');
    expect(await merchantBalance(m)).toMatchObject({ available: 0, payable: before.available });
    const canceled = await tenant.post(`/v1/payouts/${id}/cancel`).set('Idempotency-Key', 'cancel-1').expect(200);
    expect(canceled.body.data).toMatchObject({ status: 'canceled', canceledAt: expect.any(String), canceledBy: m.sandbox.tenantKey.id });
    // the same key replays the answer
    const replay = await tenant.post(`/v1/payouts/${id}/cancel`).set('Idempotency-Key', 'cancel-1').expect(200);
    expect(replay.body.data.status).toBe('canceled');
    expectProblem(await tenant.post(`/v1/payouts/${id}/cancel`), 409, 'INVALID_STATE_TRANSITION');
    expect(await merchantBalance(m)).toEqual(before);
    const actions = (await m.rt.db.models.AuditEntry.findAll({ where: { targetId: id } })).map((a) => a.get('action'));
    expect(actions).toEqual(expect.arrayContaining(['payout.created', 'payout.canceled']));
    // a canceled payout is not sent
    const after = await run();
    expect(after.created).toEqual([]);
    expect(after.inTransit).toEqual([]);
    expect(await m.eventTypesAbout(id)).toEqual(['payout.created']);
  });
});

describe(`a payout handed to the provider (${dialectName})`, () => {
  test('cannot be canceled; one left unanswered (a process died) is sent again once its claim lapsed', async () => {
    day();
    await fundMerchant(m, 3_000);
    const result = await run(); // the payout terminal is still disabled: pending, unsent
    const id = result.created[0].id;
    expect(result.unsent).toEqual([id]);
    // as if a process had claimed the send and died before applying the answer
    await m.rt.db.models.Payout.update({ submittedAt: m.clock.now() }, { where: { id } });
    expectProblem(await tenant.post(`/v1/payouts/${id}/cancel`), 409, 'PAYOUT_BEING_SENT');
    await m.rt.db.models.Terminal.update({ status: 'active' }, { where: { id: m.sandbox.payoutTerminalId } });
    m.clock.advance(60_000);
    const early = await run();
    expect([early.inTransit, early.unsent]).toEqual([[], []]);
    m.clock.advance(5 * 60_000);
    const resent = await run();
    expect(resent.inTransit).toEqual([id]);
    expect(resent.paid).toEqual([id]);
    expect((await tenant.get(`/v1/payouts/${id}`).expect(200)).body.data.status).toBe('paid');
    expect(await m.eventTypesAbout(id)).toEqual(['payout.created', 'payout.succeeded']);
  });
});

describe(`payout events (${dialectName})`, () => {
  test('the samples of payout.* have the fields the real events carry', async () => {
    const real = await m.rt.db.models.Event.findAll({ where: { type: ['payout.created', 'payout.succeeded', 'payout.failed'] } });
    const byType = new Map(real.map((e) => [e.get('type') as string, e.get('data') as Record<string, unknown>]));
    expect([...byType.keys()].sort()).toEqual(['payout.created', 'payout.failed', 'payout.succeeded']);
    for (const [type, data] of byType) {
      const sample = sampleEventData(type, { tenantId: m.sandbox.tenantId, merchantId: m.sandbox.merchantId, now: m.clock.now() });
      const { sample: marked, ...fields } = sample;
      expect(marked).toBe(true);
      expect([type, Object.keys(fields).sort()]).toEqual([type, Object.keys(data).sort()]);
      expect([type, fields.status]).toEqual([type, data.status]);
    }
  });
});
