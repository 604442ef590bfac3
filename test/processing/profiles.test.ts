import { UniqueConstraintError } from 'sequelize';
import { useApiHarness, createLiveTenantKey, expectProblem } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { operatorContext } from '../../src/services/access/operators';
import { createCompanyRecord, createMerchantRecord } from '../../src/services/organization/records';

let platform: string;
let tenantKey: string;
let merchantKey: string;
/** a second merchant of the sandbox tenant (the profiles here are made for it, not for the sandbox merchant) */
let merchantId: string;
let third: string;
let other: { tenantId: string; secretKey: string; merchantId: string };

const BASE = '/v1/admin/integration-profiles';
const MISSING = '00000000-0000-4000-8000-000000000000';
const T0 = '2026-03-01T12:00:00.000Z';

const h = useApiHarness();
beforeAll(async () => {
  platform = h.sandbox.platformToken;
  tenantKey = h.sandbox.tenantKey.secretKey;
  merchantKey = h.sandbox.merchantKey.secretKey;
  const op = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
  merchantId = (await createMerchantRecord(op, { companyId: h.sandbox.companyId, name: 'Profiles merchant' })).id;
  third = (await createMerchantRecord(op, { companyId: h.sandbox.companyId, name: 'Raced merchant' })).id;
  const live = await createLiveTenantKey(h);
  const otherOp = operatorContext(h.rt, { level: 'tenant', tenantId: live.tenantId, livemode: true });
  const company = await createCompanyRecord(otherOp, { name: 'Other Co', country: 'FR' });
  const merchant = await createMerchantRecord(otherOp, { companyId: company.id, name: 'Other merchant' });
  other = { tenantId: live.tenantId, secretKey: live.secretKey, merchantId: merchant.id };
});

const paths = (res: { body: { errors?: { path: string }[] } }) => (res.body.errors ?? []).map((e) => e.path).sort();
const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((r) => r.id);
const auditOf = async (targetId: string) =>
  (
    await h.rt.db.models.AuditEntry.findAll({
      where: { targetId },
      order: [
        ['createdAt', 'ASC'],
        ['action', 'ASC'],
      ],
    })
  ).map((r) => r.get({ plain: true }));

describe(`integration profiles (${dialectName})`, () => {
  let profileId: string;

  test('a tenant creates a profile: defaults filled, audited', async () => {
    const res = await h.as(tenantKey).post(BASE, { merchantId, mode: 'checkout', sessionLifetime: 3600 });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(String),
      merchantId,
      tenantId: h.sandbox.tenantId,
      mode: 'checkout',
      status: 'enabled',
      returnUrl: null,
      sessionLifetime: 3600,
      maxDeclineAttempts: 3,
      cascadingEnabled: false,
      cascadePolicy: {},
      defaultLocale: null,
      createdAt: T0,
      updatedAt: T0,
      deletedAt: null,
    });
    profileId = res.body.data.id;
    expect((await h.as(tenantKey).get(`${BASE}/${profileId}`)).body.data).toEqual(res.body.data);
    const audit = await auditOf(profileId);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      action: 'integration_profile.created',
      targetType: 'integration_profile',
      tenantId: h.sandbox.tenantId,
      merchantId,
      before: null,
    });
    expect(audit[0].after).toEqual(res.body.data);
  });

  test('every field given at creation is kept', async () => {
    const body = {
      merchantId,
      mode: 'api',
      sessionLifetime: 86400,
      status: 'disabled',
      returnUrl: 'https://shop.example.com/return',
      maxDeclineAttempts: 10,
      cascadingEnabled: true,
      cascadePolicy: { onCodes: ['05', '51'], order: 'priority', nested: { retries: 2 } },
      defaultLocale: 'de-DE',
    };
    const res = await h.as(tenantKey).post(BASE, body);
    expect(res.status).toBe(201);
    const { merchantId: _m, ...rest } = body;
    expect(res.body.data).toMatchObject({ ...rest, merchantId, tenantId: h.sandbox.tenantId });
    expect((await h.as(tenantKey).get(`${BASE}/${res.body.data.id}`)).body.data).toEqual(res.body.data);
  });

  test('validation names each invalid field', async () => {
    const bad = await h.as(tenantKey).post(BASE, {
      merchantId: 'not-a-uuid',
      mode: 'kiosk',
      sessionLifetime: 59,
      returnUrl: 'http://shop.example.com',
      maxDeclineAttempts: 0,
      cascadingEnabled: 'yes',
      cascadePolicy: ['a'],
      defaultLocale: 'not a locale!',
      tenantId: h.sandbox.tenantId,
    });
    expectProblem(bad, 400, 'VALIDATION_FAILED');
    expect(paths(bad)).toEqual([
      'body.cascadePolicy',
      'body.cascadingEnabled',
      'body.defaultLocale',
      'body.maxDeclineAttempts',
      'body.merchantId',
      'body.mode',
      'body.returnUrl',
      'body.sessionLifetime',
      'body.tenantId',
    ]);
    const missing = await h.as(tenantKey).post(BASE, { merchantId });
    expectProblem(missing, 400);
    expect(paths(missing)).toEqual(['body.mode', 'body.sessionLifetime']);
    for (const [field, value] of [
      ['sessionLifetime', 86401],
      ['sessionLifetime', 600.5],
      ['maxDeclineAttempts', 11],
      ['cascadePolicy', { big: 'x'.repeat(9000) }],
      ['cascadePolicy', null],
    ] as const) {
      const res = await h.as(tenantKey).post(BASE, { merchantId: third, mode: 'hosted_page', sessionLifetime: 600, [field]: value });
      expectProblem(res, 400);
      expect(paths(res)).toEqual([`body.${field}`]);
    }
    const patch = await h
      .as(tenantKey)
      .patch(`${BASE}/${profileId}`, { mode: 'api', merchantId: third, sessionLifetime: 10, status: 'paused' });
    expectProblem(patch, 400);
    expect(paths(patch)).toEqual(['body.merchantId', 'body.mode', 'body.sessionLifetime', 'body.status']);
    expectProblem(await h.as(tenantKey).patch(`${BASE}/${profileId}`, {}), 400);
    expectProblem(await h.as(tenantKey).get(`${BASE}?mode=kiosk&limit=0`), 400);
  });

  test('one profile per merchant and mode: 409, also under a race', async () => {
    expectProblem(
      await h.as(tenantKey).post(BASE, { merchantId, mode: 'checkout', sessionLifetime: 60 }),
      409,
      'INTEGRATION_PROFILE_EXISTS',
    );
    const raced = await Promise.all(
      [1, 2, 3].map(() => h.as(tenantKey).post(BASE, { merchantId: third, mode: 'checkout', sessionLifetime: 900 })),
    );
    expect(raced.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    for (const r of raced.filter((x) => x.status === 409)) expectProblem(r, 409, 'INTEGRATION_PROFILE_EXISTS');
    const [winner] = ids(await h.as(tenantKey).get(`${BASE}?merchantId=${third}`));
    expect(winner).toBeDefined();
    // the unique index itself refuses a second live row for the pair, whatever the service checks first
    const row = (await h.rt.db.models.IntegrationProfile.findByPk(winner))!.get({ plain: true });
    await expect(h.rt.db.models.IntegrationProfile.create({ ...row, id: MISSING })).rejects.toBeInstanceOf(UniqueConstraintError);
  });

  test('a merchant the caller cannot see is 404 naming body.merchantId', async () => {
    for (const id of [other.merchantId, MISSING]) {
      const res = await h.as(tenantKey).post(BASE, { merchantId: id, mode: 'checkout', sessionLifetime: 600 });
      expectProblem(res, 404, 'RESOURCE_NOT_FOUND');
      expect(paths(res)).toEqual(['body.merchantId']);
    }
  });

  test('update: fields and status change, audited with before and after', async () => {
    h.clock.advance(1000);
    const res = await h.as(tenantKey).patch(`${BASE}/${profileId}`, {
      status: 'disabled',
      sessionLifetime: 1800,
      returnUrl: 'https://shop.example.com/done',
      cascadingEnabled: true,
      maxDeclineAttempts: 5,
      cascadePolicy: { mode: 'next_terminal' },
      defaultLocale: 'fr',
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: profileId,
      mode: 'checkout',
      merchantId,
      status: 'disabled',
      sessionLifetime: 1800,
      returnUrl: 'https://shop.example.com/done',
      cascadingEnabled: true,
      maxDeclineAttempts: 5,
      cascadePolicy: { mode: 'next_terminal' },
      defaultLocale: 'fr',
      createdAt: T0,
      updatedAt: '2026-03-01T12:00:01.000Z',
    });
    const cleared = await h.as(tenantKey).patch(`${BASE}/${profileId}`, { status: 'enabled', returnUrl: null, defaultLocale: null });
    expect(cleared.body.data).toMatchObject({ status: 'enabled', returnUrl: null, defaultLocale: null, sessionLifetime: 1800 });
    expect((await h.as(tenantKey).get(`${BASE}/${profileId}`)).body.data).toEqual(cleared.body.data);
    const audit = await auditOf(profileId);
    expect(audit.map((a) => a.action)).toEqual([
      'integration_profile.created',
      'integration_profile.updated',
      'integration_profile.updated',
    ]);
    expect(audit[1].before).toMatchObject({ status: 'enabled', sessionLifetime: 3600 });
    expect(audit[1].after).toMatchObject({ status: 'disabled', sessionLifetime: 1800 });
    // the audit trail is readable through the API too
    const listed = await h.as(tenantKey).get(`/v1/audit-entries?targetId=${profileId}`);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(3);
  });

  test('list: filters and pagination', async () => {
    const mine = await h.as(tenantKey).get(`${BASE}?merchantId=${merchantId}&sortOrder=asc`);
    expect(mine.status).toBe(200);
    expect(mine.body.data.map((p: { mode: string }) => p.mode)).toEqual(['checkout', 'api']);
    expect(mine.body.pagination).toMatchObject({ totalCount: 2, hasMore: false });
    expect(ids(await h.as(tenantKey).get(`${BASE}?merchantId=${merchantId}&mode=api`))).toHaveLength(1);
    const disabled = await h.as(tenantKey).get(`${BASE}?merchantId=${merchantId}&status=disabled`);
    expect(disabled.body.data.map((p: { mode: string }) => p.mode)).toEqual(['api']);
    const page1 = await h.as(tenantKey).get(`${BASE}?merchantId=${merchantId}&limit=1`);
    expect(page1.body.pagination.hasMore).toBe(true);
    const page2 = await h.as(tenantKey).get(`${BASE}?merchantId=${merchantId}&limit=1&cursor=${page1.body.pagination.nextCursor}`);
    expect([...ids(page1), ...ids(page2)].sort()).toEqual(ids(mine).sort());
  });

  test("the platform creates for any tenant's merchant (tenant from the merchant) and sees every tenant", async () => {
    const res = await h.as(platform).post(BASE, { merchantId: other.merchantId, mode: 'checkout', sessionLifetime: 300 });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ tenantId: other.tenantId, merchantId: other.merchantId });
    const otherId = res.body.data.id;
    const audit = await auditOf(otherId);
    expect(audit).toEqual([
      expect.objectContaining({ action: 'integration_profile.created', tenantId: other.tenantId, merchantId: other.merchantId }),
    ]);
    expect((await h.as(platform).get(`${BASE}/${profileId}`)).status).toBe(200);
    expect(ids(await h.as(platform).get(`${BASE}?tenantId=${other.tenantId}`))).toEqual([otherId]);
    expect(ids(await h.as(platform).get(`${BASE}?merchantId=${merchantId}`))).toHaveLength(2);
    const patched = await h.as(platform).patch(`${BASE}/${otherId}`, { maxDeclineAttempts: 1 });
    expect(patched.body.data).toMatchObject({ maxDeclineAttempts: 1, tenantId: other.tenantId });
    expect((await auditOf(otherId)).map((a) => a.tenantId)).toEqual([other.tenantId, other.tenantId]);

    // the other tenant sees its own, never the sandbox tenant's (404, not 403)
    expect(ids(await h.as(other.secretKey).get(BASE))).toEqual([otherId]);
    expectProblem(await h.as(other.secretKey).get(`${BASE}/${profileId}`), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await h.as(other.secretKey).patch(`${BASE}/${profileId}`, { status: 'disabled' }), 404);
    expectProblem(await h.as(tenantKey).get(`${BASE}/${otherId}`), 404);
    expectProblem(await h.as(tenantKey).patch(`${BASE}/${otherId}`, { status: 'disabled' }), 404);
    expectProblem(await h.as(tenantKey).get(`${BASE}/${MISSING}`), 404);
    expectProblem(await h.as(tenantKey).get(`${BASE}/not-a-uuid`), 404);
    // a filter naming another tenant is looked up like any id of a request: 404 naming it
    const filter = await h.as(tenantKey).get(`${BASE}?tenantId=${other.tenantId}`);
    expectProblem(filter, 404, 'RESOURCE_NOT_FOUND');
    expect(filter.body.errors.map((e: { path: string }) => e.path)).toEqual(['query.tenantId']);
  });

  test('a merchant key is refused every operation (levels T P): 403', async () => {
    expectProblem(await h.as(merchantKey).post(BASE, { merchantId: h.sandbox.merchantId, mode: 'checkout', sessionLifetime: 600 }), 403);
    expectProblem(await h.as(merchantKey).get(BASE), 403);
    expectProblem(await h.as(merchantKey).get(`${BASE}/${profileId}`), 403);
    expectProblem(await h.as(merchantKey).patch(`${BASE}/${profileId}`, { status: 'disabled' }), 403);
    expect((await h.as(tenantKey).get(`${BASE}/${profileId}`)).body.data.status).toBe('enabled');
  });

  test('the operations are in the OpenAPI document with the documented bounds', async () => {
    const doc = await h.as(platform).get('/v1/openapi.json');
    expect(doc.body.paths[BASE]).toHaveProperty('post');
    expect(doc.body.paths[`${BASE}/{id}`]).toHaveProperty('patch');
    expect(JSON.stringify(doc.body.components.schemas.CreateIntegrationProfileRequest)).toMatch(/86400/);
  });
});
