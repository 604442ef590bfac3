import { useMoneyHarness, type MoneyHarness } from '../helpers/money';
import { expectProblem } from '../helpers/api';
import { anotherTenantKey, merchantBalance, saveMethod, TEST_IBAN, withdrawalSettings } from '../helpers/withdrawals';
import { fundMerchant } from '../helpers/funding';
import { operatorContext } from '../../src/services/access/operators';
import { executeViaProvider } from '../../src/services/withdrawals';

/**
 * The withdrawal lifecycle over HTTP: every state move with its event (received, signed, by the merchant's endpoint),
 * audit entry and the balances after each step to the minor unit; every illegal move 409; the mandatory reasons;
 * maker-checker; idempotency; execution through the sandbox payout provider.
 */

jest.setTimeout(120_000);

const FEE = 50; // the sandbox schedule's withdrawal fee (EUR)
const m = useMoneyHarness({ ledger: 'afterAll' });
let merchant: ReturnType<MoneyHarness['as']>;
let tenant: ReturnType<MoneyHarness['as']>;
let methodId: string;
let seq = 0;

beforeAll(async () => {
  merchant = m.as(m.sandbox.merchantKey.secretKey);
  tenant = m.as(m.sandbox.tenantKey.secretKey);
  await withdrawalSettings(m, { withdrawalCoolingPeriodHours: 0 });
  methodId = (await saveMethod(m)).id;
  await fundMerchant(m, 100_000);
});
const request = (valueMinor: number, extra: Record<string, unknown> = {}, key = `wd-${++seq}`) =>
  merchant
    .post('/v1/withdrawals', { amount: { currency: 'EUR', valueMinor }, withdrawalMethodId: methodId, ...extra })
    .set('Idempotency-Key', key);

async function create(valueMinor: number): Promise<string> {
  const res = await request(valueMinor);
  expect(res.status).toBe(201);
  return res.body.data.id;
}

async function auditActions(id: string): Promise<string[]> {
  const rows = await m.rt.db.models.AuditEntry.findAll({
    where: { targetId: id },
    order: [
      ['createdAt', 'ASC'],
      ['id', 'ASC'],
    ],
  });
  return rows.map((r) => r.get('action') as string);
}

test('request, approve, start, complete: balances to the minor unit and one event per move', async () => {
  const before = await merchantBalance(m);
  const created = await request(40_000);
  expect(created.status).toBe(201);
  const w = created.body.data;
  expect(w).toMatchObject({
    status: 'pending',
    entityType: 'merchant',
    entityId: m.sandbox.merchantId,
    withdrawalMethodId: methodId,
    withdrawalChannelId: m.sandbox.payoutChannelId,
    amount: { currency: 'EUR', valueMinor: 40_000 },
    fee: { currency: 'EUR', valueMinor: FEE },
    currency: 'EUR',
    idempotencyKey: `wd-${seq}`,
    destination: { type: 'bank_account' },
    createdBy: m.sandbox.merchantKey.id,
    approvedAt: null,
    executedBy: null,
  });
  expect(w.fundingAccountId).toMatch(/^[0-9a-f-]{36}$/);
  expect(w.destination.details.iban).toMatch(/3000$/);
  expect(JSON.stringify(created.body)).not.toContain(TEST_IBAN);
  // merchant callers do not see who earns the fee nor the provider reference (the event-data rule)
  expect(w).not.toHaveProperty('feeBreakdown');
  expect(await merchantBalance(m)).toMatchObject({ available: before.available - 40_000 - FEE, payable: before.payable + 40_000 + FEE });

  const approved = await tenant.post(`/v1/withdrawals/${w.id}/approve`);
  expect(approved.status).toBe(200);
  expect(approved.body.data).toMatchObject({ status: 'approved', approvedBy: m.sandbox.tenantKey.id });
  expect(approved.body.data.approvedAt).toBe(m.clock.now().toISOString());

  const started = await tenant.post(`/v1/withdrawals/${w.id}/start-execution`);
  expect(started.status).toBe(200);
  expect(started.body.data).toMatchObject({ status: 'executing', executedBy: m.sandbox.tenantKey.id });
  expect(await merchantBalance(m)).toMatchObject({ available: before.available - 40_000 - FEE, payable: before.payable + 40_000 + FEE });

  m.clock.advance(60_000);
  const completed = await tenant.post(`/v1/withdrawals/${w.id}/complete`, { providerReference: 'BANK-REF-0001', comment: 'Sent by SEPA' });
  expect(completed.status).toBe(200);
  expect(completed.body.data).toMatchObject({ status: 'completed', providerReference: 'BANK-REF-0001', executionComment: 'Sent by SEPA' });
  expect(completed.body.data.completedAt).toBe(m.clock.now().toISOString());
  expect(completed.body.data.feeBreakdown).toMatchObject({ tenantFee: FEE, merchantFee: FEE });
  expect(await merchantBalance(m)).toMatchObject({ available: before.available - 40_000 - FEE, payable: before.payable });

  // the payout left through the channel's clearing account; the fee is the tenant's revenue
  const entries = (await m.rt.db.models.LedgerEntry.findAll({ where: { sourceType: 'withdrawal', sourceId: w.id } })).map((e) =>
    e.get({ plain: true }),
  );
  const sum = (account: string) => entries.filter((e) => e.account === account).reduce((s, e) => s + Number(e.amountMinor), 0);
  expect(sum('payout_clearing')).toBe(40_000);
  expect(sum('tenant_revenue')).toBe(FEE);
  expect(sum('merchant_payable')).toBe(0);
  expect(sum('merchant_available')).toBe(-40_000 - FEE);

  const events = await m.eventsAbout(w.id);
  expect(events.map((e) => e.type)).toEqual(['withdrawal.created', 'withdrawal.approved', 'withdrawal.succeeded']);
  expect(events[2].data).toMatchObject({ object: 'withdrawal', status: 'completed', amount: { currency: 'EUR', valueMinor: 40_000 } });
  expect(await auditActions(w.id)).toEqual([
    'withdrawal.created',
    'withdrawal.approved',
    'withdrawal.execution_started',
    'withdrawal.completed',
  ]);

  const got = await merchant.get(`/v1/withdrawals/${w.id}`);
  expect(got.status).toBe(200);
  expect(got.body.data.status).toBe('completed');
});

test('reject needs a reason, releases the hold and carries the reason in its event', async () => {
  const before = await merchantBalance(m);
  const id = await create(10_000);
  expect(await merchantBalance(m)).toMatchObject({ available: before.available - 10_050, payable: before.payable + 10_050 });
  expectProblem(await tenant.post(`/v1/withdrawals/${id}/reject`, {}), 400, 'VALIDATION_FAILED');
  expectProblem(await tenant.post(`/v1/withdrawals/${id}/reject`, { rejectionReason: '   ' }), 400);
  expect((await tenant.get(`/v1/withdrawals/${id}`)).body.data.status).toBe('pending');
  const rejected = await tenant.post(`/v1/withdrawals/${id}/reject`, { rejectionReason: 'Account holder does not match the merchant' });
  expect(rejected.status).toBe(200);
  expect(rejected.body.data).toMatchObject({
    status: 'rejected',
    rejectionReason: 'Account holder does not match the merchant',
    rejectedBy: m.sandbox.tenantKey.id,
  });
  expect(await merchantBalance(m)).toEqual(before);
  const events = await m.eventsAbout(id);
  expect(events.map((e) => e.type)).toEqual(['withdrawal.created', 'withdrawal.rejected']);
  expect(events[1].data.rejectionReason).toBe('Account holder does not match the merchant');
});

test('the merchant cancels a pending withdrawal: the hold is released', async () => {
  const before = await merchantBalance(m);
  const id = await create(5_000);
  const canceled = await merchant.post(`/v1/withdrawals/${id}/cancel`);
  expect(canceled.status).toBe(200);
  expect(canceled.body.data).toMatchObject({ status: 'canceled', canceledBy: m.sandbox.merchantKey.id });
  expect(await merchantBalance(m)).toEqual(before);
  expect((await m.eventsAbout(id)).map((e) => e.type)).toEqual(['withdrawal.created', 'withdrawal.canceled']);
  expectProblem(await merchant.post(`/v1/withdrawals/${id}/cancel`), 409, 'INVALID_STATE_TRANSITION');
});

test("fail needs a comment (400, nothing changes); a failed withdrawal's funds are available again", async () => {
  const before = await merchantBalance(m);
  const id = await create(20_000);
  await tenant.post(`/v1/withdrawals/${id}/approve`).expect(200);
  await tenant.post(`/v1/withdrawals/${id}/start-execution`).expect(200);
  const held = await merchantBalance(m);
  expect(held).toMatchObject({ available: before.available - 20_050, payable: before.payable + 20_050 });
  const entriesBefore = await m.rt.db.models.LedgerEntry.count();
  for (const body of [{}, { comment: '' }, { comment: '  ' }]) {
    const res = await tenant.post(`/v1/withdrawals/${id}/fail`, body);
    expectProblem(res, 400);
    expect(res.body.errors[0].path).toBe('body.comment');
  }
  expect((await tenant.get(`/v1/withdrawals/${id}`)).body.data).toMatchObject({
    status: 'executing',
    failedAt: null,
    executionComment: null,
  });
  expect(await merchantBalance(m)).toEqual(held);
  expect(await m.rt.db.models.LedgerEntry.count()).toBe(entriesBefore);

  const failed = await tenant.post(`/v1/withdrawals/${id}/fail`, { comment: 'Bank returned the transfer: account closed' });
  expect(failed.status).toBe(200);
  expect(failed.body.data).toMatchObject({
    status: 'failed',
    executionComment: 'Bank returned the transfer: account closed',
    failureReason: 'Bank returned the transfer: account closed',
  });
  expect(await merchantBalance(m)).toEqual(before);
  const events = await m.eventsAbout(id);
  expect(events.map((e) => e.type)).toEqual(['withdrawal.created', 'withdrawal.approved', 'withdrawal.failed']);
  // the same money can be requested again
  const again = await create(20_000);
  expect(again).not.toBe(id);
  await merchant.post(`/v1/withdrawals/${again}/cancel`).expect(200);
});

test('every illegal move answers 409 and changes nothing', async () => {
  const moves = {
    cancel: (id: string) => merchant.post(`/v1/withdrawals/${id}/cancel`),
    approve: (id: string) => tenant.post(`/v1/withdrawals/${id}/approve`),
    reject: (id: string) => tenant.post(`/v1/withdrawals/${id}/reject`, { rejectionReason: 'no' }),
    start: (id: string) => tenant.post(`/v1/withdrawals/${id}/start-execution`),
    complete: (id: string) => tenant.post(`/v1/withdrawals/${id}/complete`, { providerReference: 'X' }),
    fail: (id: string) => tenant.post(`/v1/withdrawals/${id}/fail`, { comment: 'no' }),
  };
  const allowed: Record<string, (keyof typeof moves)[]> = {
    pending: ['cancel', 'approve', 'reject'],
    approved: ['start'],
    executing: ['complete', 'fail'],
    completed: [],
    rejected: [],
    canceled: [],
    failed: [],
  };
  const reach: Record<string, (keyof typeof moves)[]> = {
    pending: [],
    approved: ['approve'],
    executing: ['approve', 'start'],
    completed: ['approve', 'start', 'complete'],
    rejected: ['reject'],
    canceled: ['cancel'],
    failed: ['approve', 'start', 'fail'],
  };
  for (const [state, path] of Object.entries(reach)) {
    const id = await create(1_000);
    for (const step of path) expect((await moves[step](id)).status).toBe(200);
    const balance = await merchantBalance(m);
    for (const move of Object.keys(moves) as (keyof typeof moves)[]) {
      if (allowed[state].includes(move)) continue;
      const res = await moves[move](id);
      expectProblem(res, 409, 'INVALID_STATE_TRANSITION');
      expect(res.body.detail).toContain(state);
    }
    expect((await tenant.get(`/v1/withdrawals/${id}`)).body.data.status).toBe(state);
    expect(await merchantBalance(m)).toEqual(balance);
    if (state === 'pending') await moves.cancel(id);
    if (state === 'approved') await moves.start(id);
    if (['approved', 'executing'].includes(state)) await moves.fail(id);
  }
});

test('levels: merchants request, view and cancel; only operators review and execute', async () => {
  const id = await create(1_000);
  for (const path of ['approve', 'start-execution', 'complete'])
    expectProblem(await merchant.post(`/v1/withdrawals/${id}/${path}`, {}), 403);
  expectProblem(await merchant.post(`/v1/withdrawals/${id}/reject`, { rejectionReason: 'x' }), 403);
  expectProblem(await merchant.post(`/v1/withdrawals/${id}/fail`, { comment: 'x' }), 403);
  expectProblem(await merchant.get('/v1/withdrawals/0190a1b2-0000-7000-8000-000000000000'), 404);
  // tenant callers name the merchant
  const byTenant = await tenant
    .post('/v1/withdrawals', { amount: { currency: 'EUR', valueMinor: 1_000 }, withdrawalMethodId: methodId })
    .set('Idempotency-Key', 'tenant-without-merchant');
  expectProblem(byTenant, 400);
  expect(byTenant.body.errors[0].path).toBe('body.merchantId');
  const named = await tenant
    .post('/v1/withdrawals', {
      amount: { currency: 'EUR', valueMinor: 1_000 },
      withdrawalMethodId: methodId,
      merchantId: m.sandbox.merchantId,
    })
    .set('Idempotency-Key', 'tenant-with-merchant');
  expect(named.status).toBe(201);
  expect(named.body.data.createdBy).toBe(m.sandbox.tenantKey.id);
  expect(named.body.data.feeBreakdown).toMatchObject({ merchantFee: FEE });
  for (const w of [id, named.body.data.id]) await tenant.post(`/v1/withdrawals/${w}/cancel`).expect(200);
});

test('list filters: status, entityId, currency; newest first', async () => {
  const list = await tenant.get('/v1/withdrawals?status=canceled&limit=100');
  expect(list.status).toBe(200);
  expect(list.body.data.length).toBeGreaterThan(2);
  expect(list.body.data.every((w: { status: string }) => w.status === 'canceled')).toBe(true);
  const times = list.body.data.map((w: { createdAt: string }) => w.createdAt);
  expect([...times].sort().reverse()).toEqual(times);
  expect((await tenant.get(`/v1/withdrawals?entityId=${m.sandbox.merchantId}&limit=1`)).body.pagination.totalCount).toBeGreaterThan(5);
  expect((await tenant.get('/v1/withdrawals?currency=USD')).body.data).toEqual([]);
  expectProblem(await tenant.get('/v1/withdrawals?status=paid'), 400);
  expectProblem(await tenant.get('/v1/withdrawals?entityId=nope'), 400);
});

test('insufficient balance: amount plus fee must be available', async () => {
  const { available } = await merchantBalance(m);
  const short = await request(available - FEE + 1);
  expectProblem(short, 422, 'INSUFFICIENT_BALANCE');
  expect(await merchantBalance(m)).toMatchObject({ available });
  const exact = await request(available - FEE);
  expect(exact.status).toBe(201);
  expect(await merchantBalance(m)).toMatchObject({ available: 0 });
  expectProblem(await request(1), 422, 'INSUFFICIENT_BALANCE');
  await merchant.post(`/v1/withdrawals/${exact.body.data.id}/cancel`).expect(200);
  expect(await merchantBalance(m)).toMatchObject({ available });
});

test('bad requests: 400 naming the field, and the Idempotency-Key is required and replays', async () => {
  const body = { amount: { currency: 'EUR', valueMinor: 1_000 }, withdrawalMethodId: methodId };
  const noKey = await merchant.post('/v1/withdrawals', body);
  expectProblem(noKey, 400, 'IDEMPOTENCY_KEY_REQUIRED');
  for (const [bad, path] of [
    [{ ...body, amount: { currency: 'EUR', valueMinor: 0 } }, 'body.amount.valueMinor'],
    [{ ...body, amount: { currency: 'EUR', valueMinor: 1.5 } }, 'body.amount.valueMinor'],
    [{ ...body, amount: { currency: 'eur', valueMinor: 100 } }, 'body.amount.currency'],
    [{ ...body, withdrawalMethodId: 'x' }, 'body.withdrawalMethodId'],
    [{ ...body, extra: true }, 'body.extra'],
    [{ amount: body.amount }, 'body.withdrawalMethodId'],
  ] as const) {
    const res = await merchant.post('/v1/withdrawals', bad).set('Idempotency-Key', `bad-${path}-${JSON.stringify(bad).length}`);
    expectProblem(res, 400);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
  }
  // an unknown method or channel: 404 naming the field; a payin channel: 400
  const unknown = await merchant
    .post('/v1/withdrawals', { ...body, withdrawalMethodId: '0190a1b2-0000-7000-8000-000000000000' })
    .set('Idempotency-Key', 'unknown-method');
  expectProblem(unknown, 404);
  expect(unknown.body.errors[0].path).toBe('body.withdrawalMethodId');
  const payin = await tenant.post('/v1/admin/channels', { name: 'Card payins', direction: 'payin', currencies: ['EUR'] });
  expect(payin.status).toBe(201);
  const wrongChannel = await merchant
    .post('/v1/withdrawals', { ...body, withdrawalChannelId: payin.body.data.id })
    .set('Idempotency-Key', 'payin-channel');
  expectProblem(wrongChannel, 400);
  expect(wrongChannel.body.errors[0]).toMatchObject({ path: 'body.withdrawalChannelId', message: 'must be a payout channel' });
  const noChannel = await merchant
    .post('/v1/withdrawals', { ...body, withdrawalChannelId: '0190a1b2-0000-7000-8000-000000000001' })
    .set('Idempotency-Key', 'no-channel');
  expectProblem(noChannel, 404);
  expect(noChannel.body.errors[0].path).toBe('body.withdrawalChannelId');
  // bank_account takes any currency, but the merchant has no USD funds
  expectProblem(
    await merchant.post('/v1/withdrawals', { ...body, amount: { currency: 'USD', valueMinor: 100 } }).set('Idempotency-Key', 'usd'),
    422,
    'INSUFFICIENT_BALANCE',
  );

  const first = await merchant.post('/v1/withdrawals', body).set('Idempotency-Key', 'replayed-key');
  expect(first.status).toBe(201);
  const replay = await merchant.post('/v1/withdrawals', body).set('Idempotency-Key', 'replayed-key');
  expect(replay.status).toBe(201);
  expect(replay.headers['idempotent-replayed']).toBe('true');
  expect(replay.body.data.id).toBe(first.body.data.id);
  expectProblem(
    await merchant
      .post('/v1/withdrawals', { ...body, amount: { currency: 'EUR', valueMinor: 2_000 } })
      .set('Idempotency-Key', 'replayed-key'),
    409,
    'IDEMPOTENCY_KEY_REUSED',
  );
  expect(await m.rt.db.models.Withdrawal.count({ where: { idempotencyKey: 'replayed-key' } })).toBe(1);
  await merchant.post(`/v1/withdrawals/${first.body.data.id}/cancel`).expect(200);
});

test('a cooling method cannot be used until it activates', async () => {
  await withdrawalSettings(m, { withdrawalCoolingPeriodHours: 24 });
  const cooling = await saveMethod(m, 'New account', 'GB82WEST12345698765432');
  expect(cooling.status).toBe('cooling');
  const body = { amount: { currency: 'EUR', valueMinor: 1_000 }, withdrawalMethodId: cooling.id };
  expectProblem(await merchant.post('/v1/withdrawals', body).set('Idempotency-Key', 'cooling-1'), 422, 'WITHDRAWAL_METHOD_NOT_ACTIVE');
  m.clock.advance(24 * 3_600_000 + 1_000);
  const later = await merchant.post('/v1/withdrawals', body).set('Idempotency-Key', 'cooling-2');
  expect(later.status).toBe(201);
  expect(later.body.data.destination.details.iban).toMatch(/5432$/);
  await merchant.post(`/v1/withdrawals/${later.body.data.id}/cancel`).expect(200);
  await withdrawalSettings(m, { withdrawalCoolingPeriodHours: 0 });
});

test('maker-checker: the creator cannot approve, the approver cannot execute', async () => {
  await withdrawalSettings(m, { withdrawalMakerChecker: true });
  const second = await anotherTenantKey(m);
  const other = m.as(second.secretKey);
  const created = await tenant
    .post('/v1/withdrawals', {
      amount: { currency: 'EUR', valueMinor: 3_000 },
      withdrawalMethodId: methodId,
      merchantId: m.sandbox.merchantId,
    })
    .set('Idempotency-Key', 'maker-checker');
  expect(created.status).toBe(201);
  const id = created.body.data.id;
  expectProblem(await tenant.post(`/v1/withdrawals/${id}/approve`), 403, 'MAKER_CHECKER_VIOLATION');
  expect((await tenant.get(`/v1/withdrawals/${id}`)).body.data.status).toBe('pending');
  expect((await other.post(`/v1/withdrawals/${id}/approve`)).body.data.approvedBy).toBe(second.id);
  expectProblem(await other.post(`/v1/withdrawals/${id}/start-execution`), 403, 'MAKER_CHECKER_VIOLATION');
  const started = await tenant.post(`/v1/withdrawals/${id}/start-execution`);
  expect(started.body.data).toMatchObject({ status: 'executing', executedBy: m.sandbox.tenantKey.id });
  await tenant.post(`/v1/withdrawals/${id}/fail`, { comment: 'test over' }).expect(200);
  // without the rule, one operator may do it all
  await withdrawalSettings(m, { withdrawalMakerChecker: false });
  const solo = await create(1_000);
  await tenant.post(`/v1/withdrawals/${solo}/approve`).expect(200);
  await tenant.post(`/v1/withdrawals/${solo}/start-execution`).expect(200);
  await tenant.post(`/v1/withdrawals/${solo}/fail`, { comment: 'test over' }).expect(200);
});

test('execution through the sandbox payout provider completes with its reference', async () => {
  const before = await merchantBalance(m);
  const id = await create(7_000);
  await tenant.post(`/v1/withdrawals/${id}/approve`).expect(200);
  const operator = operatorContext(m.rt, { level: 'tenant', tenantId: m.sandbox.tenantId, livemode: false });
  const done = await executeViaProvider(operator, id);
  expect(done).toMatchObject({ status: 'completed', executedBy: operator.actor.id, completedBy: operator.actor.id });
  expect(done.providerReference).toMatch(/^sbpo_[0-9a-f]{24}$/);
  expect(await merchantBalance(m)).toMatchObject({ available: before.available - 7_050, payable: before.payable });
  const events = await m.eventsAbout(id);
  expect(events.map((e) => e.type)).toEqual(['withdrawal.created', 'withdrawal.approved', 'withdrawal.succeeded']);
  // merchant endpoints do not receive the provider's reference (tenant-level data)
  expect(events[2].data).not.toHaveProperty('providerReference');
  // a completed withdrawal cannot be sent again
  await expect(executeViaProvider(operator, id)).rejects.toMatchObject({ code: 'INVALID_STATE_TRANSITION' });
});

test('only the operator who started an execution records its result', async () => {
  const second = await anotherTenantKey(m, 'Third operator');
  const other = m.as(second.secretKey);
  const id = await create(2_000);
  await tenant.post(`/v1/withdrawals/${id}/approve`).expect(200);
  await tenant.post(`/v1/withdrawals/${id}/start-execution`).expect(200);
  const held = await merchantBalance(m);
  expectProblem(await other.post(`/v1/withdrawals/${id}/fail`, { comment: 'not mine' }), 409, 'EXECUTION_OWNED_BY_OTHER');
  expectProblem(await other.post(`/v1/withdrawals/${id}/complete`, { providerReference: 'X' }), 409, 'EXECUTION_OWNED_BY_OTHER');
  expect((await tenant.get(`/v1/withdrawals/${id}`)).body.data.status).toBe('executing');
  expect(await merchantBalance(m)).toEqual(held);
  await tenant.post(`/v1/withdrawals/${id}/complete`, { providerReference: 'OWN-1' }).expect(200);
});

test('a suspended method stops its pending and approved withdrawals until reactivated', async () => {
  const pending = await create(1_000);
  const approved = await create(1_000);
  await tenant.post(`/v1/withdrawals/${approved}/approve`).expect(200);
  await tenant.post(`/v1/merchant-withdrawal-methods/${methodId}/suspend`).expect(200);
  expectProblem(await tenant.post(`/v1/withdrawals/${pending}/approve`), 422, 'WITHDRAWAL_METHOD_NOT_ACTIVE');
  expectProblem(await tenant.post(`/v1/withdrawals/${approved}/start-execution`), 422, 'WITHDRAWAL_METHOD_NOT_ACTIVE');
  expectProblem(await request(1_000), 422, 'WITHDRAWAL_METHOD_NOT_ACTIVE');
  // the merchant cannot shed the suspension by deleting the method
  expectProblem(await merchant.delete(`/v1/merchant-withdrawal-methods/${methodId}`), 409, 'WITHDRAWAL_METHOD_SUSPENDED');
  await tenant.post(`/v1/merchant-withdrawal-methods/${methodId}/reactivate`).expect(200);
  await tenant.post(`/v1/withdrawals/${pending}/approve`).expect(200);
  await tenant.post(`/v1/withdrawals/${approved}/start-execution`).expect(200);
  await tenant.post(`/v1/withdrawals/${approved}/fail`, { comment: 'test over' }).expect(200);
  await tenant.post(`/v1/withdrawals/${pending}/start-execution`).expect(200);
  await tenant.post(`/v1/withdrawals/${pending}/fail`, { comment: 'test over' }).expect(200);
});

test('merchant withdrawal limits refuse with 422 LIMIT_EXCEEDED; refused withdrawals consume nothing', async () => {
  const limit = await tenant.post(`/v1/admin/merchants/${m.sandbox.merchantId}/limits`, {
    period: { value: 1, unit: 'day' },
    metric: 'volume',
    threshold: 5_000,
    currency: 'EUR',
    transactionType: 'withdrawal',
  });
  expect(limit.status).toBe(201);
  m.clock.advance(2 * 86_400_000); // earlier withdrawals fall out of the period
  const first = await create(3_000);
  expectProblem(await request(2_001), 422, 'LIMIT_EXCEEDED');
  const second = await create(2_000);
  await merchant.post(`/v1/withdrawals/${second}/cancel`).expect(200);
  // canceled: its amount is free again
  const third = await create(2_000);
  for (const id of [first, third]) await merchant.post(`/v1/withdrawals/${id}/cancel`).expect(200);
  await tenant.post(`/v1/admin/merchants/${m.sandbox.merchantId}/limits/${limit.body.data.id}/disable`).expect(200);
});
