import { useApiHarness, createLiveTenantKey, expectProblem } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { operatorContext } from '../../src/services/access/operators';
import { createTenant } from '../../src/services/tenants/tenants';
import { createApiKey } from '../../src/services/api-keys/keys';
import { createCompanyRecord, createMerchantRecord } from '../../src/services/organization/records';

// The Risk admin API over HTTP: the 23 operations of list groups and entries, scoring rules, antifraud plans and the
// risk configuration. Happy paths with the records answered, validation naming the field (never 500), 409s on state
// conflicts, owner-only plan deletion, levels (merchant keys refused, configuration tenant-only), isolation across
// tenants and modes (404), and the audit entry of every state change.

const LISTS = '/v1/admin/list-groups';
const RULES = '/v1/admin/scoring-rules';
const PLANS = '/v1/admin/antifraud-plans';
const CONFIG = '/v1/admin/risk-configuration';
const MISSING = '00000000-0000-4000-8000-000000000000';
const T0 = '2026-03-01T12:00:00.000Z';

let platform: string;
let platformLive: string;
let tenantKey: string;
let merchantKey: string;
/** a second test-mode tenant with its own key, merchant and risk records */
let other: { tenantId: string; secretKey: string; merchantId: string; groupId: string; ruleId: string; planId: string };
/** a live-mode tenant's key */
let live: { tenantId: string; secretKey: string };

type Res = { status: number; body: { data?: unknown; errors?: { path: string }[] } & Record<string, unknown> };
const paths = (res: Res) => (res.body.errors ?? []).map((e) => e.path).sort();
const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((r) => r.id);

/** 400 problem+json naming exactly these fields. */
function expectInvalid(res: Res, ...fields: string[]): void {
  expectProblem(res as never, 400, 'VALIDATION_FAILED');
  expect(paths(res)).toEqual([...fields].sort());
}

/**
 * 400 naming an unknown field of a PATCH body. When it is the only field, the registry's "provide at least one field"
 * check (on the body with the unknown key removed) names `body` too, as in every update schema of the project.
 */
function expectUnknownField(res: Res, field: string): void {
  expectProblem(res as never, 400, 'VALIDATION_FAILED');
  expect(paths(res)).toContain(field);
  expect(paths(res).every((p) => p === field || p === 'body')).toBe(true);
}

async function created(res: { status: number; body: { data: { id: string } } }): Promise<string> {
  if (res.status !== 201) throw new Error(`expected 201, got ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data.id;
}

/** The audit entries of one action on one target, as the tenant key reads them. */
async function audit(action: string, targetId: string, credential = tenantKey) {
  const res = await h.as(credential).get(`/v1/audit-entries?action=${action}&targetId=${targetId}`);
  expect(res.status).toBe(200);
  return res.body.data as {
    actor: { type: string; id: string };
    before: Record<string, unknown> | null;
    after: Record<string, unknown> | null;
    tenantId: string;
  }[];
}

/** Records are created a second apart, so that lists in creation order are deterministic. */
const tick = () => h.clock.advance(1000);
const now = () => h.clock.now().toISOString();

const group = (name: string, entryType: string, credential = tenantKey, extra: Record<string, unknown> = {}) => {
  tick();
  return h
    .as(credential)
    .post(LISTS, { name, entryType, ...extra })
    .then(created);
};

const rule = (name: string, extra: Record<string, unknown> = {}, credential = tenantKey) => {
  tick();
  return h
    .as(credential)
    .post(RULES, { name, conditions: [{ field: 'amount', operator: 'gte', value: '100' }], scoreImpact: 10, priority: 100, ...extra })
    .then(created);
};

const h = useApiHarness({ start: T0 });
beforeAll(async () => {
  platform = h.sandbox.platformToken;
  platformLive = (await h.rt.tokens.issue(h.sandbox.platformUserId, 3600, true)).token;
  tenantKey = h.sandbox.tenantKey.secretKey;
  merchantKey = h.sandbox.merchantKey.secretKey;

  const platformCtx = operatorContext(h.rt, { level: 'platform', tenantId: null, livemode: false });
  const tenant = await createTenant(platformCtx, { name: 'Other tenant', livemode: false });
  const op = operatorContext(h.rt, { level: 'tenant', tenantId: tenant.id, livemode: false });
  const key = await createApiKey(op, { name: 'Other tenant key', ownerType: 'tenant', livemode: false });
  const company = await createCompanyRecord(op, { name: 'Other Co', country: 'FR', livemode: false });
  const merchant = await createMerchantRecord(op, { companyId: company.id, name: 'Other merchant' });
  const groupId = await group('Other emails', 'email', key.secretKey);
  const ruleId = await rule('Other rule', {}, key.secretKey);
  const planId = await created(await h.as(key.secretKey).post(PLANS, { name: 'Other plan', ruleIds: [ruleId] }));
  other = { tenantId: tenant.id, secretKey: key.secretKey, merchantId: merchant.id, groupId, ruleId, planId };
  live = await createLiveTenantKey(h);
});

// ------------------------------------------------------------------------------------------------ list groups

describe(`list groups and entries (${dialectName})`, () => {
  const byType: Record<string, string> = {};

  test('a tenant creates a group of each entry type; get answers the same record; the creation is audited', async () => {
    for (const entryType of ['card_fingerprint', 'email', 'email_domain', 'ip', 'bin', 'country', 'customer_reference']) {
      tick();
      const res = await h.as(tenantKey).post(LISTS, { name: `Blocked ${entryType}`, description: `${entryType} block list`, entryType });
      expect(res.status).toBe(201);
      expect(res.body.data).toEqual({
        id: expect.any(String),
        tenantId: h.sandbox.tenantId,
        livemode: false,
        name: `Blocked ${entryType}`,
        description: `${entryType} block list`,
        entryType,
        entryCount: 0,
        createdBy: h.sandbox.tenantKey.id,
        createdAt: now(),
        updatedAt: now(),
        deletedAt: null,
      });
      byType[entryType] = res.body.data.id;
      const got = await h.as(tenantKey).get(`${LISTS}/${res.body.data.id}`);
      expect(got.status).toBe(200);
      expect(got.body.data).toEqual(res.body.data);
    }
    tick();
    const minimal = await h.as(tenantKey).post(LISTS, { name: 'No description', entryType: 'bin' });
    expect(minimal.status).toBe(201);
    expect(minimal.body.data).toMatchObject({ description: null, entryType: 'bin' });

    const entries = await audit('list_group.created', byType.email);
    expect(entries).toHaveLength(1);
    expect(entries[0].actor).toEqual({ type: 'api_key', id: h.sandbox.tenantKey.id, name: null });
    expect(entries[0].after).toMatchObject({ id: byType.email, entryType: 'email', entryCount: 0 });
  });

  test('create validation names the field: name, entryType, unknown fields; the platform must name the tenant', async () => {
    expectInvalid(await h.as(tenantKey).post(LISTS, { entryType: 'email' }), 'body.name');
    expectInvalid(await h.as(tenantKey).post(LISTS, { name: '  ', entryType: 'email' }), 'body.name');
    expectInvalid(await h.as(tenantKey).post(LISTS, { name: 'X', entryType: 'phone' }), 'body.entryType');
    expectInvalid(await h.as(tenantKey).post(LISTS, { name: 'X' }), 'body.entryType');
    expectInvalid(await h.as(tenantKey).post(LISTS, { name: 'X', entryType: 'email', colour: 'red' }), 'body.colour');
    expectInvalid(await h.as(tenantKey).post(LISTS, { name: 'X', entryType: 'email', description: 5 }), 'body.description');
    expectInvalid(await h.as(tenantKey).post(LISTS, { name: 'X', entryType: 'email', tenantId: 'nope' }), 'body.tenantId');
    expectInvalid(await h.as(platform).post(LISTS, { name: 'X', entryType: 'email' }), 'body.tenantId');
    expectProblem(await h.as(platform).post(LISTS, { name: 'X', entryType: 'email', tenantId: MISSING }), 404);

    const byPlatform = await h.as(platform).post(LISTS, { name: 'Platform list', entryType: 'country', tenantId: h.sandbox.tenantId });
    expect(byPlatform.status).toBe(201);
    expect(byPlatform.body.data).toMatchObject({ tenantId: h.sandbox.tenantId, livemode: false, createdBy: h.sandbox.platformUserId });
    // the tenant sees (and may delete) a group the platform made for it
    expect((await h.as(tenantKey).get(`${LISTS}/${byPlatform.body.data.id}`)).status).toBe(200);
    expect((await h.as(tenantKey).delete(`${LISTS}/${byPlatform.body.data.id}`)).status).toBe(200);
  });

  test('an Idempotency-Key replay answers the first group and creates no second one', async () => {
    const body = { name: 'Replayed', entryType: 'customer_reference' };
    const first = await h.as(tenantKey).post(LISTS, body).set('Idempotency-Key', 'risk-list-1');
    expect(first.status).toBe(201);
    const replay = await h.as(tenantKey).post(LISTS, body).set('Idempotency-Key', 'risk-list-1');
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.data.id).toBe(first.body.data.id);
    expectProblem(
      await h
        .as(tenantKey)
        .post(LISTS, { ...body, name: 'Else' })
        .set('Idempotency-Key', 'risk-list-1'),
      409,
      'IDEMPOTENCY_KEY_REUSED',
    );
    expect(await h.rt.db.models.ListGroup.count({ where: { name: 'Replayed' } })).toBe(1);
    await h.as(tenantKey).delete(`${LISTS}/${first.body.data.id}`).expect(200);
  });

  test('list: entryType filter, the pagination envelope and cursors; bad query parameters name the field', async () => {
    const all = await h.as(tenantKey).get(`${LISTS}?limit=100`);
    expect(all.status).toBe(200);
    expect(all.body.pagination).toEqual({ nextCursor: null, prevCursor: null, hasMore: false, totalCount: 8 });
    expect(ids(all)).toEqual(expect.arrayContaining(Object.values(byType)));
    expect(ids(all)).not.toContain(other.groupId);

    const emails = await h.as(tenantKey).get(`${LISTS}?entryType=email`);
    expect(ids(emails)).toEqual([byType.email]);
    expect(emails.body.pagination).toMatchObject({ totalCount: 1, hasMore: false });
    const bins = await h.as(tenantKey).get(`${LISTS}?entryType=bin`);
    expect(bins.body.data).toHaveLength(2);
    expect(bins.body.data.every((g: { entryType: string }) => g.entryType === 'bin')).toBe(true);

    const first = await h.as(tenantKey).get(`${LISTS}?limit=3&sortOrder=asc`);
    expect(first.body.data).toHaveLength(3);
    expect(first.body.pagination).toMatchObject({ hasMore: true, totalCount: 8, prevCursor: null, nextCursor: expect.any(String) });
    expect(first.body.data[0].id).toBe(byType.card_fingerprint);
    const second = await h.as(tenantKey).get(`${LISTS}?limit=3&sortOrder=asc&cursor=${first.body.pagination.nextCursor}`);
    expect(second.body.data).toHaveLength(3);
    expect(second.body.pagination.prevCursor).toBe(first.body.data[0].id);
    expect(ids(second).filter((id: string) => ids(first).includes(id))).toEqual([]);
    const third = await h.as(tenantKey).get(`${LISTS}?limit=3&sortOrder=asc&cursor=${second.body.pagination.nextCursor}`);
    expect(third.body.data).toHaveLength(2);
    expect(third.body.pagination).toMatchObject({ hasMore: false, nextCursor: null });
    expect(new Set([...ids(first), ...ids(second), ...ids(third)]).size).toBe(8);

    expectInvalid(await h.as(tenantKey).get(`${LISTS}?entryType=phone`), 'query.entryType');
    expectInvalid(await h.as(tenantKey).get(`${LISTS}?limit=0`), 'query.limit');
    expectInvalid(await h.as(tenantKey).get(`${LISTS}?limit=101`), 'query.limit');
    expectInvalid(await h.as(tenantKey).get(`${LISTS}?sortOrder=up`), 'query.sortOrder');

    // the platform sees every tenant of its mode, or one with tenantId
    const platformAll = await h.as(platform).get(`${LISTS}?limit=100`);
    expect(ids(platformAll)).toEqual(expect.arrayContaining([...Object.values(byType), other.groupId]));
    const platformOther = await h.as(platform).get(`${LISTS}?tenantId=${other.tenantId}`);
    expect(ids(platformOther)).toEqual([other.groupId]);
    expectInvalid(await h.as(platform).get(`${LISTS}?tenantId=nope`), 'query.tenantId');
  });

  test('update changes name and description (audited before/after); the entry type is not changeable', async () => {
    const createdAt = (await h.as(tenantKey).get(`${LISTS}/${byType.email}`)).body.data.createdAt;
    h.clock.advance(60_000);
    const res = await h.as(tenantKey).patch(`${LISTS}/${byType.email}`, { name: 'Fraudster emails', description: null });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: byType.email,
      name: 'Fraudster emails',
      description: null,
      entryType: 'email',
      createdAt,
      updatedAt: now(),
    });
    expect(res.body.data.updatedAt).not.toBe(createdAt);
    expect((await h.as(tenantKey).patch(`${LISTS}/${byType.email}`, { description: 'known fraud' })).body.data).toMatchObject({
      name: 'Fraudster emails',
      description: 'known fraud',
    });
    expect((await h.as(tenantKey).get(`${LISTS}/${byType.email}`)).body.data).toMatchObject({
      name: 'Fraudster emails',
      description: 'known fraud',
    });

    expectUnknownField(await h.as(tenantKey).patch(`${LISTS}/${byType.email}`, { entryType: 'ip' }), 'body.entryType');
    expectInvalid(await h.as(tenantKey).patch(`${LISTS}/${byType.email}`, { name: 'X', entryType: 'ip' }), 'body.entryType');
    expectInvalid(await h.as(tenantKey).patch(`${LISTS}/${byType.email}`, {}), 'body');
    expectInvalid(await h.as(tenantKey).patch(`${LISTS}/${byType.email}`, { name: '' }), 'body.name');
    expectProblem(await h.as(tenantKey).patch(`${LISTS}/${MISSING}`, { name: 'X' }), 404, 'RESOURCE_NOT_FOUND');
    expect((await h.as(tenantKey).get(`${LISTS}/${byType.email}`)).body.data.entryType).toBe('email');

    const entries = await audit('list_group.updated', byType.email);
    expect(entries).toHaveLength(2);
    const first = entries.find((e) => e.after?.name === 'Fraudster emails' && e.after?.description === null)!;
    expect(first.before).toMatchObject({ name: 'Blocked email', description: 'email block list' });
  });

  test('entries are normalized for their type: lower-case email and domain, upper-case country, canonical CIDR, IPv4-mapped IPv6 as IPv4', async () => {
    const add = async (type: string, value: string, note?: string) => {
      const res = await h.as(tenantKey).post(`${LISTS}/${byType[type]}/entries`, note === undefined ? { value } : { value, note });
      expect(res.status).toBe(201);
      return res.body.data as { id: string; value: string };
    };
    const email = await add('email', '  Fraud@Example.COM ', 'chargeback 2026-02');
    expect(email).toEqual({
      id: expect.any(String),
      listGroupId: byType.email,
      tenantId: h.sandbox.tenantId,
      livemode: false,
      entryType: 'email',
      value: 'fraud@example.com',
      note: 'chargeback 2026-02',
      createdBy: h.sandbox.tenantKey.id,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      deletedAt: null,
    });
    expect((await add('email_domain', '@Mailinator.COM')).value).toBe('mailinator.com');
    expect((await add('country', 'ru')).value).toBe('RU');
    expect((await add('ip', '203.0.113.7/24')).value).toBe('203.0.113.0/24');
    expect((await add('ip', '::ffff:198.51.100.9')).value).toBe('198.51.100.9');
    expect((await add('ip', '2001:DB8::1/32')).value).toBe('2001:db8::/32');
    expect((await add('ip', '192.0.2.1')).value).toBe('192.0.2.1');
    expect((await add('bin', '424242')).value).toBe('424242');
    expect((await add('card_fingerprint', 'fp_abc123')).value).toBe('fp_abc123');
    expect((await add('customer_reference', 'cust-42')).value).toBe('cust-42');

    expect((await h.as(tenantKey).get(`${LISTS}/${byType.ip}`)).body.data.entryCount).toBe(4);
    expect((await h.as(tenantKey).get(`${LISTS}/${byType.email}`)).body.data.entryCount).toBe(1);
    const row = await h.rt.db.models.ListEntry.findOne({ where: { listGroupId: byType.ip, value: '203.0.113.0/24' } });
    expect(row?.get('rangeStart')).toBe('00000000000000000000ffffcb007100');
    expect(row?.get('rangeEnd')).toBe('00000000000000000000ffffcb0071ff');

    const created = await audit('list_entry.created', email.id);
    expect(created).toHaveLength(1);
    expect(created[0].after).toMatchObject({ value: 'fraud@example.com', listGroupId: byType.email });
  });

  test("an invalid value of the group's type is 400 naming body.value; a duplicate (after normalization) is 409 LIST_ENTRY_EXISTS", async () => {
    const post = (type: string, body: Record<string, unknown>) => h.as(tenantKey).post(`${LISTS}/${byType[type]}/entries`, body);
    for (const [type, value] of [
      ['email', 'not-an-email'],
      ['email', 'a b@example.com'],
      ['email_domain', 'localhost'],
      ['ip', '203.0.113.300'],
      ['ip', '203.0.113.0/33'],
      ['ip', 'example.com'],
      ['bin', '4242'],
      ['bin', '42424242x'],
      ['country', 'XX'],
      ['country', 'DEU'],
    ]) {
      const res = await post(type, { value });
      expectInvalid(res, 'body.value');
    }
    expectInvalid(await post('email', {}), 'body.value');
    expectInvalid(await post('email', { value: '   ' }), 'body.value');
    expectInvalid(await post('email', { value: 'a@b.co', colour: 'red' }), 'body.colour');
    expectInvalid(await post('email', { value: 'a@b.co', note: 7 }), 'body.note');

    expectProblem(await post('email', { value: 'FRAUD@example.com' }), 409, 'LIST_ENTRY_EXISTS');
    expectProblem(await post('ip', { value: '203.0.113.200/24' }), 409, 'LIST_ENTRY_EXISTS');
    expectProblem(await post('ip', { value: '198.51.100.9' }), 409, 'LIST_ENTRY_EXISTS');
    expectProblem(await post('country', { value: 'RU' }), 409, 'LIST_ENTRY_EXISTS');
    expectProblem(await h.as(tenantKey).post(`${LISTS}/${MISSING}/entries`, { value: 'a@b.co' }), 404);
    expect((await h.as(tenantKey).get(`${LISTS}/${byType.email}`)).body.data.entryCount).toBe(1);

    // the same value added twice at once: one entry, the other request 409
    const both = await Promise.all([post('bin', { value: '511111' }), post('bin', { value: '511111' })]);
    expect(both.map((r) => r.status).sort()).toEqual([201, 409]);
    expectProblem(
      both.find((r) => r.status === 409)!,
      409,
      'LIST_ENTRY_EXISTS',
    );
    expect(await h.rt.db.models.ListEntry.count({ where: { listGroupId: byType.bin, value: '511111', deletedAt: null } })).toBe(1);
  });

  test('list entries: the envelope, a value filter normalized like entries, 400 naming query.value when it is not of the type', async () => {
    const base = `${LISTS}/${byType.ip}/entries`;
    const all = await h.as(tenantKey).get(base);
    expect(all.status).toBe(200);
    expect(all.body.data.map((e: { value: string }) => e.value).sort()).toEqual([
      '192.0.2.1',
      '198.51.100.9',
      '2001:db8::/32',
      '203.0.113.0/24',
    ]);
    expect(all.body.pagination).toEqual({ nextCursor: null, prevCursor: null, hasMore: false, totalCount: 4 });
    const page = await h.as(tenantKey).get(`${base}?limit=1`);
    expect(page.body.data).toHaveLength(1);
    expect(page.body.pagination).toMatchObject({ hasMore: true, totalCount: 4 });

    const found = await h.as(tenantKey).get(`${base}?value=${encodeURIComponent('203.0.113.99/24')}`);
    expect(found.body.data.map((e: { value: string }) => e.value)).toEqual(['203.0.113.0/24']);
    const email = await h.as(tenantKey).get(`${LISTS}/${byType.email}/entries?value=${encodeURIComponent('FRAUD@Example.com')}`);
    expect(email.body.data.map((e: { value: string }) => e.value)).toEqual(['fraud@example.com']);
    expect((await h.as(tenantKey).get(`${LISTS}/${byType.email}/entries?value=nobody%40example.com`)).body.data).toEqual([]);
    expectInvalid(await h.as(tenantKey).get(`${base}?value=nope`), 'query.value');
    expectInvalid(await h.as(tenantKey).get(`${base}?limit=abc`), 'query.limit');
    expectProblem(await h.as(tenantKey).get(`${LISTS}/${MISSING}/entries`), 404);
  });

  test('delete an entry: soft, audited, 404 when it belongs to another group or is gone; the value may be added again', async () => {
    const list = await h.as(tenantKey).get(`${LISTS}/${byType.country}/entries`);
    const entry = list.body.data[0] as { id: string; value: string };
    expectProblem(await h.as(tenantKey).delete(`${LISTS}/${byType.email}/entries/${entry.id}`), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await h.as(tenantKey).delete(`${LISTS}/${byType.country}/entries/${MISSING}`), 404);
    expectProblem(await h.as(tenantKey).delete(`${LISTS}/${byType.country}/entries/not-a-uuid`), 404);

    const res = await h.as(tenantKey).delete(`${LISTS}/${byType.country}/entries/${entry.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: entry.id, value: 'RU', deletedAt: expect.any(String) });
    expect((await h.as(tenantKey).get(`${LISTS}/${byType.country}/entries`)).body.data).toEqual([]);
    expect((await h.as(tenantKey).get(`${LISTS}/${byType.country}`)).body.data.entryCount).toBe(0);
    expect((await h.rt.db.models.ListEntry.findByPk(entry.id))?.get('deletedAt')).not.toBeNull();
    expectProblem(await h.as(tenantKey).delete(`${LISTS}/${byType.country}/entries/${entry.id}`), 404);

    const deleted = await audit('list_entry.deleted', entry.id);
    expect(deleted).toHaveLength(1);
    expect(deleted[0].before).toMatchObject({ value: 'RU', deletedAt: null });

    const again = await h.as(tenantKey).post(`${LISTS}/${byType.country}/entries`, { value: 'ru' });
    expect(again.status).toBe(201);
    expect(again.body.data.id).not.toBe(entry.id);
  });

  test('delete a group: soft, its entries cascade (rows deletedAt set), then 404 everywhere; a rule cannot name it', async () => {
    const id = byType.ip;
    const res = await h.as(tenantKey).delete(`${LISTS}/${id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id, entryCount: 0, deletedAt: expect.any(String) });

    expectProblem(await h.as(tenantKey).get(`${LISTS}/${id}`), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await h.as(tenantKey).get(`${LISTS}/${id}/entries`), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await h.as(tenantKey).post(`${LISTS}/${id}/entries`, { value: '10.0.0.1' }), 404);
    expectProblem(await h.as(tenantKey).patch(`${LISTS}/${id}`, { name: 'X' }), 404);
    expectProblem(await h.as(tenantKey).delete(`${LISTS}/${id}`), 404);
    expect(ids(await h.as(tenantKey).get(`${LISTS}?limit=100`))).not.toContain(id);

    const rows = await h.rt.db.models.ListEntry.findAll({ where: { listGroupId: id } });
    expect(rows).toHaveLength(4);
    for (const row of rows) expect(row.get('deletedAt')).not.toBeNull();
    expect((await h.rt.db.models.ListGroup.findByPk(id))?.get('deletedAt')).not.toBeNull();

    const entries = await audit('list_group.deleted', id);
    expect(entries).toHaveLength(1);
    expect(entries[0].before).toMatchObject({ id, entryCount: 4, deletedAt: null });
    expect(entries[0].after).toMatchObject({ id, entriesDeleted: 4 });

    const ruleRes = await h.as(tenantKey).post(RULES, {
      name: 'Blocked IPs',
      conditions: [{ field: 'ip', operator: 'in_list', value: id }],
      scoreImpact: 100,
      priority: 1,
    });
    expectInvalid(ruleRes, 'body.conditions[0].value');
  });

  test('ids that are not uuids, or unknown ones, are 404 (never 500)', async () => {
    for (const id of ['not-a-uuid', '1', MISSING]) {
      expectProblem(await h.as(tenantKey).get(`${LISTS}/${id}`), 404, 'RESOURCE_NOT_FOUND');
      expectProblem(await h.as(tenantKey).patch(`${LISTS}/${id}`, { name: 'X' }), 404);
      expectProblem(await h.as(tenantKey).delete(`${LISTS}/${id}`), 404);
      expectProblem(await h.as(tenantKey).get(`${LISTS}/${id}/entries`), 404);
      expectProblem(await h.as(tenantKey).post(`${LISTS}/${id}/entries`, { value: 'a@b.co' }), 404);
      expectProblem(await h.as(tenantKey).delete(`${LISTS}/${id}/entries/${MISSING}`), 404);
    }
  });
});

// ------------------------------------------------------------------------------------------------ scoring rules

describe(`scoring rules (${dialectName})`, () => {
  let countries: string;
  let emails: string;
  let bins: string;
  let main: string;

  beforeAll(async () => {
    countries = await group('Risky countries', 'country');
    emails = await group('Bad emails', 'email');
    bins = await group('Bad BINs', 'bin');
  });

  test('create with conditions of several fields and operators and count and sum aggregations; values normalized; get answers it', async () => {
    const res = await h.as(tenantKey).post(RULES, {
      name: 'Velocity and geography',
      description: 'many payments of one card from a risky country',
      conditions: [
        { field: 'amount', operator: 'gte', value: 10_000 },
        { field: 'currency', operator: 'in', value: 'eur, usd' },
        { field: 'country', operator: 'in_list', value: countries },
        { field: 'email', operator: 'contains', value: ' @Example.com ' },
        { field: 'brand', operator: 'neq', value: 'AMEX' },
        { field: 'ip', operator: 'eq', value: '::ffff:203.0.113.9' },
        {
          field: 'card_fingerprint',
          operator: 'gte',
          value: 3,
          aggregation: { metric: 'count', identifier: 'card_fingerprint' },
          statisticWindow: '10m',
        },
        {
          field: 'amount',
          operator: 'gt',
          value: '500000',
          aggregation: {
            metric: 'sum',
            identifier: 'email',
            period: { value: 1, unit: 'day' },
            scope: ['merchant', 'merchant'],
            currency: 'EUR',
          },
        },
      ],
      scoreImpact: 40,
      priority: 10,
      signal: 'review',
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(String),
      tenantId: h.sandbox.tenantId,
      livemode: false,
      name: 'Velocity and geography',
      description: 'many payments of one card from a risky country',
      isActive: true,
      signal: 'review',
      scoreImpact: 40,
      priority: 10,
      conditions: [
        { field: 'amount', operator: 'gte', value: '10000', aggregation: null, statisticWindow: null },
        { field: 'currency', operator: 'in', value: 'EUR,USD', aggregation: null, statisticWindow: null },
        { field: 'country', operator: 'in_list', value: countries, aggregation: null, statisticWindow: null },
        { field: 'email', operator: 'contains', value: '@example.com', aggregation: null, statisticWindow: null },
        { field: 'brand', operator: 'neq', value: 'amex', aggregation: null, statisticWindow: null },
        { field: 'ip', operator: 'eq', value: '203.0.113.9', aggregation: null, statisticWindow: null },
        {
          field: 'card_fingerprint',
          operator: 'gte',
          value: '3',
          statisticWindow: '10m',
          aggregation: {
            metric: 'count',
            period: { value: 10, unit: 'minute' },
            scope: ['tenant'],
            identifier: 'card_fingerprint',
            currency: null,
          },
        },
        {
          field: 'amount',
          operator: 'gt',
          value: '500000',
          statisticWindow: null,
          aggregation: { metric: 'sum', period: { value: 1, unit: 'day' }, scope: ['merchant'], identifier: 'email', currency: 'EUR' },
        },
      ],
      createdBy: h.sandbox.tenantKey.id,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      deletedAt: null,
    });
    main = res.body.data.id;
    const got = await h.as(tenantKey).get(`${RULES}/${main}`);
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual(res.body.data);

    const defaults = await h.as(tenantKey).post(RULES, {
      name: 'Blocked BINs',
      conditions: [{ field: 'bin', operator: 'in_list', value: bins }],
      scoreImpact: -5,
      priority: 0,
    });
    expect(defaults.status).toBe(201);
    expect(defaults.body.data).toMatchObject({ signal: 'allow', isActive: true, description: null, scoreImpact: -5, priority: 0 });

    for (const [window, period] of [
      ['1h', { value: 1, unit: 'hour' }],
      ['7d', { value: 7, unit: 'day' }],
      ['2w', { value: 2, unit: 'week' }],
    ] as const) {
      const r = await h.as(tenantKey).post(RULES, {
        name: `Window ${window}`,
        scoreImpact: 1,
        priority: 1,
        isActive: false,
        conditions: [
          { field: 'email', operator: 'gte', value: '3', aggregation: { metric: 'count', identifier: 'email' }, statisticWindow: window },
        ],
      });
      expect(r.status).toBe(201);
      expect(r.body.data.conditions[0].aggregation.period).toEqual(period);
    }

    const entries = await audit('scoring_rule.created', main);
    expect(entries).toHaveLength(1);
    expect(entries[0].after).toMatchObject({ id: main, signal: 'review', conditions: expect.any(Array) });
  });

  test("in_list must name a list group of the field's type, of the rule's tenant and mode (400 naming body.conditions[i].value)", async () => {
    const post = (conditions: object[]) => h.as(tenantKey).post(RULES, { name: 'R', conditions, scoreImpact: 1, priority: 1 });
    expectInvalid(
      await post([
        { field: 'amount', operator: 'gt', value: '1' },
        { field: 'email', operator: 'in_list', value: countries },
      ]),
      'body.conditions[1].value',
    );
    expectInvalid(await post([{ field: 'email', operator: 'in_list', value: other.groupId }]), 'body.conditions[0].value');
    expectInvalid(await post([{ field: 'email', operator: 'in_list', value: MISSING }]), 'body.conditions[0].value');
    expectInvalid(await post([{ field: 'email', operator: 'in_list', value: 'not-a-uuid' }]), 'body.conditions[0].value');
    expectInvalid(
      await post([
        { field: 'country', operator: 'in_list', value: emails },
        { field: 'email', operator: 'in_list', value: emails },
        { field: 'bin', operator: 'in_list', value: emails },
      ]),
      'body.conditions[0].value',
      'body.conditions[2].value',
    );
    // the platform names the tenant; groups are checked against that tenant
    const platformPost = (tenantId: string, value: string) =>
      h
        .as(platform)
        .post(RULES, { name: 'P', tenantId, conditions: [{ field: 'email', operator: 'in_list', value }], scoreImpact: 1, priority: 1 });
    expectInvalid(await platformPost(h.sandbox.tenantId, other.groupId), 'body.conditions[0].value');
    const ok = await platformPost(other.tenantId, other.groupId);
    expect(ok.status).toBe(201);
    expect(ok.body.data).toMatchObject({ tenantId: other.tenantId, createdBy: h.sandbox.platformUserId });
  });

  test('validation of fields, operators, values and aggregations names each offending path', async () => {
    const post = (body: Record<string, unknown>) =>
      h
        .as(tenantKey)
        .post(RULES, { name: 'R', conditions: [{ field: 'amount', operator: 'gt', value: '1' }], scoreImpact: 1, priority: 1, ...body });
    const cond = (c: Record<string, unknown>) => post({ conditions: [c] });
    expectInvalid(await cond({ field: 'email', operator: 'gt', value: 'a@b.co' }), 'body.conditions[0].operator');
    expectInvalid(await cond({ field: 'country', operator: 'contains', value: 'D' }), 'body.conditions[0].operator');
    expectInvalid(await cond({ field: 'amount', operator: 'in_list', value: bins }), 'body.conditions[0].operator');
    expectInvalid(await cond({ field: 'amount', operator: 'gt', value: 'lots' }), 'body.conditions[0].value');
    expectInvalid(await cond({ field: 'amount', operator: 'in', value: '100,abc' }), 'body.conditions[0].value');
    expectInvalid(await cond({ field: 'amount', operator: 'in', value: ',,' }), 'body.conditions[0].value');
    expectInvalid(await cond({ field: 'ip', operator: 'eq', value: '203.0.113.0/24' }), 'body.conditions[0].value');
    expectInvalid(await cond({ field: 'amount', operator: 'gt', value: 1.5 }), 'body.conditions[0].value');
    expectInvalid(await cond({ field: 'amount', operator: 'gt', value: '' }), 'body.conditions[0].value');
    expectInvalid(await cond({ field: 'phone', operator: 'eq', value: '1' }), 'body.conditions[0].field');
    expectInvalid(await cond({ field: 'amount', operator: 'between', value: '1' }), 'body.conditions[0].operator');
    expectInvalid(await cond({ field: 'amount', operator: 'gt' }), 'body.conditions[0].value');
    expectInvalid(await cond({ field: 'amount', operator: 'gt', value: '1', weight: 2 }), 'body.conditions[0].weight');

    const agg = (metric: string, extra: Record<string, unknown> = {}) => ({ metric, identifier: 'card_fingerprint', ...extra });
    expectInvalid(
      await cond({ field: 'email', operator: 'gt', value: '100', aggregation: agg('sum'), statisticWindow: '1d' }),
      'body.conditions[0].field',
    );
    expectInvalid(
      await cond({ field: 'amount', operator: 'in', value: '1', aggregation: agg('count'), statisticWindow: '1d' }),
      'body.conditions[0].operator',
    );
    expectInvalid(
      await cond({ field: 'amount', operator: 'gt', value: 'many', aggregation: agg('count'), statisticWindow: '1d' }),
      'body.conditions[0].value',
    );
    expectInvalid(
      await cond({ field: 'amount', operator: 'gt', value: '3', aggregation: agg('count') }),
      'body.conditions[0].aggregation.period',
    );
    expectInvalid(
      await cond({ field: 'amount', operator: 'gt', value: '3', aggregation: agg('count'), statisticWindow: '10s' }),
      'body.conditions[0].aggregation.period',
    );
    expectInvalid(
      await cond({ field: 'amount', operator: 'gt', value: '3', statisticWindow: 'soon' }),
      'body.conditions[0].statisticWindow',
    );
    expectInvalid(
      await cond({ field: 'amount', operator: 'gt', value: '3', aggregation: agg('avg'), statisticWindow: '1d' }),
      'body.conditions[0].aggregation.metric',
    );
    expectInvalid(
      await cond({
        field: 'amount',
        operator: 'gt',
        value: '3',
        aggregation: agg('count', { identifier: 'phone' }),
        statisticWindow: '1d',
      }),
      'body.conditions[0].aggregation.identifier',
    );
    expectInvalid(
      await cond({ field: 'amount', operator: 'gt', value: '3', aggregation: agg('count', { scope: ['world'] }), statisticWindow: '1d' }),
      'body.conditions[0].aggregation.scope[0]',
    );
    expectInvalid(
      await cond({ field: 'amount', operator: 'gt', value: '3', aggregation: agg('count', { period: { value: 0, unit: 'day' } }) }),
      'body.conditions[0].aggregation.period.value',
    );
    expectInvalid(
      await cond({ field: 'amount', operator: 'gt', value: '3', aggregation: agg('count', { period: { value: 1, unit: 'year' } }) }),
      'body.conditions[0].aggregation.period.unit',
    );
    expectInvalid(
      await cond({ field: 'amount', operator: 'gt', value: '3', aggregation: agg('sum', { currency: 'eur' }), statisticWindow: '1d' }),
      'body.conditions[0].aggregation.currency',
    );

    expectInvalid(await post({ conditions: [] }), 'body.conditions');
    expectInvalid(await post({ conditions: undefined }), 'body.conditions');
    expectInvalid(await post({ name: undefined }), 'body.name');
    expectInvalid(await post({ scoreImpact: 1.5 }), 'body.scoreImpact');
    expectInvalid(await post({ scoreImpact: undefined }), 'body.scoreImpact');
    expectInvalid(await post({ priority: -1 }), 'body.priority');
    expectInvalid(await post({ priority: undefined }), 'body.priority');
    expectInvalid(await post({ signal: 'panic' }), 'body.signal');
    expectInvalid(await post({ isActive: 'yes' }), 'body.isActive');
    expectInvalid(await post({ colour: 'red' }), 'body.colour');
    expectInvalid(
      await h
        .as(platform)
        .post(RULES, { name: 'R', conditions: [{ field: 'amount', operator: 'gt', value: '1' }], scoreImpact: 1, priority: 1 }),
      'body.tenantId',
    );
    // several bad conditions at once: every path
    expectInvalid(
      await post({
        conditions: [
          { field: 'email', operator: 'lt', value: 'x' },
          { field: 'amount', operator: 'gt', value: '1' },
          { field: 'amount', operator: 'eq', value: 'x' },
        ],
      }),
      'body.conditions[0].operator',
      'body.conditions[2].value',
    );
  });

  test('list with isActive and signal filters; bad filters name the query parameter', async () => {
    const blockId = await rule('Block big', { signal: 'block', priority: 5 });
    const inactiveId = await rule('Inactive challenge', { signal: 'challenge', isActive: false });
    const all = await h.as(tenantKey).get(`${RULES}?limit=100`);
    expect(all.status).toBe(200);
    expect(ids(all)).toEqual(expect.arrayContaining([main, blockId, inactiveId]));
    expect(ids(all)).not.toContain(other.ruleId);
    expect(all.body.pagination).toMatchObject({ hasMore: false, totalCount: all.body.data.length });

    const blocks = await h.as(tenantKey).get(`${RULES}?signal=block`);
    expect(ids(blocks)).toEqual([blockId]);
    const inactive = await h.as(tenantKey).get(`${RULES}?isActive=false`);
    expect(ids(inactive)).toContain(inactiveId);
    expect(inactive.body.data.every((r: { isActive: boolean }) => r.isActive === false)).toBe(true);
    const active = await h.as(tenantKey).get(`${RULES}?isActive=true&limit=100`);
    expect(ids(active)).toEqual(expect.arrayContaining([main, blockId]));
    expect(ids(active)).not.toContain(inactiveId);
    expect(ids(await h.as(tenantKey).get(`${RULES}?isActive=false&signal=challenge`))).toEqual([inactiveId]);
    expect((await h.as(tenantKey).get(`${RULES}?isActive=true&signal=challenge`)).body.data).toEqual([]);

    const page = await h.as(tenantKey).get(`${RULES}?limit=2&sortOrder=desc`);
    expect(page.body.data).toHaveLength(2);
    expect(page.body.data[0].id).toBe(inactiveId);
    expect(page.body.pagination).toMatchObject({ hasMore: true, nextCursor: expect.any(String) });

    expectInvalid(await h.as(tenantKey).get(`${RULES}?isActive=yes`), 'query.isActive');
    expectInvalid(await h.as(tenantKey).get(`${RULES}?signal=panic`), 'query.signal');
    expect(ids(await h.as(platform).get(`${RULES}?tenantId=${other.tenantId}&limit=100`))).toContain(other.ruleId);
    expect(ids(await h.as(platform).get(`${RULES}?tenantId=${other.tenantId}&limit=100`))).not.toContain(main);
  });

  test('update replaces the conditions as a whole and the fields given; validation as on create; audited before/after', async () => {
    h.clock.advance(60_000);
    const res = await h.as(tenantKey).patch(`${RULES}/${main}`, {
      name: 'Risky emails',
      conditions: [{ field: 'email', operator: 'in_list', value: emails }],
      scoreImpact: 70,
      signal: 'challenge',
      isActive: false,
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: main,
      name: 'Risky emails',
      description: 'many payments of one card from a risky country',
      scoreImpact: 70,
      priority: 10,
      signal: 'challenge',
      isActive: false,
      conditions: [{ field: 'email', operator: 'in_list', value: emails, aggregation: null, statisticWindow: null }],
    });
    expect(res.body.data.updatedAt).not.toBe(res.body.data.createdAt);
    expect((await h.as(tenantKey).get(`${RULES}/${main}`)).body.data).toEqual(res.body.data);
    expect((await h.as(tenantKey).patch(`${RULES}/${main}`, { priority: 3, isActive: true })).body.data).toMatchObject({
      priority: 3,
      isActive: true,
      conditions: res.body.data.conditions,
    });

    expectInvalid(await h.as(tenantKey).patch(`${RULES}/${main}`, {}), 'body');
    expectInvalid(await h.as(tenantKey).patch(`${RULES}/${main}`, { conditions: [] }), 'body.conditions');
    expectInvalid(
      await h.as(tenantKey).patch(`${RULES}/${main}`, { conditions: [{ field: 'email', operator: 'gt', value: '1' }] }),
      'body.conditions[0].operator',
    );
    expectInvalid(
      await h.as(tenantKey).patch(`${RULES}/${main}`, { conditions: [{ field: 'country', operator: 'in_list', value: emails }] }),
      'body.conditions[0].value',
    );
    expectInvalid(
      await h.as(tenantKey).patch(`${RULES}/${main}`, { conditions: [{ field: 'email', operator: 'in_list', value: other.groupId }] }),
      'body.conditions[0].value',
    );
    expectInvalid(await h.as(tenantKey).patch(`${RULES}/${main}`, { signal: 'panic' }), 'body.signal');
    expectUnknownField(await h.as(tenantKey).patch(`${RULES}/${main}`, { tenantId: other.tenantId }), 'body.tenantId');
    expect((await h.as(tenantKey).get(`${RULES}/${main}`)).body.data.conditions).toEqual(res.body.data.conditions);

    const entries = await audit('scoring_rule.updated', main);
    expect(entries).toHaveLength(2);
    const first = entries.find((e) => e.after?.name === 'Risky emails' && e.after?.priority === 10)!;
    expect(first.before).toMatchObject({ name: 'Velocity and geography', signal: 'review' });
    expect((first.before!.conditions as unknown[]).length).toBe(8);
  });

  test('delete is soft: 200 with deletedAt, then 404 on get, update and delete, and gone from the list; audited', async () => {
    const id = await rule('Doomed');
    const res = await h.as(tenantKey).delete(`${RULES}/${id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id, name: 'Doomed', deletedAt: expect.any(String) });
    expectProblem(await h.as(tenantKey).get(`${RULES}/${id}`), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await h.as(tenantKey).patch(`${RULES}/${id}`, { name: 'Back' }), 404);
    expectProblem(await h.as(tenantKey).delete(`${RULES}/${id}`), 404);
    expect(ids(await h.as(tenantKey).get(`${RULES}?limit=100`))).not.toContain(id);
    expect((await h.rt.db.models.ScoringRule.findByPk(id))?.get('deletedAt')).not.toBeNull();
    const entries = await audit('scoring_rule.deleted', id);
    expect(entries).toHaveLength(1);
    expect(entries[0].before).toMatchObject({ id, deletedAt: null });
    // a plan cannot list a deleted rule
    expectInvalid(await h.as(tenantKey).post(PLANS, { name: 'P', ruleIds: [id] }), 'body.ruleIds[0]');
  });

  test('ids that are not uuids, or unknown ones, are 404', async () => {
    for (const id of ['not-a-uuid', MISSING]) {
      expectProblem(await h.as(tenantKey).get(`${RULES}/${id}`), 404, 'RESOURCE_NOT_FOUND');
      expectProblem(await h.as(tenantKey).patch(`${RULES}/${id}`, { name: 'X' }), 404);
      expectProblem(await h.as(tenantKey).delete(`${RULES}/${id}`), 404);
    }
  });
});

// ------------------------------------------------------------------------------------------------ antifraud plans

describe(`antifraud plans (${dialectName})`, () => {
  let r1: string;
  let r2: string;
  let plan: string;

  beforeAll(async () => {
    r1 = await rule('Plan rule 1');
    r2 = await rule('Plan rule 2', { signal: 'block' });
  });

  test('create: disabled by default, thresholds null, owned by the tenant; enabled: true enables at once; get answers it; audited', async () => {
    const res = await h.as(tenantKey).post(PLANS, { name: 'Default plan', description: 'all merchants', ruleIds: [r1, r2, r1] });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(String),
      tenantId: h.sandbox.tenantId,
      livemode: false,
      merchantId: null,
      name: 'Default plan',
      description: 'all merchants',
      status: 'disabled',
      ruleIds: [r1, r2],
      thresholds: { challenge: null, review: null, decline: null },
      ownerLevel: 'tenant',
      createdBy: h.sandbox.tenantKey.id,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      deletedAt: null,
    });
    plan = res.body.data.id;
    expect((await h.as(tenantKey).get(`${PLANS}/${plan}`)).body.data).toEqual(res.body.data);

    const enabled = await h.as(tenantKey).post(PLANS, {
      name: 'Merchant plan',
      merchantId: h.sandbox.merchantId,
      ruleIds: [r2],
      thresholds: { challenge: 30, decline: 80 },
      enabled: true,
    });
    expect(enabled.status).toBe(201);
    expect(enabled.body.data).toMatchObject({
      status: 'enabled',
      merchantId: h.sandbox.merchantId,
      ruleIds: [r2],
      thresholds: { challenge: 30, review: null, decline: 80 },
      description: null,
    });
    const minimal = await h.as(tenantKey).post(PLANS, { name: 'Empty', enabled: false });
    expect(minimal.body.data).toMatchObject({ status: 'disabled', ruleIds: [] });

    const entries = await audit('antifraud_plan.created', plan);
    expect(entries).toHaveLength(1);
    expect(entries[0].after).toMatchObject({ id: plan, status: 'disabled', ruleIds: [r1, r2] });
  });

  test("references outside the plan's tenant and thresholds out of order are 400 naming the field", async () => {
    const post = (body: Record<string, unknown>) => h.as(tenantKey).post(PLANS, { name: 'P', ...body });
    expectInvalid(await post({ ruleIds: [other.ruleId] }), 'body.ruleIds[0]');
    expectInvalid(await post({ ruleIds: [r1, MISSING, other.ruleId] }), 'body.ruleIds[1]', 'body.ruleIds[2]');
    expectInvalid(await post({ ruleIds: ['not-a-uuid'] }), 'body.ruleIds[0]');
    expectInvalid(await post({ ruleIds: 'r1' }), 'body.ruleIds');
    expectInvalid(await post({ merchantId: other.merchantId }), 'body.merchantId');
    expectInvalid(await post({ merchantId: MISSING }), 'body.merchantId');
    expectInvalid(await post({ merchantId: 'm1' }), 'body.merchantId');
    expectInvalid(await post({ thresholds: { challenge: 90, decline: 80 } }), 'body.thresholds.challenge');
    expectInvalid(await post({ thresholds: { review: 90, decline: 80 } }), 'body.thresholds.review');
    expectInvalid(await post({ thresholds: { challenge: 0 } }), 'body.thresholds.challenge');
    expectInvalid(await post({ thresholds: { decline: 1.5 } }), 'body.thresholds.decline');
    expectInvalid(await post({ thresholds: { block: 10 } }), 'body.thresholds.block');
    expectInvalid(await post({ status: 'enabled' }), 'body.status');
    expectInvalid(await post({ enabled: 'yes' }), 'body.enabled');
    expectInvalid(await post({ name: undefined }), 'body.name');
    expectInvalid(await post({ ownerLevel: 'platform' }), 'body.ownerLevel');
    // challenge alone above the configuration's decline is the plan's own business: accepted
    expect((await post({ thresholds: { challenge: 500 } })).status).toBe(201);
    // the platform names the tenant; references are checked against it
    expectInvalid(await h.as(platform).post(PLANS, { name: 'P' }), 'body.tenantId');
    expectInvalid(
      await h.as(platform).post(PLANS, { name: 'P', tenantId: other.tenantId, ruleIds: [r1], merchantId: h.sandbox.merchantId }),
      'body.merchantId',
      'body.ruleIds[0]',
    );
  });

  test('enable and disable move the status (audited); a repeat is 409 INVALID_STATE_TRANSITION', async () => {
    expectProblem(await h.as(tenantKey).post(`${PLANS}/${plan}/disable`), 409, 'INVALID_STATE_TRANSITION');
    const on = await h.as(tenantKey).post(`${PLANS}/${plan}/enable`);
    expect(on.status).toBe(200);
    expect(on.body.data).toMatchObject({ id: plan, status: 'enabled' });
    expectProblem(await h.as(tenantKey).post(`${PLANS}/${plan}/enable`), 409, 'INVALID_STATE_TRANSITION');
    expect((await h.as(tenantKey).get(`${PLANS}/${plan}`)).body.data.status).toBe('enabled');
    const off = await h.as(tenantKey).post(`${PLANS}/${plan}/disable`);
    expect(off.status).toBe(200);
    expect(off.body.data.status).toBe('disabled');
    expectProblem(await h.as(tenantKey).post(`${PLANS}/${plan}/disable`), 409, 'INVALID_STATE_TRANSITION');
    expect((await h.as(tenantKey).post(`${PLANS}/${plan}/enable`)).status).toBe(200);

    expect((await audit('antifraud_plan.enabled', plan)).map((e) => [e.before, e.after])).toEqual([
      [{ status: 'disabled' }, { status: 'enabled' }],
      [{ status: 'disabled' }, { status: 'enabled' }],
    ]);
    expect(await audit('antifraud_plan.disabled', plan)).toHaveLength(1);
    for (const action of ['enable', 'disable']) {
      expectProblem(await h.as(tenantKey).post(`${PLANS}/${MISSING}/${action}`), 404);
      expectProblem(await h.as(tenantKey).post(`${PLANS}/not-a-uuid/${action}`), 404);
    }
  });

  test('update: fields given replace the stored ones (ruleIds and thresholds whole); checked against stored thresholds; audited', async () => {
    h.clock.advance(60_000);
    const res = await h.as(tenantKey).patch(`${PLANS}/${plan}`, {
      name: 'Main plan',
      merchantId: h.sandbox.merchantId,
      ruleIds: [r2],
      thresholds: { challenge: 20, review: 40, decline: 90 },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: plan,
      name: 'Main plan',
      description: 'all merchants',
      merchantId: h.sandbox.merchantId,
      status: 'enabled',
      ruleIds: [r2],
      thresholds: { challenge: 20, review: 40, decline: 90 },
      ownerLevel: 'tenant',
    });
    expect((await h.as(tenantKey).get(`${PLANS}/${plan}`)).body.data).toEqual(res.body.data);
    expectInvalid(
      await h.as(tenantKey).patch(`${PLANS}/${plan}`, { thresholds: { challenge: 95, review: 96, decline: 90 } }),
      'body.thresholds.challenge',
      'body.thresholds.review',
    );
    // thresholds replace the whole value: a challenge alone drops the stored review and decline
    expect((await h.as(tenantKey).patch(`${PLANS}/${plan}`, { thresholds: { challenge: 95 } })).body.data.thresholds).toEqual({
      challenge: 95,
      review: null,
      decline: null,
    });
    const cleared = await h.as(tenantKey).patch(`${PLANS}/${plan}`, { merchantId: null, thresholds: null, description: null });
    expect(cleared.body.data).toMatchObject({
      merchantId: null,
      description: null,
      thresholds: { challenge: null, review: null, decline: null },
      ruleIds: [r2],
    });

    expectInvalid(await h.as(tenantKey).patch(`${PLANS}/${plan}`, {}), 'body');
    expectInvalid(await h.as(tenantKey).patch(`${PLANS}/${plan}`, { ruleIds: [other.ruleId] }), 'body.ruleIds[0]');
    expectInvalid(await h.as(tenantKey).patch(`${PLANS}/${plan}`, { merchantId: other.merchantId }), 'body.merchantId');
    expectUnknownField(await h.as(tenantKey).patch(`${PLANS}/${plan}`, { status: 'disabled' }), 'body.status');
    expectUnknownField(await h.as(tenantKey).patch(`${PLANS}/${plan}`, { enabled: false }), 'body.enabled');
    expectProblem(await h.as(tenantKey).patch(`${PLANS}/${MISSING}`, { name: 'X' }), 404);

    const entries = await audit('antifraud_plan.updated', plan);
    expect(entries).toHaveLength(3);
    const first = entries.find((e) => e.before?.name === 'Default plan')!;
    expect(first.before).toMatchObject({ name: 'Default plan', ruleIds: [r1, r2], merchantId: null });
    expect(first.after).toMatchObject({
      name: 'Main plan',
      ruleIds: [r2],
      merchantId: h.sandbox.merchantId,
      thresholds: { challenge: 20, review: 40, decline: 90 },
    });
  });

  test('list with status and merchantId filters; bad filters name the query parameter', async () => {
    const all = await h.as(tenantKey).get(`${PLANS}?limit=100`);
    expect(all.status).toBe(200);
    expect(ids(all)).toContain(plan);
    expect(ids(all)).not.toContain(other.planId);
    expect(all.body.pagination).toMatchObject({ totalCount: all.body.data.length, hasMore: false });
    const enabled = await h.as(tenantKey).get(`${PLANS}?status=enabled&limit=100`);
    expect(enabled.body.data.length).toBeGreaterThanOrEqual(2);
    expect(enabled.body.data.every((p: { status: string }) => p.status === 'enabled')).toBe(true);
    const disabled = await h.as(tenantKey).get(`${PLANS}?status=disabled&limit=100`);
    expect(ids(disabled)).not.toContain(plan);
    const forMerchant = await h.as(tenantKey).get(`${PLANS}?merchantId=${h.sandbox.merchantId}`);
    expect(forMerchant.body.data.map((p: { name: string }) => p.name)).toEqual(['Merchant plan']);
    expectInvalid(await h.as(tenantKey).get(`${PLANS}?status=on`), 'query.status');
    expectInvalid(await h.as(tenantKey).get(`${PLANS}?merchantId=m1`), 'query.merchantId');
    expect(ids(await h.as(platform).get(`${PLANS}?tenantId=${other.tenantId}`))).toEqual([other.planId]);
  });

  test("a platform plan is the platform's: the tenant cannot change, disable or delete it (403 ANTIFRAUD_PLAN_NOT_OWNED); the platform can", async () => {
    const res = await h.as(platform).post(PLANS, { name: 'Platform plan', tenantId: h.sandbox.tenantId, ruleIds: [r1], enabled: true });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      tenantId: h.sandbox.tenantId,
      ownerLevel: 'platform',
      status: 'enabled',
      createdBy: h.sandbox.platformUserId,
    });
    const id = res.body.data.id;
    // the tenant sees and runs the plan, but neither empties, disables nor deletes it
    expect((await h.as(tenantKey).get(`${PLANS}/${id}`)).status).toBe(200);
    expectProblem(await h.as(tenantKey).patch(`${PLANS}/${id}`, { ruleIds: [] }), 403, 'ANTIFRAUD_PLAN_NOT_OWNED');
    expectProblem(await h.as(tenantKey).post(`${PLANS}/${id}/disable`), 403, 'ANTIFRAUD_PLAN_NOT_OWNED');
    expectProblem(await h.as(tenantKey).delete(`${PLANS}/${id}`), 403, 'ANTIFRAUD_PLAN_NOT_OWNED');
    expect((await h.as(tenantKey).get(`${PLANS}/${id}`)).body.data).toMatchObject({ deletedAt: null, status: 'enabled', ruleIds: [r1] });
    expect((await h.as(platform).post(`${PLANS}/${id}/disable`)).status).toBe(200);

    const deleted = await h.as(platform).delete(`${PLANS}/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toMatchObject({ id, ownerLevel: 'platform', deletedAt: expect.any(String) });
    expectProblem(await h.as(tenantKey).get(`${PLANS}/${id}`), 404);
    expectProblem(await h.as(platform).delete(`${PLANS}/${id}`), 404);
    const entries = await audit('antifraud_plan.deleted', id);
    expect(entries).toHaveLength(1);
    expect(entries[0].actor).toMatchObject({ id: h.sandbox.platformUserId });
  });

  test('delete is owner only: the platform cannot delete a tenant plan (403) and the tenant can; then 404 everywhere', async () => {
    expectProblem(await h.as(platform).delete(`${PLANS}/${plan}`), 403, 'ANTIFRAUD_PLAN_NOT_OWNED');
    expect((await h.as(tenantKey).get(`${PLANS}/${plan}`)).status).toBe(200);
    const deleted = await h.as(tenantKey).delete(`${PLANS}/${plan}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toMatchObject({ id: plan, deletedAt: expect.any(String) });
    expectProblem(await h.as(tenantKey).get(`${PLANS}/${plan}`), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await h.as(tenantKey).patch(`${PLANS}/${plan}`, { name: 'X' }), 404);
    expectProblem(await h.as(tenantKey).post(`${PLANS}/${plan}/disable`), 404);
    expectProblem(await h.as(tenantKey).delete(`${PLANS}/${plan}`), 404);
    expect(ids(await h.as(tenantKey).get(`${PLANS}?limit=100`))).not.toContain(plan);
    expect((await h.rt.db.models.AntifraudPlan.findByPk(plan))?.get('deletedAt')).not.toBeNull();
    expect(await audit('antifraud_plan.deleted', plan)).toHaveLength(1);
    for (const id of ['not-a-uuid', MISSING]) {
      expectProblem(await h.as(tenantKey).get(`${PLANS}/${id}`), 404);
      expectProblem(await h.as(tenantKey).delete(`${PLANS}/${id}`), 404);
    }
  });
});

// ------------------------------------------------------------------------------------------------ risk configuration

describe(`risk configuration (${dialectName})`, () => {
  const DEFAULTS = {
    tenantId: '',
    challengeScore: 50,
    reviewScore: null,
    declineScore: 100,
    enforcement: 'enforce',
    isDefault: true,
    updatedBy: null,
    createdAt: null,
    updatedAt: null,
  };

  test('GET answers the defaults while the tenant has set none', async () => {
    const res = await h.as(tenantKey).get(CONFIG);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ ...DEFAULTS, tenantId: h.sandbox.tenantId });
  });

  test('PUT creates then replaces; fields left out take the defaults; audited', async () => {
    const res = await h.as(tenantKey).put(CONFIG, { challengeScore: 30, reviewScore: 60, declineScore: 90, enforcement: 'monitor' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      tenantId: h.sandbox.tenantId,
      challengeScore: 30,
      reviewScore: 60,
      declineScore: 90,
      enforcement: 'monitor',
      isDefault: false,
      updatedBy: h.sandbox.tenantKey.id,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await h.as(tenantKey).get(CONFIG)).body.data).toEqual(res.body.data);

    const partial = await h.as(tenantKey).put(CONFIG, { declineScore: 70 });
    expect(partial.status).toBe(200);
    expect(partial.body.data).toMatchObject({
      challengeScore: 50,
      reviewScore: null,
      declineScore: 70,
      enforcement: 'enforce',
      isDefault: false,
    });
    expect(await h.rt.db.models.RiskConfiguration.count({ where: { tenantId: h.sandbox.tenantId, deletedAt: null } })).toBe(1);
    const empty = await h.as(tenantKey).put(CONFIG, {});
    expect(empty.body.data).toMatchObject({
      challengeScore: 50,
      reviewScore: null,
      declineScore: 100,
      enforcement: 'enforce',
      isDefault: false,
    });

    const entries = await audit(
      'risk_configuration.updated',
      (await h.rt.db.models.RiskConfiguration.findOne({ where: { tenantId: h.sandbox.tenantId, deletedAt: null } }))!.get('id') as string,
    );
    expect(entries).toHaveLength(3);
    const first = entries.find((e) => e.after?.enforcement === 'monitor')!;
    expect(first.before).toMatchObject({ isDefault: true, challengeScore: 50 });
    expect(first.after).toMatchObject({ isDefault: false, challengeScore: 30 });
  });

  test('validation names the field: challenge or review above decline, bad scores, bad enforcement, unknown fields', async () => {
    await h.as(tenantKey).put(CONFIG, { challengeScore: 40, declineScore: 80 }).expect(200);
    expectInvalid(await h.as(tenantKey).put(CONFIG, { challengeScore: 120, declineScore: 100 }), 'body.challengeScore');
    expectInvalid(await h.as(tenantKey).put(CONFIG, { challengeScore: 120 }), 'body.challengeScore');
    expectInvalid(await h.as(tenantKey).put(CONFIG, { declineScore: 40 }), 'body.challengeScore');
    expectInvalid(await h.as(tenantKey).put(CONFIG, { reviewScore: 150 }), 'body.reviewScore');
    expectInvalid(await h.as(tenantKey).put(CONFIG, { challengeScore: 120, reviewScore: 150 }), 'body.challengeScore', 'body.reviewScore');
    expectInvalid(await h.as(tenantKey).put(CONFIG, { challengeScore: 0 }), 'body.challengeScore');
    expectInvalid(await h.as(tenantKey).put(CONFIG, { declineScore: 1.5 }), 'body.declineScore');
    expectInvalid(await h.as(tenantKey).put(CONFIG, { declineScore: '100' }), 'body.declineScore');
    expectInvalid(await h.as(tenantKey).put(CONFIG, { enforcement: 'strict' }), 'body.enforcement');
    expectInvalid(await h.as(tenantKey).put(CONFIG, { isDefault: true }), 'body.isDefault');
    expectInvalid(await h.as(tenantKey).put(CONFIG, { tenantId: other.tenantId }), 'body.tenantId');
    // nothing changed
    expect((await h.as(tenantKey).get(CONFIG)).body.data).toMatchObject({ challengeScore: 40, declineScore: 80 });
  });

  test("the configuration is the tenant's own: another tenant still reads the defaults; two first PUTs at once make one row", async () => {
    expect((await h.as(other.secretKey).get(CONFIG)).body.data).toEqual({ ...DEFAULTS, tenantId: other.tenantId });
    const both = await Promise.all([
      h.as(other.secretKey).put(CONFIG, { challengeScore: 10 }),
      h.as(other.secretKey).put(CONFIG, { challengeScore: 10 }),
    ]);
    expect(both.map((r) => r.status)).toEqual([200, 200]);
    expect(await h.rt.db.models.RiskConfiguration.count({ where: { tenantId: other.tenantId, deletedAt: null } })).toBe(1);
    expect((await h.as(other.secretKey).get(CONFIG)).body.data).toMatchObject({ challengeScore: 10, isDefault: false });
    expect((await h.as(tenantKey).get(CONFIG)).body.data).toMatchObject({ challengeScore: 40, declineScore: 80 });
    await h.as(other.secretKey).delete(CONFIG).expect(200);
  });

  test('DELETE resets to the defaults (GET answers them again; audited); a second DELETE answers the defaults; PUT works again after', async () => {
    const row = await h.rt.db.models.RiskConfiguration.findOne({ where: { tenantId: h.sandbox.tenantId, deletedAt: null } });
    const res = await h.as(tenantKey).delete(CONFIG);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ ...DEFAULTS, tenantId: h.sandbox.tenantId });
    expect((await h.as(tenantKey).get(CONFIG)).body.data).toEqual({ ...DEFAULTS, tenantId: h.sandbox.tenantId });
    const entries = await audit('risk_configuration.reset', row!.get('id') as string);
    expect(entries).toHaveLength(1);
    expect(entries[0].before).toMatchObject({ isDefault: false, challengeScore: 40 });
    expect(entries[0].after).toMatchObject({ isDefault: true, challengeScore: 50 });

    expect((await h.as(tenantKey).delete(CONFIG)).body.data).toEqual({ ...DEFAULTS, tenantId: h.sandbox.tenantId });
    const again = await h.as(tenantKey).put(CONFIG, { challengeScore: 45 });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ challengeScore: 45, isDefault: false });
    await h.as(tenantKey).delete(CONFIG).expect(200);
  });

  test('tenant callers only: the platform and merchant keys are 403', async () => {
    for (const credential of [platform, merchantKey]) {
      expectProblem(await h.as(credential).get(CONFIG), 403, 'LEVEL_NOT_ALLOWED');
      expectProblem(await h.as(credential).put(CONFIG, { challengeScore: 10 }), 403, 'LEVEL_NOT_ALLOWED');
      expectProblem(await h.as(credential).delete(CONFIG), 403, 'LEVEL_NOT_ALLOWED');
    }
    expect((await h.as(tenantKey).get(CONFIG)).body.data.isDefault).toBe(true);
  });
});

// ------------------------------------------------------------------------------------------------ levels and isolation

describe(`levels and isolation (${dialectName})`, () => {
  let groupId: string;
  let entryId: string;
  let ruleId: string;
  let planId: string;

  beforeAll(async () => {
    groupId = await group('Isolated', 'email');
    entryId = await created(await h.as(tenantKey).post(`${LISTS}/${groupId}/entries`, { value: 'iso@example.com' }));
    ruleId = await rule('Isolated rule');
    planId = await created(await h.as(tenantKey).post(PLANS, { name: 'Isolated plan', ruleIds: [ruleId] }));
  });

  /** Every Risk operation, on the sandbox tenant's records, with a valid body. */
  const operations = (): [string, string, object?][] => [
    ['post', PLANS, { name: 'P' }],
    ['get', PLANS],
    ['get', `${PLANS}/${planId}`],
    ['patch', `${PLANS}/${planId}`, { name: 'P2' }],
    ['post', `${PLANS}/${planId}/enable`],
    ['post', `${PLANS}/${planId}/disable`],
    ['delete', `${PLANS}/${planId}`],
    ['post', RULES, { name: 'R', conditions: [{ field: 'amount', operator: 'gt', value: '1' }], scoreImpact: 1, priority: 1 }],
    ['get', RULES],
    ['get', `${RULES}/${ruleId}`],
    ['patch', `${RULES}/${ruleId}`, { name: 'R2' }],
    ['delete', `${RULES}/${ruleId}`],
    ['get', CONFIG],
    ['put', CONFIG, { challengeScore: 10 }],
    ['delete', CONFIG],
    ['post', LISTS, { name: 'L', entryType: 'email' }],
    ['get', LISTS],
    ['get', `${LISTS}/${groupId}`],
    ['patch', `${LISTS}/${groupId}`, { name: 'L2' }],
    ['delete', `${LISTS}/${groupId}`],
    ['post', `${LISTS}/${groupId}/entries`, { value: 'x@example.com' }],
    ['get', `${LISTS}/${groupId}/entries`],
    ['delete', `${LISTS}/${groupId}/entries/${entryId}`],
  ];

  const call = (credential: string, [method, path, body]: [string, string, object?]) => {
    const caller = h.as(credential) as unknown as Record<
      string,
      (p: string, b?: object) => Promise<Res & { headers: Record<string, string> }>
    >;
    return caller[method](path, body);
  };

  test('a merchant key is 403 on each of the 23 operations (levels T and P only) and changes nothing', async () => {
    expect(operations()).toHaveLength(23);
    for (const op of operations()) {
      const res = await call(merchantKey, op);
      expectProblem(res as never, 403, 'LEVEL_NOT_ALLOWED');
    }
    expect((await h.as(tenantKey).get(`${PLANS}/${planId}`)).body.data).toMatchObject({ name: 'Isolated plan', status: 'disabled' });
    expect((await h.as(tenantKey).get(`${RULES}/${ruleId}`)).body.data.name).toBe('Isolated rule');
    expect((await h.as(tenantKey).get(`${LISTS}/${groupId}`)).body.data).toMatchObject({ name: 'Isolated', entryCount: 1 });
    expect((await h.as(tenantKey).get(CONFIG)).body.data.isDefault).toBe(true);
  });

  test("another tenant, a live tenant and the platform in live mode get 404 on the sandbox tenant's records and do not list them", async () => {
    const byId = operations().filter(([, path]) => path.includes(planId) || path.includes(ruleId) || path.includes(groupId));
    expect(byId).toHaveLength(14);
    for (const credential of [other.secretKey, live.secretKey, platformLive]) {
      for (const op of byId) {
        const res = await call(credential, op);
        if (res.status !== 404) throw new Error(`${op[0]} ${op[1]}: expected 404, got ${res.status} ${JSON.stringify(res.body)}`);
        expectProblem(res as never, 404, 'RESOURCE_NOT_FOUND');
      }
      for (const list of [PLANS, RULES, LISTS]) {
        const res = await h.as(credential).get(`${list}?limit=100`);
        expect(res.status).toBe(200);
        for (const id of [planId, ruleId, groupId]) expect(ids(res)).not.toContain(id);
      }
    }
    // nothing of it changed
    expect((await h.as(tenantKey).get(`${PLANS}/${planId}`)).body.data).toMatchObject({
      name: 'Isolated plan',
      status: 'disabled',
      deletedAt: null,
    });
    expect((await h.as(tenantKey).get(`${RULES}/${ruleId}`)).body.data).toMatchObject({ name: 'Isolated rule', deletedAt: null });
    expect((await h.as(tenantKey).get(`${LISTS}/${groupId}`)).body.data).toMatchObject({ name: 'Isolated', entryCount: 1 });
    // the platform in test mode sees them
    expect((await h.as(platform).get(`${PLANS}/${planId}`)).status).toBe(200);
    expect((await h.as(platform).get(`${LISTS}/${groupId}/entries`)).body.data.map((e: { id: string }) => e.id)).toEqual([entryId]);
  });

  test("another tenant cannot reference the sandbox tenant's rules, groups or merchant; its own records stay its own", async () => {
    const o = h.as(other.secretKey);
    expectInvalid(await o.post(PLANS, { name: 'P', ruleIds: [ruleId] }), 'body.ruleIds[0]');
    expectInvalid(await o.post(PLANS, { name: 'P', merchantId: h.sandbox.merchantId }), 'body.merchantId');
    expectInvalid(await o.patch(`${PLANS}/${other.planId}`, { ruleIds: [other.ruleId, ruleId] }), 'body.ruleIds[1]');
    expectInvalid(
      await o.post(RULES, {
        name: 'R',
        conditions: [{ field: 'email', operator: 'in_list', value: groupId }],
        scoreImpact: 1,
        priority: 1,
      }),
      'body.conditions[0].value',
    );
    // a tenant key naming another tenant creates nothing there
    const res = await o.post(LISTS, { name: 'Sneaky', entryType: 'email', tenantId: h.sandbox.tenantId });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(await h.rt.db.models.ListGroup.count({ where: { name: 'Sneaky' } })).toBe(0);
    expect(ids(await o.get(`${PLANS}?limit=100`))).toEqual([other.planId]);
    expect(ids(await o.get(`${LISTS}?limit=100`))).toEqual([other.groupId]);
  });

  test('a live-mode tenant works in its own mode: its records are live and the sandbox ones stay invisible', async () => {
    const l = h.as(live.secretKey);
    const liveGroup = await l.post(LISTS, { name: 'Live list', entryType: 'ip' });
    expect(liveGroup.status).toBe(201);
    expect(liveGroup.body.data).toMatchObject({ tenantId: live.tenantId, livemode: true });
    const liveRule = await l.post(RULES, {
      name: 'Live',
      conditions: [{ field: 'ip', operator: 'in_list', value: liveGroup.body.data.id }],
      scoreImpact: 5,
      priority: 1,
    });
    expect(liveRule.status).toBe(201);
    expect(liveRule.body.data.livemode).toBe(true);
    // the platform in live mode sees the live records, the test-mode platform does not
    expect((await h.as(platformLive).get(`${LISTS}/${liveGroup.body.data.id}`)).status).toBe(200);
    expectProblem(await h.as(platform).get(`${LISTS}/${liveGroup.body.data.id}`), 404);
    expectProblem(await h.as(platform).get(`${RULES}/${liveRule.body.data.id}`), 404);
  });
});

// ------------------------------------------------------------------------------------------------ audit

describe(`audit (${dialectName})`, () => {
  test('every kind of Risk state change left entries with the caller as actor and the tenant as owner', async () => {
    const actions = [
      'list_group.created',
      'list_group.updated',
      'list_group.deleted',
      'list_entry.created',
      'list_entry.deleted',
      'scoring_rule.created',
      'scoring_rule.updated',
      'scoring_rule.deleted',
      'antifraud_plan.created',
      'antifraud_plan.updated',
      'antifraud_plan.enabled',
      'antifraud_plan.disabled',
      'antifraud_plan.deleted',
      'risk_configuration.updated',
      'risk_configuration.reset',
    ];
    for (const action of actions) {
      const res = await h.as(tenantKey).get(`/v1/audit-entries?action=${action}&limit=100`);
      expect(res.status).toBe(200);
      if (!res.body.data.length) throw new Error(`no audit entry ${action}`);
      for (const entry of res.body.data) {
        expect(entry).toMatchObject({
          action,
          tenantId: h.sandbox.tenantId,
          target: { type: action.split('.')[0], id: expect.any(String) },
        });
      }
      expect(res.body.data.some((e: { actor: { id: string } }) => e.actor.id === h.sandbox.tenantKey.id)).toBe(true);
    }
    // the other tenant reads none of the sandbox tenant's entries
    const others = await h.as(other.secretKey).get('/v1/audit-entries?action=list_group.created&limit=100');
    expect(others.body.data.every((e: { tenantId: string }) => e.tenantId === other.tenantId)).toBe(true);
  });
});
