import { useApiHarness, createLiveTenantKey, expectProblem } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { eur, usd } from '../helpers/amounts';
import { operatorContext } from '../../src/services/access/operators';
import { createCompanyRecord, createMerchantRecord } from '../../src/services/organization/records';
import { resolveFees } from '../../src/services/fees/schedules';
import { PLATFORM_ID } from '../../src/services/tenants/platform';

let platform: string;
let tenantKey: string;
let merchantKey: string;
let other: { tenantId: string; secretKey: string; merchantId: string };

const MISSING = '00000000-0000-4000-8000-000000000000';
/** terminals are another engineer's area: with their model present, terminal targets are checked */
const terminalsBuilt = () => 'Terminal' in h.rt.db.models;
const paths = (res: { body: { errors?: { path: string }[] } }) => (res.body.errors ?? []).map((e) => e.path).sort();
const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((r) => r.id);

const h = useApiHarness();
beforeAll(async () => {
  // the sandbox comes with an active tenant-level schedule; this file counts records from an empty slate
  await h.rt.db.models.FeeAssignment.destroy({ where: {} });
  await h.rt.db.models.FeeSchedule.destroy({ where: {} });
  platform = h.sandbox.platformToken;
  tenantKey = h.sandbox.tenantKey.secretKey;
  merchantKey = h.sandbox.merchantKey.secretKey;
  const live = await createLiveTenantKey(h);
  const otherOp = operatorContext(h.rt, { level: 'tenant', tenantId: live.tenantId, livemode: true });
  const company = await createCompanyRecord(otherOp, { name: 'Other Co', country: 'FR' });
  const merchant = await createMerchantRecord(otherOp, { companyId: company.id, name: 'Other merchant' });
  other = { tenantId: live.tenantId, secretKey: live.secretKey, merchantId: merchant.id };
});

const PERCENT_RULE = { transactionType: 'payment', method: 'percentage', currency: 'EUR', percentageRate: 15000 };

async function activeSchedule(key: string, body: Record<string, unknown>): Promise<string> {
  const res = await h.as(key).post('/v1/admin/fee-schedules', body);
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  const act = await h.as(key).post(`/v1/admin/fee-schedules/${res.body.data.id}/activate`);
  if (act.status !== 200) throw new Error(JSON.stringify(act.body));
  return res.body.data.id;
}

describe(`fee schedules (${dialectName})`, () => {
  let scheduleId: string;

  test('a tenant creates a draft with rules and a rolling reserve; defaults are filled in', async () => {
    const res = await h.as(tenantKey).post('/v1/admin/fee-schedules', {
      name: 'Standard EU',
      description: 'cards',
      rules: [
        { ...PERCENT_RULE, minAmount: eur(10), maxAmount: eur(500) },
        {
          transactionType: 'payment',
          transactionOutcome: 'any',
          method: 'fixed',
          party: 'provider',
          currency: 'EUR',
          fixedAmount: eur(20),
        },
      ],
      rollingReserve: { rate: 10000, holdDays: 90, roundingMode: 'floor' },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(String),
      tenantId: h.sandbox.tenantId,
      createdBy: h.sandbox.tenantKey.id,
      name: 'Standard EU',
      description: 'cards',
      status: 'draft',
      rules: [
        {
          transactionType: 'payment',
          transactionOutcome: 'successful',
          method: 'percentage',
          party: 'tenant',
          currency: 'EUR',
          fixedAmount: null,
          percentageRate: 15000,
          minAmount: eur(10),
          maxAmount: eur(500),
        },
        {
          transactionType: 'payment',
          transactionOutcome: 'any',
          method: 'fixed',
          party: 'provider',
          currency: 'EUR',
          fixedAmount: eur(20),
          percentageRate: null,
          minAmount: null,
          maxAmount: null,
        },
      ],
      rollingReserve: { rate: 10000, holdDays: 90, autoRelease: true, roundingMode: 'floor' },
      createdAt: '2026-03-01T12:00:00.000Z',
      updatedAt: '2026-03-01T12:00:00.000Z',
      deletedAt: null,
      activatedAt: null,
      archivedAt: null,
    });
    scheduleId = res.body.data.id;
    expect((await h.as(tenantKey).get(`/v1/admin/fee-schedules/${scheduleId}`)).body.data).toEqual(res.body.data);
    const list = await h.as(tenantKey).get('/v1/admin/fee-schedules');
    expect(ids(list)).toEqual([scheduleId]);
    expect(list.body.pagination).toMatchObject({ totalCount: 1, hasMore: false });
    const bare = await h.as(tenantKey).post('/v1/admin/fee-schedules', { name: 'Empty' });
    expect(bare.body.data).toMatchObject({
      rules: [],
      rollingReserve: { rate: 0, holdDays: 0, autoRelease: true, roundingMode: 'half_up' },
    });
  });

  test('validation names each field: rule methods, currencies, integer rates, clamps, unknown fields', async () => {
    const res = await h.as(tenantKey).post('/v1/admin/fee-schedules', {
      name: '',
      rules: [
        { transactionType: 'payment', method: 'fixed', currency: 'EUR' },
        { transactionType: 'payment', method: 'percentage', currency: 'EUR', percentageRate: 1.5 },
        {
          transactionType: 'payment',
          method: 'fixed_plus_percentage',
          currency: 'EUR',
          fixedAmount: { currency: 'USD', valueMinor: 5 },
          percentageRate: 100,
        },
        { transactionType: 'payment', method: 'percentage', currency: 'EUR', percentageRate: 100, minAmount: eur(50), maxAmount: eur(10) },
        { transactionType: 'sale', method: 'flat', currency: 'eur' },
      ],
      rollingReserve: { rate: 2_000_000, roundingMode: 'bankers' },
      status: 'active',
    });
    expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(paths(res)).toEqual([
      'body.name',
      'body.rollingReserve.rate',
      'body.rollingReserve.roundingMode',
      'body.rules[0].fixedAmount',
      'body.rules[1].percentageRate',
      'body.rules[2].fixedAmount.currency',
      'body.rules[3].maxAmount.valueMinor',
      'body.rules[4].currency',
      'body.rules[4].method',
      'body.rules[4].transactionType',
      'body.status',
    ]);
    expect(paths(await h.as(tenantKey).patch(`/v1/admin/fee-schedules/${scheduleId}`, {}))).toEqual(['body']);
    expectProblem(await h.as(tenantKey).get('/v1/admin/fee-schedules?status=gone'), 400);
    expectProblem(await h.as(tenantKey).get('/v1/admin/fee-schedules/not-a-uuid'), 404);
    expectProblem(await h.as(tenantKey).post(`/v1/admin/fee-schedules/${MISSING}/activate`), 404);
  });

  test('update only as draft; draft -> active -> archived; illegal moves 409; every change audited', async () => {
    h.clock.advance(1000);
    const updated = await h.as(tenantKey).patch(`/v1/admin/fee-schedules/${scheduleId}`, { name: 'Standard EU v2', rules: [PERCENT_RULE] });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({
      name: 'Standard EU v2',
      updatedAt: '2026-03-01T12:00:01.000Z',
      rules: [{ percentageRate: 15000, minAmount: null }],
    });
    const move = (m: string) => h.as(tenantKey).post(`/v1/admin/fee-schedules/${scheduleId}/${m}`);
    expectProblem(await move('archive'), 409, 'INVALID_STATE_TRANSITION');
    const active = await move('activate');
    expect(active.body.data).toMatchObject({ status: 'active', activatedAt: '2026-03-01T12:00:01.000Z', archivedAt: null });
    expectProblem(await move('activate'), 409, 'INVALID_STATE_TRANSITION');
    expectProblem(await h.as(tenantKey).patch(`/v1/admin/fee-schedules/${scheduleId}`, { name: 'x' }), 409, 'FEE_SCHEDULE_NOT_DRAFT');
    expect(ids(await h.as(tenantKey).get('/v1/admin/fee-schedules?status=active'))).toEqual([scheduleId]);
    h.clock.advance(1000);
    const archived = await move('archive');
    expect(archived.body.data).toMatchObject({ status: 'archived', archivedAt: '2026-03-01T12:00:02.000Z' });
    expectProblem(await move('archive'), 409, 'INVALID_STATE_TRANSITION');
    expectProblem(await move('activate'), 409, 'INVALID_STATE_TRANSITION');
    expectProblem(await h.as(tenantKey).patch(`/v1/admin/fee-schedules/${scheduleId}`, { name: 'x' }), 409, 'FEE_SCHEDULE_NOT_DRAFT');
    const audit = await h.as(tenantKey).get(`/v1/audit-entries?targetId=${scheduleId}`);
    expect(audit.body.data.map((e: { action: string }) => e.action)).toEqual([
      'fee_schedule.archived',
      'fee_schedule.activated',
      'fee_schedule.updated',
      'fee_schedule.created',
    ]);
    expect(audit.body.data[1]).toMatchObject({ before: { status: 'draft' }, after: { status: 'active' } });
  });

  test('platform schedules; cross-tenant access is 404; merchants are refused (403)', async () => {
    const own = await h.as(platform).post('/v1/admin/fee-schedules', { name: 'Platform fees' });
    expect(own.status).toBe(201);
    expect(own.body.data.tenantId).toBeNull();
    const forOther = await h.as(platform).post('/v1/admin/fee-schedules', { name: 'Other tenant fees', tenantId: other.tenantId });
    expect(forOther.body.data.tenantId).toBe(other.tenantId);
    expectProblem(await h.as(platform).post('/v1/admin/fee-schedules', { name: 'X', tenantId: MISSING }), 404);
    expect(ids(await h.as(platform).get(`/v1/admin/fee-schedules?tenantId=${other.tenantId}`))).toEqual([forOther.body.data.id]);
    for (const id of [own.body.data.id, forOther.body.data.id]) {
      expectProblem(await h.as(tenantKey).get(`/v1/admin/fee-schedules/${id}`), 404, 'RESOURCE_NOT_FOUND');
      expectProblem(await h.as(tenantKey).patch(`/v1/admin/fee-schedules/${id}`, { name: 'mine' }), 404);
      expectProblem(await h.as(tenantKey).post(`/v1/admin/fee-schedules/${id}/activate`), 404);
    }
    expectProblem(await h.as(other.secretKey).get(`/v1/admin/fee-schedules/${scheduleId}`), 404);
    expectProblem(await h.as(other.secretKey).post(`/v1/admin/fee-schedules/${scheduleId}/archive`), 404);
    expect(ids(await h.as(tenantKey).get('/v1/admin/fee-schedules?limit=100'))).not.toContain(own.body.data.id);
    expectProblem(await h.as(tenantKey).post('/v1/admin/fee-schedules', { name: 'Sneaky', tenantId: other.tenantId }), 404);
    expectProblem(await h.as(merchantKey).get('/v1/admin/fee-schedules'), 403, 'LEVEL_NOT_ALLOWED');
    expectProblem(await h.as(merchantKey).post('/v1/admin/fee-schedules', { name: 'M' }), 403);
    expectProblem(await h.as(merchantKey).get(`/v1/admin/fee-schedules/${scheduleId}`), 403);
    expectProblem(await h.as(merchantKey).patch(`/v1/admin/fee-schedules/${scheduleId}`, { name: 'M' }), 403);
    for (const m of ['activate', 'archive']) expectProblem(await h.as(merchantKey).post(`/v1/admin/fee-schedules/${scheduleId}/${m}`), 403);
  });
});

describe(`fee assignments (${dialectName})`, () => {
  let scheduleId: string;
  let assignmentId: string;
  let channelId: string;
  let partnerId: string;

  beforeAll(async () => {
    scheduleId = await activeSchedule(tenantKey, { name: 'Assignable', rules: [PERCENT_RULE] });
    channelId = (await h.as(tenantKey).post('/v1/admin/channels', { name: 'EU cards', direction: 'payin', currencies: ['EUR'] })).body.data
      .id;
    partnerId = (await h.as(tenantKey).post('/v1/admin/partners', { name: 'Referrer' })).body.data.id;
  });

  test('assign an active schedule to a merchant; get, list, audit', async () => {
    const res = await h.as(tenantKey).post('/v1/admin/fee-assignments', {
      level: 'merchant',
      targetEntityId: h.sandbox.merchantId,
      feeScheduleId: scheduleId,
      currency: 'EUR',
      paymentMethod: 'card',
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(String),
      tenantId: h.sandbox.tenantId,
      targetEntityId: h.sandbox.merchantId,
      feeScheduleId: scheduleId,
      createdBy: h.sandbox.tenantKey.id,
      level: 'merchant',
      currency: 'EUR',
      paymentMethod: 'card',
      effectiveFrom: h.clock.now().toISOString(),
      effectiveTo: null,
      status: 'open',
      createdAt: h.clock.now().toISOString(),
      updatedAt: h.clock.now().toISOString(),
      deletedAt: null,
    });
    assignmentId = res.body.data.id;
    expect((await h.as(tenantKey).get(`/v1/admin/fee-assignments/${assignmentId}`)).body.data).toEqual(res.body.data);
    expect(ids(await h.as(tenantKey).get('/v1/admin/fee-assignments'))).toEqual([assignmentId]);
    const audit = await h.as(tenantKey).get(`/v1/audit-entries?targetId=${assignmentId}`);
    expect(audit.body.data.map((e: { action: string }) => e.action)).toEqual(['fee_assignment.created']);
  });

  test('every level: tenant, channel, partner, terminal (uuid), platform (platform callers only)', async () => {
    const assign = (key: string, body: Record<string, unknown>) =>
      h.as(key).post('/v1/admin/fee-assignments', { feeScheduleId: scheduleId, currency: 'EUR', paymentMethod: 'card', ...body });
    for (const [level, target] of [
      ['tenant', h.sandbox.tenantId],
      ['channel', channelId],
      ['partner', partnerId],
    ]) {
      const res = await assign(tenantKey, { level, targetEntityId: target });
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({ level, targetEntityId: target, tenantId: h.sandbox.tenantId });
    }
    // terminals: a visible terminal once the Terminal model exists (an unknown id is then 404), any uuid before
    const terminal = await assign(tenantKey, { level: 'terminal', targetEntityId: '0198c2d0-0000-7000-8000-00000000abcd' });
    if (terminalsBuilt()) {
      expectProblem(terminal, 404);
      expect(paths(terminal)).toEqual(['body.targetEntityId']);
    } else {
      expect(terminal.status).toBe(201);
      expect(terminal.body.data).toMatchObject({ level: 'terminal', tenantId: h.sandbox.tenantId });
    }
    // platform level: refused to tenants; the platform assigns a platform schedule to the platform
    const refused = await assign(tenantKey, { level: 'platform' });
    expectProblem(refused, 403, 'PLATFORM_ONLY_LEVEL');
    expect(paths(refused)).toEqual(['body.level']);
    const platformSchedule = await activeSchedule(platform, {
      name: 'Platform cut',
      rules: [{ ...PERCENT_RULE, party: 'platform', percentageRate: 1000 }],
    });
    const wrongSchedule = await assign(platform, { level: 'platform' });
    expectProblem(wrongSchedule, 400);
    expect(paths(wrongSchedule)).toEqual(['body.feeScheduleId']);
    const res = await assign(platform, { level: 'platform', feeScheduleId: platformSchedule });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ level: 'platform', targetEntityId: PLATFORM_ID, tenantId: null });
    // the tenant does not see the platform's assignment
    expectProblem(await h.as(tenantKey).get(`/v1/admin/fee-assignments/${res.body.data.id}`), 404);
    expect(ids(await h.as(platform).get('/v1/admin/fee-assignments?level=platform'))).toEqual([res.body.data.id]);
  });

  test('refusals: inactive schedule 409, overlap 409, invisible or missing targets 404 naming the field, validation', async () => {
    const draft = (await h.as(tenantKey).post('/v1/admin/fee-schedules', { name: 'Draft' })).body.data.id;
    const base = {
      level: 'merchant',
      targetEntityId: h.sandbox.merchantId,
      feeScheduleId: scheduleId,
      currency: 'EUR',
      paymentMethod: 'card',
    };
    expectProblem(
      await h.as(tenantKey).post('/v1/admin/fee-assignments', { ...base, feeScheduleId: draft, paymentMethod: 'wallet' }),
      409,
      'FEE_SCHEDULE_NOT_ACTIVE',
    );
    const overlap = await h.as(tenantKey).post('/v1/admin/fee-assignments', base);
    expectProblem(overlap, 409, 'FEE_ASSIGNMENT_OVERLAP');
    expect(overlap.body.instance).toBe(`/v1/admin/fee-assignments/${assignmentId}`);
    // another currency or method does not overlap
    expect((await h.as(tenantKey).post('/v1/admin/fee-assignments', { ...base, paymentMethod: 'wallet' })).status).toBe(201);
    for (const [level, target] of [
      ['merchant', other.merchantId],
      ['merchant', MISSING],
      ['tenant', other.tenantId],
      ['channel', MISSING],
      ['partner', MISSING],
    ]) {
      const res = await h.as(tenantKey).post('/v1/admin/fee-assignments', { ...base, level, targetEntityId: target });
      expectProblem(res, 404);
      expect(paths(res)).toEqual(['body.targetEntityId']);
    }
    const noSchedule = await h.as(tenantKey).post('/v1/admin/fee-assignments', { ...base, feeScheduleId: MISSING });
    expectProblem(noSchedule, 404);
    expect(paths(noSchedule)).toEqual(['body.feeScheduleId']);
    // another tenant's schedule is invisible
    const otherSchedule = await activeSchedule(other.secretKey, { name: 'Theirs' });
    expectProblem(await h.as(tenantKey).post('/v1/admin/fee-assignments', { ...base, feeScheduleId: otherSchedule }), 404);
    const noTarget = await h.as(tenantKey).post('/v1/admin/fee-assignments', { ...base, targetEntityId: undefined });
    expect(paths(noTarget)).toEqual(['body.targetEntityId']);
    const bad = await h.as(tenantKey).post('/v1/admin/fee-assignments', {
      level: 'store',
      targetEntityId: 'x',
      feeScheduleId: scheduleId,
      currency: 'EURO',
      paymentMethod: 'cheque',
      effectiveFrom: 'soon',
      extra: 1,
    });
    expectProblem(bad, 400);
    expect(paths(bad)).toEqual([
      'body.currency',
      'body.effectiveFrom',
      'body.extra',
      'body.level',
      'body.paymentMethod',
      'body.targetEntityId',
    ]);
    const backwards = await h.as(tenantKey).post('/v1/admin/fee-assignments', {
      ...base,
      paymentMethod: 'qr',
      effectiveFrom: '2026-06-01T00:00:00Z',
      effectiveTo: '2026-05-01T00:00:00Z',
    });
    expect(paths(backwards)).toEqual(['body.effectiveTo']);
    expectProblem(await h.as(tenantKey).get('/v1/admin/fee-assignments?status=gone&activeOnly=maybe'), 400);
    expectProblem(await h.as(merchantKey).get('/v1/admin/fee-assignments'), 403, 'LEVEL_NOT_ALLOWED');
    expectProblem(await h.as(merchantKey).post('/v1/admin/fee-assignments', base), 403);
    expectProblem(await h.as(merchantKey).post(`/v1/admin/fee-assignments/${assignmentId}/close`), 403);
    expectProblem(await h.as(other.secretKey).get(`/v1/admin/fee-assignments/${assignmentId}`), 404);
    expectProblem(await h.as(other.secretKey).post(`/v1/admin/fee-assignments/${assignmentId}/close`), 404);
  });

  test('close: open -> closed with effectiveTo now, 409 the second time; a successor may start then', async () => {
    h.clock.advance(60_000);
    const closed = await h.as(tenantKey).post(`/v1/admin/fee-assignments/${assignmentId}/close`);
    expect(closed.status).toBe(200);
    expect(closed.body.data).toMatchObject({ status: 'closed', effectiveTo: h.clock.now().toISOString() });
    expectProblem(await h.as(tenantKey).post(`/v1/admin/fee-assignments/${assignmentId}/close`), 409, 'INVALID_STATE_TRANSITION');
    const next = await h.as(tenantKey).post('/v1/admin/fee-assignments', {
      level: 'merchant',
      targetEntityId: h.sandbox.merchantId,
      feeScheduleId: scheduleId,
      currency: 'EUR',
      paymentMethod: 'card',
    });
    expect(next.status).toBe(201);
    const audit = await h.as(tenantKey).get(`/v1/audit-entries?targetId=${assignmentId}`);
    expect(audit.body.data[0]).toMatchObject({
      action: 'fee_assignment.closed',
      before: { status: 'open', effectiveTo: null },
      after: { status: 'closed' },
    });
  });

  test('list filters: level, targetEntityId, feeScheduleId, currency, paymentMethod, status, activeOnly', async () => {
    const future = await h.as(tenantKey).post('/v1/admin/fee-assignments', {
      level: 'channel',
      targetEntityId: channelId,
      feeScheduleId: scheduleId,
      currency: 'EUR',
      paymentMethod: 'bnpl',
      effectiveFrom: '2027-01-01T00:00:00Z',
    });
    expect(future.body.data.status).toBe('open');
    const q = async (query: string) => ids(await h.as(tenantKey).get(`/v1/admin/fee-assignments?limit=100&${query}`));
    const total = terminalsBuilt() ? 7 : 8;
    const all = await q('');
    expect(all.length).toBe(total);
    expect(await q('status=closed')).toEqual([assignmentId]);
    expect((await q('status=open')).length).toBe(total - 1);
    expect(await q('activeOnly=true')).not.toContain(future.body.data.id);
    expect(await q('activeOnly=true')).not.toContain(assignmentId);
    expect((await q('activeOnly=true')).length).toBe(total - 2);
    expect(await q('level=channel')).toHaveLength(2);
    expect(await q(`targetEntityId=${channelId}&paymentMethod=bnpl`)).toEqual([future.body.data.id]);
    expect(await q('paymentMethod=wallet')).toHaveLength(1);
    expect(await q(`feeScheduleId=${scheduleId}`)).toHaveLength(total);
    expect(await q('currency=USD')).toEqual([]);
    expect(await q(`level=merchant&targetEntityId=${h.sandbox.merchantId}&sortOrder=asc`)).toEqual(expect.arrayContaining([assignmentId]));
  });
});

describe(`fee resolution from the database (${dialectName})`, () => {
  // a tenant of its own, so the assignments above do not interfere
  let ctx: ReturnType<typeof operatorContext>;
  let tenantId: string;
  let merchantId: string;
  let key: string;

  beforeAll(async () => {
    const live = await createLiveTenantKey(h);
    tenantId = live.tenantId;
    key = live.secretKey;
    ctx = operatorContext(h.rt, { level: 'tenant', tenantId, livemode: true });
    const company = await createCompanyRecord(ctx, { name: 'Fees Co', country: 'DE' });
    merchantId = (await createMerchantRecord(ctx, { companyId: company.id, name: 'Fees merchant' })).id;
  });

  const tx = (at: Date, extra: Record<string, unknown> = {}) => ({
    type: 'payment' as const,
    outcome: 'successful' as const,
    amount: { currency: 'USD', valueMinor: 10_000 },
    method: 'card',
    merchantId,
    at,
    ...extra,
  });

  test('levels combine per party, archived schedules and closed assignments fall back, effective dates apply', async () => {
    const rule = (party: string, rate: number) => ({
      transactionType: 'payment',
      method: 'percentage',
      currency: 'USD',
      percentageRate: rate,
      party,
    });
    const tenantLevel = await activeSchedule(key, {
      name: 'T',
      rules: [rule('tenant', 20000), rule('provider', 10000)],
      rollingReserve: { rate: 100000 },
    });
    const merchantLevel = await activeSchedule(key, { name: 'M', rules: [rule('tenant', 15000)] });
    const assign = (body: Record<string, unknown>) =>
      h.as(key).post('/v1/admin/fee-assignments', { currency: 'USD', paymentMethod: 'card', ...body });
    const now = h.clock.now();
    expect((await assign({ level: 'tenant', targetEntityId: tenantId, feeScheduleId: tenantLevel })).status).toBe(201);
    // before any assignment took effect: nothing
    expect(await resolveFees(ctx, tx(new Date(now.getTime() - 1000)))).toMatchObject({ merchantFee: 0, net: 10_000, reserve: 0 });
    expect(await resolveFees(ctx, tx(now))).toMatchObject({ tenantFee: 200, providerFee: 100, merchantFee: 300, net: 9700, reserve: 970 });
    const m = await assign({
      level: 'merchant',
      targetEntityId: merchantId,
      feeScheduleId: merchantLevel,
      effectiveFrom: new Date(now.getTime() + 60_000).toISOString(),
    });
    expect(m.status).toBe(201);
    const later = new Date(now.getTime() + 120_000);
    // the merchant's tenant rule overrides the tenant's; the provider fee and the reserve still come from the tenant level
    const b = await resolveFees(ctx, tx(later));
    expect(b).toMatchObject({ tenantFee: 150, providerFee: 100, merchantFee: 250, net: 9750, reserve: 975 });
    expect(b.lines.map((l) => `${l.party}@${l.level}`)).toEqual(['provider@tenant', 'tenant@merchant']);
    // other currencies and methods are untouched
    expect(await resolveFees(ctx, tx(later, { method: 'wallet' }))).toMatchObject({ merchantFee: 0 });
    // a closed assignment stops applying after its effectiveTo, but still applies to transactions before it
    h.clock.set(new Date(now.getTime() + 180_000));
    await h.as(key).post(`/v1/admin/fee-assignments/${m.body.data.id}/close`);
    expect(await resolveFees(ctx, tx(new Date(now.getTime() + 200_000)))).toMatchObject({ tenantFee: 200 });
    expect(await resolveFees(ctx, tx(later))).toMatchObject({ tenantFee: 150 });
    // an archived schedule no longer applies
    await h.as(key).post(`/v1/admin/fee-schedules/${tenantLevel}/archive`);
    expect(await resolveFees(ctx, tx(later))).toMatchObject({ tenantFee: 150, providerFee: 0, reserve: 0 });
    // the merchant must be visible
    await expect(
      resolveFees(operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false }), tx(later)),
    ).rejects.toMatchObject({ status: 404 });
  });

  test("a schedule that states its reserve decides it at its level: a stated 0 waives the tenant's reserve", async () => {
    const eurRule = { transactionType: 'payment', method: 'percentage', currency: 'EUR', percentageRate: 10000, party: 'tenant' };
    const tenantLevel = await activeSchedule(key, { name: 'T-EUR', rules: [eurRule], rollingReserve: { rate: 50000 } });
    const inherits = await activeSchedule(key, { name: 'M-EUR inherits', rules: [eurRule] });
    const waives = await activeSchedule(key, { name: 'M-EUR waives', rules: [eurRule], rollingReserve: { rate: 0 } });
    const assign = (body: Record<string, unknown>) =>
      h.as(key).post('/v1/admin/fee-assignments', { currency: 'EUR', paymentMethod: 'card', ...body });
    const now = h.clock.now();
    expect((await assign({ level: 'tenant', targetEntityId: tenantId, feeScheduleId: tenantLevel })).status).toBe(201);
    const first = await assign({ level: 'merchant', targetEntityId: merchantId, feeScheduleId: inherits });
    expect(first.status).toBe(201);
    const eurTx = (at: Date) => ({ ...tx(at), amount: { currency: 'EUR', valueMinor: 10_000 } });
    // (other tests of this file may add fees at other levels: the reserve is 5% of whatever the net is, half up)
    const inherited = await resolveFees(ctx, eurTx(now));
    expect(inherited.tenantFee).toBe(100);
    expect(inherited.reserve).toBe(Math.floor((inherited.net * 50_000 + 500_000) / 1_000_000));
    expect(inherited.reserve).toBeGreaterThan(0);
    h.clock.set(new Date(now.getTime() + 1000));
    await h.as(key).post(`/v1/admin/fee-assignments/${first.body.data.id}/close`);
    expect(
      (
        await assign({
          level: 'merchant',
          targetEntityId: merchantId,
          feeScheduleId: waives,
          effectiveFrom: new Date(now.getTime() + 1000).toISOString(),
        })
      ).status,
    ).toBe(201);
    expect(await resolveFees(ctx, eurTx(new Date(now.getTime() + 2000)))).toMatchObject({
      tenantFee: 100,
      net: inherited.net,
      reserve: 0,
      reserveFrom: null,
    });
  });

  test("platform-level fees reach every tenant; the partner comes from the merchant's partner assignment", async () => {
    const platformSchedule = await activeSchedule(platform, {
      name: 'Platform USD',
      rules: [{ transactionType: 'payment', method: 'fixed', currency: 'USD', fixedAmount: usd(5), party: 'platform' }],
    });
    expect(
      (
        await h
          .as(platform)
          .post('/v1/admin/fee-assignments', { level: 'platform', feeScheduleId: platformSchedule, currency: 'USD', paymentMethod: 'card' })
      ).status,
    ).toBe(201);
    const partner = (await h.as(key).post('/v1/admin/partners', { name: 'P' })).body.data.id;
    await h.as(key).post('/v1/admin/partner-assignments', { partnerId: partner, merchantId, commissionRate: 0 });
    const partnerSchedule = await activeSchedule(key, {
      name: 'Partner',
      rules: [
        {
          transactionType: 'payment',
          method: 'fixed_plus_percentage',
          currency: 'USD',
          fixedAmount: usd(1),
          percentageRate: 5000,
          party: 'partner',
        },
      ],
    });
    expect(
      (
        await h.as(key).post('/v1/admin/fee-assignments', {
          level: 'partner',
          targetEntityId: partner,
          feeScheduleId: partnerSchedule,
          currency: 'USD',
          paymentMethod: 'card',
        })
      ).status,
    ).toBe(201);
    const b = await resolveFees(ctx, tx(h.clock.now()));
    expect(b).toMatchObject({ platformFee: 5, partnerCommission: 51, tenantFee: 0, merchantFee: 56, net: 9944 });
  });
});

describe(`fee review fixes (${dialectName})`, () => {
  test('a tenant schedule cannot set platform fees; dates out of range and huge amounts are 400', async () => {
    const res = await h.as(tenantKey).post('/v1/admin/fee-schedules', {
      name: 'Sneaky',
      rules: [
        {
          transactionType: 'payment',
          method: 'fixed',
          currency: 'EUR',
          fixedAmount: { currency: 'EUR', valueMinor: 0 },
          party: 'platform',
        },
      ],
    });
    expectProblem(res, 400, 'PLATFORM_FEE_NOT_ALLOWED');
    expect(res.body.errors[0].path).toBe('body.rules[0].party');
    const huge = await h.as(tenantKey).post('/v1/admin/fee-schedules', {
      name: 'Huge',
      rules: [
        {
          transactionType: 'payment',
          method: 'fixed',
          currency: 'EUR',
          fixedAmount: { currency: 'EUR', valueMinor: Number.MAX_SAFE_INTEGER },
        },
      ],
    });
    expectProblem(huge, 400);
    const early = await h.as(tenantKey).post('/v1/admin/fee-assignments', {
      level: 'tenant',
      targetEntityId: h.sandbox.tenantId,
      feeScheduleId: '00000000-0000-4000-8000-000000000000',
      currency: 'EUR',
      paymentMethod: 'card',
      effectiveFrom: '0000-06-01T00:00:00Z',
    });
    expectProblem(early, 400);
    expect(early.body.errors.map((e: { path: string }) => e.path)).toContain('body.effectiveFrom');
  });
});
