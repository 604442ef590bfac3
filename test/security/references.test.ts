import { useApiHarness } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { operatorContext } from '../../src/services/access/operators';
import { createTenant } from '../../src/services/tenants/tenants';
import { createApiKey } from '../../src/services/api-keys/keys';
import { operations } from '../../src/api/index';
import type { Operation } from '../../src/api/registry';
import { REFERENCE_KINDS, isIdLike, pathRecordOf, schemaFields } from '../../src/api/references';
import { REFERENCE_CATALOGS, REFERENCE_MODELS } from '../../src/services/references';
import { scoped } from '../../src/db/scoped';
import { createActiveUser } from '../../src/services/access/users';
import { SANDBOX_CARD_PROVIDER_ID, SANDBOX_PAYOUT_PROVIDER_ID } from '../../src/services/processing/providers';

// Issue 20 item 13, the instance found from outside: tenant B created and patched a terminal whose
// providerCostScheduleId was tenant A's fee schedule (201, 200). Every id of a body or query is now looked up in the
// caller's scope before the handler (src/services/references.ts): 404 naming the field. The terminals service also
// refuses a schedule of another tenant than the terminal's to a platform caller, who sees every tenant's.
// test/security/isolation.test.ts tries every declared id field of every operation the same way.

const CARD = '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e01';
let a: { key: string; schedule: string; terminal: string };
let b: { tenantId: string; key: string; schedule: string; terminal: string };

const terminalBody = (extra: Record<string, unknown> = {}) => ({
  providerIntegrationId: CARD,
  name: 'EU cards',
  credentials: { merchantAccount: 'acct', apiKey: 'key' },
  supportedCurrencies: ['EUR'],
  ...extra,
});
const paths = (res: { body: { errors?: { path: string }[] } }) => (res.body.errors ?? []).map((e) => e.path);

const h = useApiHarness();
beforeAll(async () => {
  const key = h.sandbox.tenantKey.secretKey;
  const schedule = (await h.as(key).post('/v1/admin/fee-schedules', { name: 'A costs' }).expect(201)).body.data.id as string;
  const terminal = (
    await h
      .as(key)
      .post('/v1/admin/terminals', terminalBody({ providerCostScheduleId: schedule }))
      .expect(201)
  ).body.data.id as string;
  a = { key, schedule, terminal };
  const tenant = await createTenant(operatorContext(h.rt, { level: 'platform', tenantId: null, livemode: false }), {
    name: 'Tenant B',
    livemode: false,
  });
  const bKey = (
    await createApiKey(operatorContext(h.rt, { level: 'tenant', tenantId: tenant.id, livemode: false }), { ownerType: 'tenant' })
  ).secretKey;
  const bSchedule = (await h.as(bKey).post('/v1/admin/fee-schedules', { name: 'B costs' }).expect(201)).body.data.id as string;
  const bTerminal = (await h.as(bKey).post('/v1/admin/terminals', terminalBody()).expect(201)).body.data.id as string;
  b = { tenantId: tenant.id, key: bKey, schedule: bSchedule, terminal: bTerminal };
}, 60_000);

describe(`ids of another tenant in bodies and queries (${dialectName})`, () => {
  test("tenant B cannot create a terminal with tenant A's fee schedule: 404 naming body.providerCostScheduleId", async () => {
    const before = await h.rt.db.models.Terminal.count();
    const res = await h.as(b.key).post('/v1/admin/terminals', terminalBody({ providerCostScheduleId: a.schedule }));
    expect([res.status, res.body.code, paths(res)]).toEqual([404, 'RESOURCE_NOT_FOUND', ['body.providerCostScheduleId']]);
    expect(res.body.errors[0].message).toBe('no such fee schedule');
    expect(await h.rt.db.models.Terminal.count()).toBe(before);
  });

  test("tenant B cannot patch its terminal to tenant A's fee schedule; its own schedule is taken", async () => {
    const res = await h.as(b.key).patch(`/v1/admin/terminals/${b.terminal}`, { providerCostScheduleId: a.schedule });
    expect([res.status, paths(res)]).toEqual([404, ['body.providerCostScheduleId']]);
    expect((await h.as(b.key).get(`/v1/admin/terminals/${b.terminal}`)).body.data.providerCostScheduleId).toBeNull();
    const own = await h.as(b.key).patch(`/v1/admin/terminals/${b.terminal}`, { providerCostScheduleId: b.schedule });
    expect([own.status, own.body.data.providerCostScheduleId]).toEqual([200, b.schedule]);
  });

  test("a platform caller, who sees both tenants, cannot give B's terminal A's schedule either (400 naming the field)", async () => {
    const platform = h.as(h.sandbox.platformToken);
    const created = await platform.post('/v1/admin/terminals', terminalBody({ tenantId: b.tenantId, providerCostScheduleId: a.schedule }));
    expect([created.status, paths(created)]).toEqual([400, ['body.providerCostScheduleId']]);
    const patched = await platform.patch(`/v1/admin/terminals/${b.terminal}`, { providerCostScheduleId: a.schedule });
    expect([patched.status, paths(patched)]).toEqual([400, ['body.providerCostScheduleId']]);
    expect((await h.as(b.key).get(`/v1/admin/terminals/${b.terminal}`)).body.data.providerCostScheduleId).toBe(b.schedule);
  });

  test('ids in arrays and in query filters are looked up too, each refusal naming its path', async () => {
    const rule = await h
      .as(b.key)
      .post('/v1/admin/routing-rules', { name: 'r', outcome: { type: 'priority', terminals: [b.terminal, a.terminal] } });
    // ids in the lists of a routing rule are refused 400 naming each item, as the routing service names them
    expect([rule.status, rule.body.code, paths(rule)]).toEqual([400, 'VALIDATION_FAILED', ['body.outcome.terminals[1]']]);
    const filter = await h.as(b.key).get(`/v1/admin/fee-assignments?feeScheduleId=${a.schedule}`);
    expect([filter.status, paths(filter)]).toEqual([404, ['query.feeScheduleId']]);
    expect((await h.as(b.key).get(`/v1/admin/fee-assignments?feeScheduleId=${b.schedule}`)).status).toBe(200);
  });

  test("a channel's provider integration is looked up as every reference is (the catalog): unknown ids are 404 naming the field", async () => {
    const unknown = '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9eff';
    const before = await h.rt.db.models.Channel.count();
    const created = await h
      .as(b.key)
      .post('/v1/admin/channels', { name: 'Cards', direction: 'payin', currencies: ['EUR'], providerIntegrationId: unknown });
    expect([created.status, paths(created)]).toEqual([404, ['body.providerIntegrationId']]);
    expect(created.body.errors[0].message).toBe('no such provider integration');
    expect(await h.rt.db.models.Channel.count()).toBe(before);
    const channel = await h
      .as(b.key)
      .post('/v1/admin/channels', { name: 'Cards', direction: 'payin', currencies: ['EUR'], providerIntegrationId: CARD });
    expect([channel.status, channel.body.data.providerIntegrationId]).toEqual([201, CARD]);
    const patched = await h.as(b.key).patch(`/v1/admin/channels/${channel.body.data.id}`, { providerIntegrationId: unknown });
    expect([patched.status, paths(patched)]).toEqual([404, ['body.providerIntegrationId']]);
    const platform = await h
      .as(h.sandbox.platformToken)
      .patch(`/v1/admin/channels/${channel.body.data.id}`, { providerIntegrationId: 'not-a-uuid-at-all-0000000000000000000' });
    expect(platform.status).toBe(400);
    expect(
      (await h.as(b.key).patch(`/v1/admin/channels/${channel.body.data.id}`, { providerIntegrationId: SANDBOX_PAYOUT_PROVIDER_ID })).status,
    ).toBe(200);
    expect((await h.as(b.key).get(`/v1/admin/channels/${channel.body.data.id}`)).body.data.providerIntegrationId).toBe(
      SANDBOX_PAYOUT_PROVIDER_ID,
    );
  });

  test('a platform caller never links records of two tenants, on create or update, whatever the operation (400 naming each field)', async () => {
    const platform = h.as(h.sandbox.platformToken);
    const expect400 = (res: { status: number; body: { code?: string; errors?: { path: string }[] } }, fields: string[]) =>
      expect([
        res.status,
        res.body.code,
        paths(res as never),
        (res.body.errors ?? []).every((e) => /of another tenant than/.test((e as { message?: string }).message ?? '')),
      ]).toEqual([400, 'VALIDATION_FAILED', fields, true]);
    // a partner of B assigned to a merchant of A
    const partnerB = (await h.as(b.key).post('/v1/admin/partners', { name: 'B partner' }).expect(201)).body.data.id as string;
    const before = await h.rt.db.models.PartnerAssignment.count();
    expect400(
      await platform.post('/v1/admin/partner-assignments', { partnerId: partnerB, merchantId: h.sandbox.merchantId, commissionRate: 0 }),
      ['body.merchantId'],
    );
    expect(await h.rt.db.models.PartnerAssignment.count()).toBe(before);
    // a fee assignment for tenant B of A's schedule, and of B's terminal with A's schedule
    expect400(
      await platform.post('/v1/admin/fee-assignments', {
        level: 'tenant',
        targetEntityId: b.tenantId,
        feeScheduleId: a.schedule,
        currency: 'EUR',
        paymentMethod: 'card',
      }),
      ['body.feeScheduleId'],
    );
    expect400(
      await platform.post('/v1/admin/fee-assignments', {
        level: 'terminal',
        targetEntityId: b.terminal,
        feeScheduleId: a.schedule,
        currency: 'EUR',
        paymentMethod: 'card',
      }),
      ['body.feeScheduleId'],
    );
    // a role of A given to a user of B (update, the path's record is B's)
    const roleA = (
      await h
        .as(a.key)
        .post('/v1/roles', { name: 'A viewers', permissions: ['payments:payments:view'] })
        .expect(201)
    ).body.data.id as string;
    const bCtx = operatorContext(h.rt, { level: 'tenant', tenantId: b.tenantId, livemode: false });
    const userB = await createActiveUser(bCtx, { layer: 'operator', email: 'b-op@example.com' });
    expect400(await platform.patch(`/v1/users/${userB.id}`, { roleIds: [roleA] }), ['body.roleIds[0]']);
    // routing rules and antifraud plans of B naming A's records
    const ruleB = (
      await h
        .as(b.key)
        .post('/v1/admin/routing-rules', { name: 'b', outcome: { type: 'priority', terminals: [b.terminal] } })
        .expect(201)
    ).body.data.id as string;
    const rule = await platform.patch(`/v1/admin/routing-rules/${ruleB}`, { outcome: { type: 'priority', terminals: [a.terminal] } });
    expect([rule.status, paths(rule)]).toEqual([400, ['body.outcome.terminals[0]']]);
    const created = await platform.post('/v1/admin/routing-rules', {
      tenantId: b.tenantId,
      name: 'x',
      outcome: { type: 'priority', terminals: [b.terminal, a.terminal] },
    });
    expect([created.status, paths(created)]).toEqual([400, ['body.outcome.terminals[1]']]);
    // the same requests naming one tenant's records pass the check (the service answers for the rest: B's schedule is a draft)
    const sameTenant = await platform.post('/v1/admin/fee-assignments', {
      level: 'tenant',
      targetEntityId: b.tenantId,
      feeScheduleId: b.schedule,
      currency: 'EUR',
      paymentMethod: 'card',
    });
    expect([sameTenant.status, sameTenant.body.code]).toEqual([409, 'FEE_SCHEDULE_NOT_ACTIVE']);
    expect(
      (
        await platform.post('/v1/admin/routing-rules', {
          tenantId: b.tenantId,
          name: 'y',
          outcome: { type: 'priority', terminals: [b.terminal] },
        })
      ).status,
    ).toBe(201);
    expect((await platform.patch(`/v1/users/${userB.id}`, { displayName: 'B operator' })).status).toBe(200);
  });

  test("ScopedAccess writes a row in the caller's own mode and tenant only: another mode or tenant is refused (create and update)", async () => {
    const test = operatorContext(h.rt, { level: 'tenant', tenantId: b.tenantId, livemode: false });
    const access = scoped(test, h.rt.db.models.ScoringRule);
    const values = {
      name: 'r',
      description: null,
      isActive: false,
      conditions: [],
      signal: 'velocity',
      scoreImpact: 10,
      priority: 1,
      createdBy: 'test',
    } as never;
    await expect(access.create({ ...(values as object), livemode: true } as never)).rejects.toThrow(/other mode/);
    await expect(access.create({ ...(values as object), tenantId: h.sandbox.tenantId } as never)).rejects.toThrow(
      /outside the caller's tenant/,
    );
    const platform = operatorContext(h.rt, { level: 'platform', tenantId: null, livemode: false });
    await expect(
      scoped(platform, h.rt.db.models.ScoringRule).create({ ...(values as object), tenantId: b.tenantId, livemode: true } as never),
    ).rejects.toThrow(/other mode/);
    const terminal = await scoped(platform, h.rt.db.models.Terminal).get(b.terminal);
    await expect(scoped(platform, h.rt.db.models.Terminal).update(terminal, { tenantId: h.sandbox.tenantId } as never)).rejects.toThrow(
      /another tenantId/,
    );
    const rule = await access.create(values);
    await expect(access.update(rule, { livemode: true } as never)).rejects.toThrow(/another livemode/);
    await expect(access.update(rule, { tenantId: h.sandbox.tenantId } as never)).rejects.toThrow(/another tenantId/);
    expect((await access.update(rule, { name: 'renamed' } as never)).name).toBe('renamed');
  });

  test("tenant A's terminal still names its own schedule", async () => {
    expect((await h.as(a.key).get(`/v1/admin/terminals/${a.terminal}`)).body.data.providerCostScheduleId).toBe(a.schedule);
  });
});

// The declarations themselves, generated from the registry: an id field of a request that is not declared fails here.
describe('every reference is declared and looked up by the one mechanism', () => {
  const ops = operations as Operation[];
  const fields = ops.flatMap((op) =>
    [...(op.query ? schemaFields(op.query, 'query') : []), ...(op.body && !op.upload ? schemaFields(op.body, 'body') : [])].map((f) => ({
      ...f,
      op,
    })),
  );

  test('every id-like field of every body and query declares the record it names (refersTo) or why it names none (notChecked)', () => {
    const undeclared = fields
      .filter((f) => isIdLike(f) && f.refersTo === undefined && f.notChecked === undefined)
      .map((f) => `${f.op.id} ${f.path}`);
    expect(undeclared).toEqual([]);
  });

  test("an operation on one record whose body names records declares that record (pathRecord): the references must be its tenant's", () => {
    const missing = ops
      .filter(
        (op) =>
          /\{id\}/.test(op.path) &&
          op.body &&
          !op.upload &&
          schemaFields(op.body, 'body').some((f) => f.refersTo !== undefined) &&
          !pathRecordOf(op.params),
      )
      .map((op) => `${op.id} ${op.method} ${op.path}`);
    expect(missing).toEqual([]);
  });

  test("every kind is looked up: a table read in the caller's scope, or a catalog (provider integrations)", () => {
    for (const kind of REFERENCE_KINDS) {
      expect([kind, REFERENCE_MODELS[kind] !== null || REFERENCE_CATALOGS[kind] !== undefined]).toEqual([kind, true]);
    }
    expect(REFERENCE_CATALOGS.providerIntegration!()).toEqual(
      expect.arrayContaining([SANDBOX_CARD_PROVIDER_ID, SANDBOX_PAYOUT_PROVIDER_ID]),
    );
  });
});
