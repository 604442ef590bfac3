import { createApiHarness, type ApiHarness } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { operatorContext } from '../../src/domain/authority';
import { createTenant } from '../../src/services/tenants/tenants';
import { createApiKey } from '../../src/services/api-keys/keys';

// Issue 20 item 13, the instance found from outside: tenant B created and patched a terminal whose
// providerCostScheduleId was tenant A's fee schedule (201, 200). Every id of a body or query is now looked up in the
// caller's scope before the handler (src/services/references.ts): 404 naming the field. The terminals service also
// refuses a schedule of another tenant than the terminal's to a platform caller, who sees every tenant's.
// test/security/isolation.test.ts tries every declared id field of every operation the same way.

const CARD = '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e01';
let h: ApiHarness;
let a: { key: string; schedule: string; terminal: string };
let b: { tenantId: string; key: string; schedule: string; terminal: string };

const terminalBody = (extra: Record<string, unknown> = {}) => ({
  providerIntegrationId: CARD, name: 'EU cards', credentials: { merchantAccount: 'acct', apiKey: 'key' }, supportedCurrencies: ['EUR'], ...extra,
});
const paths = (res: { body: { errors?: { path: string }[] } }) => (res.body.errors ?? []).map((e) => e.path);

beforeAll(async () => {
  h = await createApiHarness();
  const key = h.sandbox.tenantKey.secretKey;
  const schedule = (await h.as(key).post('/v1/admin/fee-schedules', { name: 'A costs' }).expect(201)).body.data.id as string;
  const terminal = (await h.as(key).post('/v1/admin/terminals', terminalBody({ providerCostScheduleId: schedule })).expect(201)).body.data.id as string;
  a = { key, schedule, terminal };
  const tenant = await createTenant(operatorContext(h.rt, { level: 'platform', tenantId: null, livemode: false }), { name: 'Tenant B', livemode: false });
  const bKey = (await createApiKey(operatorContext(h.rt, { level: 'tenant', tenantId: tenant.id, livemode: false }), { ownerType: 'tenant' })).secretKey;
  const bSchedule = (await h.as(bKey).post('/v1/admin/fee-schedules', { name: 'B costs' }).expect(201)).body.data.id as string;
  const bTerminal = (await h.as(bKey).post('/v1/admin/terminals', terminalBody()).expect(201)).body.data.id as string;
  b = { tenantId: tenant.id, key: bKey, schedule: bSchedule, terminal: bTerminal };
}, 60_000);
afterAll(() => h?.close());

describe(`ids of another tenant in bodies and queries (${dialectName})`, () => {
  test('tenant B cannot create a terminal with tenant A\'s fee schedule: 404 naming body.providerCostScheduleId', async () => {
    const before = await h.rt.db.models.Terminal.count();
    const res = await h.as(b.key).post('/v1/admin/terminals', terminalBody({ providerCostScheduleId: a.schedule }));
    expect([res.status, res.body.code, paths(res)]).toEqual([404, 'RESOURCE_NOT_FOUND', ['body.providerCostScheduleId']]);
    expect(res.body.errors[0].message).toBe('no such fee schedule');
    expect(await h.rt.db.models.Terminal.count()).toBe(before);
  });

  test('tenant B cannot patch its terminal to tenant A\'s fee schedule; its own schedule is taken', async () => {
    const res = await h.as(b.key).patch(`/v1/admin/terminals/${b.terminal}`, { providerCostScheduleId: a.schedule });
    expect([res.status, paths(res)]).toEqual([404, ['body.providerCostScheduleId']]);
    expect((await h.as(b.key).get(`/v1/admin/terminals/${b.terminal}`)).body.data.providerCostScheduleId).toBeNull();
    const own = await h.as(b.key).patch(`/v1/admin/terminals/${b.terminal}`, { providerCostScheduleId: b.schedule });
    expect([own.status, own.body.data.providerCostScheduleId]).toEqual([200, b.schedule]);
  });

  test('a platform caller, who sees both tenants, cannot give B\'s terminal A\'s schedule either (400 naming the field)', async () => {
    const platform = h.as(h.sandbox.platformToken);
    const created = await platform.post('/v1/admin/terminals', terminalBody({ tenantId: b.tenantId, providerCostScheduleId: a.schedule }));
    expect([created.status, paths(created)]).toEqual([400, ['body.providerCostScheduleId']]);
    const patched = await platform.patch(`/v1/admin/terminals/${b.terminal}`, { providerCostScheduleId: a.schedule });
    expect([patched.status, paths(patched)]).toEqual([400, ['body.providerCostScheduleId']]);
    expect((await h.as(b.key).get(`/v1/admin/terminals/${b.terminal}`)).body.data.providerCostScheduleId).toBe(b.schedule);
  });

  test('ids in arrays and in query filters are looked up too, each refusal naming its path', async () => {
    const rule = await h.as(b.key).post('/v1/admin/routing-rules', { name: 'r', outcome: { type: 'priority', terminals: [b.terminal, a.terminal] } });
    // ids in the lists of a routing rule are refused 400 naming each item, as the routing service names them
    expect([rule.status, rule.body.code, paths(rule)]).toEqual([400, 'VALIDATION_FAILED', ['body.outcome.terminals[1]']]);
    const filter = await h.as(b.key).get(`/v1/admin/fee-assignments?feeScheduleId=${a.schedule}`);
    expect([filter.status, paths(filter)]).toEqual([404, ['query.feeScheduleId']]);
    expect((await h.as(b.key).get(`/v1/admin/fee-assignments?feeScheduleId=${b.schedule}`)).status).toBe(200);
  });

  test('tenant A\'s terminal still names its own schedule', async () => {
    expect((await h.as(a.key).get(`/v1/admin/terminals/${a.terminal}`)).body.data.providerCostScheduleId).toBe(a.schedule);
  });
});
