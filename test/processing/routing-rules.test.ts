import { UniqueConstraintError } from 'sequelize';
import { useApiHarness, createLiveTenantKey, expectProblem } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { operatorContext } from '../../src/services/access/operators';
import { createCompanyRecord, createMerchantRecord } from '../../src/services/organization/records';

// Routing rules over HTTP: every operation, the draft/active/archived moves (409 on illegal ones), versions and
// clones, validation naming the field, permissions and tenant isolation (404 across tenants), audit entries.

const CARD = '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e01';
const PAYOUT = '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e02';
const MISSING = '00000000-0000-4000-8000-000000000000';
const BASE = '/v1/admin/routing-rules';

let platform: string;
let tenantKey: string;
let merchantKey: string;
let other: { tenantId: string; secretKey: string; merchantId: string; terminalId: string };
let t1: string;
let t2: string;
let payoutTerminal: string;
let channelId: string;

const paths = (res: { body: { errors?: { path: string }[] } }) => (res.body.errors ?? []).map((e) => e.path).sort();
const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((r) => r.id);

async function created(res: { status: number; body: { data: { id: string } } }): Promise<string> {
  if (res.status !== 201) throw new Error(`expected 201, got ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data.id;
}

const terminalBody = (name: string, extra: Record<string, unknown> = {}) => ({
  providerIntegrationId: CARD,
  name,
  credentials: { merchantAccount: 'acct', apiKey: 'key' },
  supportedCurrencies: ['EUR'],
  ...extra,
});

const h = useApiHarness();
beforeAll(async () => {
  platform = h.sandbox.platformToken;
  tenantKey = h.sandbox.tenantKey.secretKey;
  merchantKey = h.sandbox.merchantKey.secretKey;
  t1 = await created(await h.as(tenantKey).post('/v1/admin/terminals', terminalBody('T1')));
  t2 = await created(await h.as(tenantKey).post('/v1/admin/terminals', terminalBody('T2', { supportedCurrencies: ['EUR', 'USD'] })));
  payoutTerminal = await created(
    await h.as(tenantKey).post('/v1/admin/terminals', {
      providerIntegrationId: PAYOUT,
      name: 'Payouts',
      credentials: { accountId: 'a', signingKey: 's' },
      supportedCurrencies: ['EUR'],
    }),
  );
  channelId = await created(await h.as(tenantKey).post('/v1/admin/channels', { name: 'Web', direction: 'payin', currencies: ['EUR'] }));
  const live = await createLiveTenantKey(h);
  const otherOp = operatorContext(h.rt, { level: 'tenant', tenantId: live.tenantId, livemode: true });
  const company = await createCompanyRecord(otherOp, { name: 'Other Co', country: 'FR' });
  const merchant = await createMerchantRecord(otherOp, { companyId: company.id, name: 'Other merchant' });
  const otherTerminal = await created(await h.as(live.secretKey).post('/v1/admin/terminals', terminalBody('Other T')));
  other = { tenantId: live.tenantId, secretKey: live.secretKey, merchantId: merchant.id, terminalId: otherTerminal };
});

const NO_CONDITIONS = {
  amount: null,
  currencies: null,
  paymentMethods: null,
  brands: null,
  cardCountries: null,
  merchantIds: null,
  channelIds: null,
};

describe(`routing rules (${dialectName})`, () => {
  let v1: string;
  let v2: string;
  let v3: string;

  test('a tenant creates a draft: version 1 of a new rule, defaults filled in; get returns the same record', async () => {
    const res = await h.as(tenantKey).post(BASE, {
      name: 'EU cards',
      description: 'big EUR card payments',
      priority: 10,
      conditions: {
        amount: { currency: 'EUR', min: 10_000 },
        currencies: ['EUR'],
        paymentMethods: ['card'],
        brands: ['visa', 'mastercard'],
        cardCountries: ['DE', 'FR'],
        merchantIds: [h.sandbox.merchantId],
        channelIds: [channelId],
      },
      outcome: { type: 'priority', terminals: [t2, t1] },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(String),
      ruleId: res.body.data.id,
      version: 1,
      tenantId: h.sandbox.tenantId,
      name: 'EU cards',
      description: 'big EUR card payments',
      status: 'draft',
      priority: 10,
      conditions: {
        amount: { currency: 'EUR', min: 10_000, max: null },
        currencies: ['EUR'],
        paymentMethods: ['card'],
        brands: ['visa', 'mastercard'],
        cardCountries: ['DE', 'FR'],
        merchantIds: [h.sandbox.merchantId],
        channelIds: [channelId],
      },
      outcome: { type: 'priority', terminals: [t2, t1] },
      createdBy: h.sandbox.tenantKey.id,
      createdAt: '2026-03-01T12:00:00.000Z',
      updatedAt: '2026-03-01T12:00:00.000Z',
      activatedAt: null,
      archivedAt: null,
      deletedAt: null,
    });
    v1 = res.body.data.id;
    expect((await h.as(tenantKey).get(`${BASE}/${v1}`)).body.data).toEqual(res.body.data);

    const minimal = await h.as(tenantKey).post(BASE, {
      name: 'Split',
      outcome: {
        type: 'split',
        splits: [
          { terminalId: t1, weight: 70 },
          { terminalId: t2, weight: 30 },
        ],
      },
    });
    expect(minimal.status).toBe(201);
    expect(minimal.body.data).toMatchObject({
      version: 1,
      priority: 100,
      description: null,
      conditions: NO_CONDITIONS,
      outcome: {
        type: 'split',
        splits: [
          { terminalId: t1, weight: 70 },
          { terminalId: t2, weight: 30 },
        ],
      },
    });

    const audit = await h.as(tenantKey).get(`/v1/audit-entries?action=routing_rule.created&targetId=${v1}`);
    expect(audit.body.data).toHaveLength(1);
    expect(audit.body.data[0].after).toMatchObject({ id: v1, status: 'draft' });
  });

  test('validation names the field: outcome, weights, amounts, codes, duplicates, and references outside the tenant', async () => {
    const post = (body: Record<string, unknown>) =>
      h.as(tenantKey).post(BASE, { name: 'R', outcome: { type: 'priority', terminals: [t1] }, ...body });
    expect(paths(await h.as(tenantKey).post(BASE, { name: 'R' }))).toEqual(['body.outcome']);
    expect(paths(await post({ name: ' ' }))).toEqual(['body.name']);
    expect(paths(await post({ outcome: { type: 'round_robin', terminals: [t1] } }))).toEqual(['body.outcome.type']);
    expect(paths(await post({ outcome: { type: 'priority', terminals: [] } }))).toEqual(['body.outcome.terminals']);
    expect(paths(await post({ outcome: { type: 'priority', terminals: [t1, t1] } }))).toEqual(['body.outcome.terminals[1]']);
    expect(
      paths(
        await post({
          outcome: {
            type: 'split',
            splits: [
              { terminalId: t1, weight: 0 },
              { terminalId: t2, weight: 1.5 },
            ],
          },
        }),
      ),
    ).toEqual(['body.outcome.splits[0].weight', 'body.outcome.splits[1].weight']);
    expect(paths(await post({ priority: -1 }))).toEqual(['body.priority']);
    expect(paths(await post({ conditions: { amount: { currency: 'EUR', min: 500, max: 100 } } }))).toEqual(['body.conditions.amount.max']);
    expect(paths(await post({ conditions: { amount: { currency: 'EUR' } } }))).toEqual(['body.conditions.amount.min']);
    expect(paths(await post({ conditions: { amount: { currency: 'EUR', min: 1.5 } } }))).toEqual(['body.conditions.amount.min']);
    expect(
      paths(await post({ conditions: { currencies: ['eur'], cardCountries: ['XX'], paymentMethods: ['cheque'], brands: ['VISA'] } })),
    ).toEqual([
      'body.conditions.brands[0]',
      'body.conditions.cardCountries[0]',
      'body.conditions.currencies[0]',
      'body.conditions.paymentMethods[0]',
    ]);
    expect(paths(await post({ conditions: { currencies: [] } }))).toEqual(['body.conditions.currencies']);
    expect(paths(await post({ conditions: { colour: 'red' } }))).toEqual(['body.conditions.colour']);

    // ids outside the caller's scope are refused before the service (src/services/references.ts), all at once
    const refs = await post({
      conditions: { merchantIds: [h.sandbox.merchantId, other.merchantId], channelIds: [MISSING] },
      outcome: { type: 'priority', terminals: [t1, other.terminalId, MISSING] },
    });
    expectProblem(refs, 400, 'VALIDATION_FAILED');
    expect(paths(refs)).toEqual([
      'body.conditions.channelIds[0]',
      'body.conditions.merchantIds[1]',
      'body.outcome.terminals[1]',
      'body.outcome.terminals[2]',
    ]);
    // a terminal of the tenant that cannot take payins: the service's refusal
    expect(paths(await post({ outcome: { type: 'priority', terminals: [t1, payoutTerminal] } }))).toEqual(['body.outcome.terminals[1]']);
    const split = await post({
      outcome: {
        type: 'split',
        splits: [
          { terminalId: t1, weight: 1 },
          { terminalId: other.terminalId, weight: 1 },
        ],
      },
    });
    expect(paths(split)).toEqual(['body.outcome.splits[1].terminalId']);

    // the platform names the tenant, and the references are checked against that tenant
    expect(paths(await h.as(platform).post(BASE, { name: 'R', outcome: { type: 'priority', terminals: [t1] } }))).toEqual([
      'body.tenantId',
    ]);
    expect(
      paths(await h.as(platform).post(BASE, { name: 'R', tenantId: other.tenantId, outcome: { type: 'priority', terminals: [t1] } })),
    ).toEqual(['body.outcome.terminals[0]']);
    const byPlatform = await h
      .as(platform)
      .post(BASE, { name: 'Platform-made', tenantId: h.sandbox.tenantId, outcome: { type: 'priority', terminals: [t1] } });
    expect(byPlatform.status).toBe(201);
    expect(byPlatform.body.data).toMatchObject({ tenantId: h.sandbox.tenantId, status: 'draft', version: 1 });
    await h.as(platform).delete(`${BASE}/${byPlatform.body.data.id}`).expect(200);
  });

  test('merchants hold no routing permission; another tenant sees none of these rules (404)', async () => {
    expectProblem(await h.as(merchantKey).get(BASE), 403);
    expectProblem(await h.as(merchantKey).post(BASE, { name: 'R', outcome: { type: 'priority', terminals: [t1] } }), 403);
    const o = h.as(other.secretKey);
    expectProblem(await o.get(`${BASE}/${v1}`), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await o.get(`${BASE}/${v1}/versions`), 404);
    expectProblem(await o.patch(`${BASE}/${v1}`, { name: 'mine' }), 404);
    expectProblem(await o.delete(`${BASE}/${v1}`), 404);
    expectProblem(await o.post(`${BASE}/${v1}/activate`), 404);
    expectProblem(await o.post(`${BASE}/${v1}/archive`), 404);
    expectProblem(await o.post(`${BASE}/${v1}/clone`), 404);
    expect((await o.get(BASE)).body.data).toEqual([]);
    expectProblem(await h.as(tenantKey).get(`${BASE}/${MISSING}`), 404);
    expectProblem(await h.as(tenantKey).get(`${BASE}/not-a-uuid`), 404);
    expect((await h.as(tenantKey).get(`${BASE}/${v1}`)).body.data.name).toBe('EU cards');
  });

  test('a draft is updated: conditions and outcome replace the whole value; empty bodies are refused', async () => {
    h.clock.advance(60_000);
    const res = await h.as(tenantKey).patch(`${BASE}/${v1}`, {
      name: 'EU cards v1',
      priority: 5,
      conditions: { currencies: ['EUR', 'USD'] },
      outcome: { type: 'priority', terminals: [t1, t2] },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      name: 'EU cards v1',
      description: 'big EUR card payments',
      priority: 5,
      status: 'draft',
      version: 1,
      conditions: { ...NO_CONDITIONS, currencies: ['EUR', 'USD'] },
      outcome: { type: 'priority', terminals: [t1, t2] },
      updatedAt: '2026-03-01T12:01:00.000Z',
      createdAt: '2026-03-01T12:00:00.000Z',
    });
    expect(paths(await h.as(tenantKey).patch(`${BASE}/${v1}`, {}))).toEqual(['body']);
    expect(paths(await h.as(tenantKey).patch(`${BASE}/${v1}`, { outcome: { type: 'priority', terminals: [payoutTerminal] } }))).toEqual([
      'body.outcome.terminals[0]',
    ]);
    expect(paths(await h.as(tenantKey).patch(`${BASE}/${v1}`, { version: 7 }))).toContain('body.version');
    const audit = await h.as(tenantKey).get(`/v1/audit-entries?action=routing_rule.updated&targetId=${v1}`);
    expect(audit.body.data).toHaveLength(1);
    expect(audit.body.data[0].before).toMatchObject({ name: 'EU cards' });
    expect(audit.body.data[0].after).toMatchObject({ name: 'EU cards v1' });
  });

  test('activate: draft -> active; an active version is neither updated, deleted nor activated again (409)', async () => {
    h.clock.advance(60_000);
    const res = await h.as(tenantKey).post(`${BASE}/${v1}/activate`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: v1, status: 'active', activatedAt: '2026-03-01T12:02:00.000Z', archivedAt: null });
    expectProblem(await h.as(tenantKey).patch(`${BASE}/${v1}`, { name: 'x' }), 409, 'ROUTING_RULE_NOT_DRAFT');
    expectProblem(await h.as(tenantKey).delete(`${BASE}/${v1}`), 409, 'ROUTING_RULE_NOT_DRAFT');
    expectProblem(await h.as(tenantKey).post(`${BASE}/${v1}/activate`), 409, 'INVALID_STATE_TRANSITION');
    expect((await h.as(tenantKey).get(`${BASE}/${v1}`)).body.data).toMatchObject({ name: 'EU cards v1', status: 'active' });
  });

  test('clone makes new draft versions of the same rule; activating one archives the active version; versions are listed', async () => {
    h.clock.advance(60_000);
    const c2 = await h.as(tenantKey).post(`${BASE}/${v1}/clone`);
    expect(c2.status).toBe(201);
    v2 = c2.body.data.id;
    expect(c2.body.data).toEqual({
      id: v2,
      ruleId: v1,
      version: 2,
      tenantId: h.sandbox.tenantId,
      name: 'EU cards v1',
      description: 'big EUR card payments',
      status: 'draft',
      priority: 5,
      conditions: { ...NO_CONDITIONS, currencies: ['EUR', 'USD'] },
      outcome: { type: 'priority', terminals: [t1, t2] },
      createdBy: h.sandbox.tenantKey.id,
      createdAt: '2026-03-01T12:03:00.000Z',
      updatedAt: '2026-03-01T12:03:00.000Z',
      activatedAt: null,
      archivedAt: null,
      deletedAt: null,
    });
    // the clone of a clone is still a version of the first rule
    v3 = await created(await h.as(tenantKey).post(`${BASE}/${v2}/clone`));
    expect((await h.as(tenantKey).get(`${BASE}/${v3}`)).body.data).toMatchObject({ ruleId: v1, version: 3, status: 'draft' });
    await h.as(tenantKey).patch(`${BASE}/${v2}`, { name: 'EU cards v2' }).expect(200);

    h.clock.advance(60_000);
    const act = await h.as(tenantKey).post(`${BASE}/${v2}/activate`);
    expect(act.body.data).toMatchObject({ id: v2, status: 'active', activatedAt: '2026-03-01T12:04:00.000Z' });
    expect((await h.as(tenantKey).get(`${BASE}/${v1}`)).body.data).toMatchObject({
      status: 'archived',
      archivedAt: '2026-03-01T12:04:00.000Z',
    });
    const archivedAudit = await h.as(tenantKey).get(`/v1/audit-entries?action=routing_rule.archived&targetId=${v1}`);
    expect(archivedAudit.body.data).toHaveLength(1);

    // versions of any version's rule, all three, newest first (the common list parameters apply)
    for (const id of [v1, v2, v3]) {
      const versions = await h.as(tenantKey).get(`${BASE}/${id}/versions`);
      expect(versions.status).toBe(200);
      expect(versions.body.data.map((r: { version: number; status: string }) => [r.version, r.status])).toEqual([
        [3, 'draft'],
        [2, 'active'],
        [1, 'archived'],
      ]);
      expect(versions.body.pagination).toEqual({ nextCursor: null, prevCursor: null, hasMore: false, totalCount: 3 });
    }
    const asc = await h.as(tenantKey).get(`${BASE}/${v1}/versions?sortOrder=asc&limit=2`);
    expect(ids(asc)).toEqual([v1, v2]);
    expect(asc.body.pagination).toMatchObject({ hasMore: true, nextCursor: v3, totalCount: 3 });

    // an archived version can be cloned, not activated or archived again
    expectProblem(await h.as(tenantKey).post(`${BASE}/${v1}/activate`), 409, 'INVALID_STATE_TRANSITION');
    expectProblem(await h.as(tenantKey).post(`${BASE}/${v1}/archive`), 409, 'INVALID_STATE_TRANSITION');
    expectProblem(await h.as(tenantKey).post(`${BASE}/${v3}/archive`), 409, 'INVALID_STATE_TRANSITION');
    expectProblem(await h.as(tenantKey).patch(`${BASE}/${v1}`, { name: 'x' }), 409, 'ROUTING_RULE_NOT_DRAFT');
    const fromArchived = await h.as(tenantKey).post(`${BASE}/${v1}/clone`);
    expect(fromArchived.body.data).toMatchObject({ ruleId: v1, version: 4, status: 'draft', name: 'EU cards v1' });
    const cloneAudit = await h.as(tenantKey).get(`/v1/audit-entries?action=routing_rule.cloned&targetId=${fromArchived.body.data.id}`);
    expect(cloneAudit.body.data[0].before).toMatchObject({ id: v1 });
    await h.as(tenantKey).delete(`${BASE}/${fromArchived.body.data.id}`).expect(200);
  });

  test('archive: active -> archived; a draft is deleted (soft) and disappears from reads and versions', async () => {
    h.clock.advance(60_000);
    const arch = await h.as(tenantKey).post(`${BASE}/${v2}/archive`);
    expect(arch.status).toBe(200);
    expect(arch.body.data).toMatchObject({ id: v2, status: 'archived', archivedAt: '2026-03-01T12:05:00.000Z' });
    expectProblem(await h.as(tenantKey).post(`${BASE}/${v2}/archive`), 409, 'INVALID_STATE_TRANSITION');

    const del = await h.as(tenantKey).delete(`${BASE}/${v3}`);
    expect(del.status).toBe(200);
    expect(del.body.data).toMatchObject({ id: v3, status: 'draft', deletedAt: '2026-03-01T12:05:00.000Z' });
    expectProblem(await h.as(tenantKey).get(`${BASE}/${v3}`), 404);
    expectProblem(await h.as(tenantKey).delete(`${BASE}/${v3}`), 404);
    expect(ids(await h.as(tenantKey).get(`${BASE}/${v1}/versions`))).toEqual([v2, v1]);
    const audit = await h.as(tenantKey).get(`/v1/audit-entries?action=routing_rule.deleted&targetId=${v3}`);
    expect(audit.body.data).toHaveLength(1);
  });

  test('lists filter by status, ruleId and name (contains, case-insensitive; % is literal); the platform sees every tenant', async () => {
    const pct = await created(await h.as(tenantKey).post(BASE, { name: '100% Visa', outcome: { type: 'priority', terminals: [t1] } }));
    const all = await h.as(tenantKey).get(`${BASE}?limit=100`);
    expect(all.status).toBe(200);
    expect(all.body.pagination.totalCount).toBe(4);
    expect(ids(await h.as(tenantKey).get(`${BASE}?status=archived`)).sort()).toEqual([v1, v2].sort());
    expect(ids(await h.as(tenantKey).get(`${BASE}?ruleId=${v1}`))).toEqual([v2, v1]);
    expect(ids(await h.as(tenantKey).get(`${BASE}?name=eu%20CARDS%20v2`))).toEqual([v2]);
    expect(ids(await h.as(tenantKey).get(`${BASE}?name=${encodeURIComponent('0%')}`))).toEqual([pct]);
    expect(ids(await h.as(tenantKey).get(`${BASE}?name=${encodeURIComponent('1_0')}`))).toEqual([]);
    expect(paths(await h.as(tenantKey).get(`${BASE}?status=live`))).toEqual(['query.status']);
    expect(paths(await h.as(tenantKey).get(`${BASE}?ruleId=abc`))).toEqual(['query.ruleId']);
    const otherRule = await created(
      await h.as(other.secretKey).post(BASE, { name: 'Other', outcome: { type: 'priority', terminals: [other.terminalId] } }),
    );
    expect((await h.as(platform).get(`${BASE}?limit=100`)).body.pagination.totalCount).toBe(5);
    expect(ids(await h.as(platform).get(`${BASE}?tenantId=${other.tenantId}`))).toEqual([otherRule]);
    expect((await h.as(platform).get(`${BASE}/${v1}/versions`)).body.pagination.totalCount).toBe(2);
  });

  test('one active version per rule: concurrent activations leave one, and the index refuses a second', async () => {
    const first = await created(await h.as(tenantKey).post(BASE, { name: 'Race', outcome: { type: 'priority', terminals: [t1] } }));
    const second = await created(await h.as(tenantKey).post(`${BASE}/${first}/clone`));
    const third = await created(await h.as(tenantKey).post(`${BASE}/${first}/clone`));
    const results = await Promise.all([second, third].map((id) => h.as(tenantKey).post(`${BASE}/${id}/activate`)));
    for (const res of results) expect([200, 409]).toContain(res.status);
    const versions = await h.as(tenantKey).get(`${BASE}/${first}/versions`);
    const active = versions.body.data.filter((r: { status: string }) => r.status === 'active');
    expect(active).toHaveLength(1);
    // the partial unique index itself: a second active version of the rule cannot be written
    await expect(h.rt.db.models.RoutingRule.update({ status: 'active' }, { where: { id: first } })).rejects.toBeInstanceOf(
      UniqueConstraintError,
    );
  });

  test('the nine operations are in the OpenAPI document, the outcome as a union of priority and split', async () => {
    const doc = await h.as(platform).get('/v1/openapi.json');
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.body.paths[BASE]).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.body.paths[`${BASE}/{id}`]).sort()).toEqual(['delete', 'get', 'patch']);
    for (const action of ['versions', 'activate', 'archive', 'clone']) expect(doc.body.paths[`${BASE}/{id}/${action}`]).toBeDefined();
    const outcome = JSON.stringify(doc.body.components.schemas.RoutingOutcomeInput);
    expect(outcome).toContain('split');
    expect(outcome).toContain('priority');
  });
});
