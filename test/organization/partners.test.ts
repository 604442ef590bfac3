import { useApiHarness, createLiveTenantKey, expectProblem } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { operatorContext } from '../../src/services/access/operators';
import { createApiKey } from '../../src/services/api-keys/keys';
import { createCompanyRecord, createMerchantRecord } from '../../src/services/organization/records';

let platform: string;
let tenantKey: string;
let merchantKey: string;
let other: { tenantId: string; secretKey: string; merchantId: string };
/** a second merchant of the sandbox tenant with its own key */
let second: { merchantId: string; secretKey: string };

const MISSING = '00000000-0000-4000-8000-000000000000';

const h = useApiHarness();
beforeAll(async () => {
  platform = h.sandbox.platformToken;
  tenantKey = h.sandbox.tenantKey.secretKey;
  merchantKey = h.sandbox.merchantKey.secretKey;
  const live = await createLiveTenantKey(h);
  const otherOp = operatorContext(h.rt, { level: 'tenant', tenantId: live.tenantId, livemode: true });
  const company = await createCompanyRecord(otherOp, { name: 'Other Co', country: 'FR' });
  const merchant = await createMerchantRecord(otherOp, { companyId: company.id, name: 'Other merchant' });
  other = { tenantId: live.tenantId, secretKey: live.secretKey, merchantId: merchant.id };
  const op = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
  const m2 = await createMerchantRecord(op, { companyId: h.sandbox.companyId, name: 'Second merchant' });
  const key = await createApiKey(op, { ownerType: 'merchant', merchantId: m2.id, livemode: false });
  second = { merchantId: m2.id, secretKey: key.secretKey };
});

const paths = (res: { body: { errors?: { path: string }[] } }) => (res.body.errors ?? []).map((e) => e.path).sort();
const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((r) => r.id);

describe(`partners (${dialectName})`, () => {
  let partnerId: string;

  test('a tenant creates, reads, lists and updates a partner', async () => {
    const res = await h
      .as(tenantKey)
      .post('/v1/admin/partners', { name: 'Referral Co', contactEmail: 'ref@example.com', metadata: { region: 'EU' } });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(String),
      tenantId: h.sandbox.tenantId,
      name: 'Referral Co',
      contactEmail: 'ref@example.com',
      status: 'active',
      metadata: { region: 'EU' },
      createdAt: '2026-03-01T12:00:00.000Z',
      updatedAt: '2026-03-01T12:00:00.000Z',
      deletedAt: null,
    });
    partnerId = res.body.data.id;
    expect((await h.as(tenantKey).get(`/v1/admin/partners/${partnerId}`)).body.data).toEqual(res.body.data);
    h.clock.advance(1000);
    const updated = await h
      .as(tenantKey)
      .patch(`/v1/admin/partners/${partnerId}`, { name: 'Referral Company', contactEmail: null, metadata: { tier: 'gold' } });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({
      name: 'Referral Company',
      contactEmail: null,
      metadata: { tier: 'gold' },
      updatedAt: '2026-03-01T12:00:01.000Z',
    });
    const list = await h.as(tenantKey).get('/v1/admin/partners');
    expect(list.status).toBe(200);
    expect(ids(list)).toEqual([partnerId]);
    expect(list.body.pagination).toMatchObject({ totalCount: 1, hasMore: false });
  });

  test("the platform creates partners for a named tenant and sees every tenant's", async () => {
    expectProblem(await h.as(platform).post('/v1/admin/partners', { name: 'No tenant' }), 400);
    const noTenant = await h.as(platform).post('/v1/admin/partners', { name: 'No tenant' });
    expect(paths(noTenant)).toEqual(['body.tenantId']);
    expectProblem(await h.as(platform).post('/v1/admin/partners', { name: 'X', tenantId: MISSING }), 404);
    const res = await h.as(platform).post('/v1/admin/partners', { name: 'Other partner', tenantId: other.tenantId });
    expect(res.status).toBe(201);
    expect(res.body.data.tenantId).toBe(other.tenantId);
    const all = await h.as(platform).get('/v1/admin/partners?limit=100');
    expect(ids(all)).toEqual(expect.arrayContaining([partnerId, res.body.data.id]));
    const filtered = await h.as(platform).get(`/v1/admin/partners?tenantId=${other.tenantId}`);
    expect(ids(filtered)).toEqual([res.body.data.id]);
    // a tenant caller cannot create into another tenant, nor see its partners
    expectProblem(await h.as(tenantKey).post('/v1/admin/partners', { name: 'Sneaky', tenantId: other.tenantId }), 404);
    expectProblem(await h.as(tenantKey).get(`/v1/admin/partners/${res.body.data.id}`), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await h.as(tenantKey).patch(`/v1/admin/partners/${res.body.data.id}`, { name: 'Mine' }), 404);
    expectProblem(await h.as(tenantKey).post(`/v1/admin/partners/${res.body.data.id}/suspend`), 404);
    expectProblem(await h.as(other.secretKey).get(`/v1/admin/partners/${partnerId}`), 404);
    // a filter naming another tenant is looked up like any id of a request: 404 naming it
    const filter = await h.as(tenantKey).get(`/v1/admin/partners?tenantId=${other.tenantId}`);
    expectProblem(filter, 404, 'RESOURCE_NOT_FOUND');
    expect(paths(filter)).toEqual(['query.tenantId']);
  });

  test('status moves: suspend, activate, disable; illegal moves answer 409; all audited', async () => {
    const move = (m: string) => h.as(tenantKey).post(`/v1/admin/partners/${partnerId}/${m}`);
    expectProblem(await move('activate'), 409, 'INVALID_STATE_TRANSITION');
    expect((await move('suspend')).body.data.status).toBe('suspended');
    expectProblem(await move('suspend'), 409, 'INVALID_STATE_TRANSITION');
    expect((await move('activate')).body.data.status).toBe('active');
    expect((await move('disable')).body.data.status).toBe('disabled');
    expectProblem(await move('disable'), 409, 'INVALID_STATE_TRANSITION');
    expectProblem(await move('suspend'), 409, 'INVALID_STATE_TRANSITION');
    expect(ids(await h.as(tenantKey).get('/v1/admin/partners?status=disabled'))).toEqual([partnerId]);
    expect(ids(await h.as(tenantKey).get('/v1/admin/partners?status=active'))).toEqual([]);
    expect((await move('activate')).body.data.status).toBe('active');
    const audit = await h.as(tenantKey).get(`/v1/audit-entries?targetId=${partnerId}`);
    expect(audit.body.data.map((e: { action: string }) => e.action)).toEqual([
      'partner.activated',
      'partner.disabled',
      'partner.activated',
      'partner.suspended',
      'partner.updated',
      'partner.created',
    ]);
    expect(audit.body.data[1]).toMatchObject({ before: { status: 'active' }, after: { status: 'disabled' } });
  });

  test('merchant callers cannot reach partner operations (403)', async () => {
    expectProblem(await h.as(merchantKey).get('/v1/admin/partners'), 403, 'LEVEL_NOT_ALLOWED');
    expectProblem(await h.as(merchantKey).post('/v1/admin/partners', { name: 'M' }), 403, 'LEVEL_NOT_ALLOWED');
    expectProblem(await h.as(merchantKey).get(`/v1/admin/partners/${partnerId}`), 403);
    expectProblem(await h.as(merchantKey).patch(`/v1/admin/partners/${partnerId}`, { name: 'M' }), 403);
    for (const m of ['activate', 'suspend', 'disable'])
      expectProblem(await h.as(merchantKey).post(`/v1/admin/partners/${partnerId}/${m}`), 403);
  });

  test('validation names each field', async () => {
    const res = await h.as(tenantKey).post('/v1/admin/partners', { contactEmail: 'nope', metadata: { a: 1 }, status: 'active' });
    expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(paths(res)).toEqual(['body.contactEmail', 'body.metadata.a', 'body.name', 'body.status']);
    const empty = await h.as(tenantKey).patch(`/v1/admin/partners/${partnerId}`, {});
    expectProblem(empty, 400);
    expect(paths(empty)).toEqual(['body']);
    expectProblem(await h.as(tenantKey).get('/v1/admin/partners?status=gone'), 400);
    expectProblem(await h.as(tenantKey).get('/v1/admin/partners/not-a-uuid'), 404);
    expectProblem(await h.as(tenantKey).post(`/v1/admin/partners/${MISSING}/activate`), 404);
  });

  describe('assignments', () => {
    let assignmentId: string;

    test('assign a partner to a merchant with a rate in millionths and a fixed amount', async () => {
      const res = await h.as(tenantKey).post('/v1/admin/partner-assignments', {
        partnerId,
        merchantId: h.sandbox.merchantId,
        commissionRate: 15000,
        commissionFixed: { currency: 'EUR', valueMinor: 10 },
        effectiveTo: '2027-01-01T00:00:00Z',
      });
      expect(res.status).toBe(201);
      expect(res.body.data).toEqual({
        id: expect.any(String),
        tenantId: h.sandbox.tenantId,
        partnerId,
        merchantId: h.sandbox.merchantId,
        commissionRate: 15000,
        commissionFixed: { currency: 'EUR', valueMinor: 10 },
        status: 'active',
        effectiveFrom: h.clock.now().toISOString(),
        effectiveTo: '2027-01-01T00:00:00.000Z',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        deletedAt: null,
      });
      assignmentId = res.body.data.id;
      expect((await h.as(tenantKey).get(`/v1/admin/partner-assignments/${assignmentId}`)).body.data).toEqual(res.body.data);
      expect(ids(await h.as(tenantKey).get(`/v1/admin/partner-assignments?partnerId=${partnerId}`))).toEqual([assignmentId]);
      expect(ids(await h.as(tenantKey).get(`/v1/admin/partner-assignments?merchantId=${second.merchantId}`))).toEqual([]);
      expect(ids(await h.as(platform).get(`/v1/admin/partner-assignments?status=active&tenantId=${h.sandbox.tenantId}`))).toEqual([
        assignmentId,
      ]);
      // the OpenAPI document says how the commission is stored
      const doc = await h.as(platform).get('/v1/openapi.json');
      expect(JSON.stringify(doc.body.components.schemas.PartnerAssignment)).toMatch(/millionths/);
    });

    test('one active assignment per partner and merchant (409); suspend frees the pair', async () => {
      const body = { partnerId, merchantId: h.sandbox.merchantId, commissionRate: 5000 };
      expectProblem(await h.as(tenantKey).post('/v1/admin/partner-assignments', body), 409, 'PARTNER_ASSIGNMENT_EXISTS');
      const raced = await Promise.all(
        [1, 2, 3].map(() => h.as(tenantKey).post('/v1/admin/partner-assignments', { ...body, merchantId: second.merchantId })),
      );
      expect(raced.map((r) => r.status).sort()).toEqual([201, 409, 409]);
      const suspended = await h.as(tenantKey).post(`/v1/admin/partner-assignments/${assignmentId}/suspend`);
      expect(suspended.status).toBe(200);
      expect(suspended.body.data.status).toBe('suspended');
      expectProblem(await h.as(tenantKey).post(`/v1/admin/partner-assignments/${assignmentId}/suspend`), 409, 'INVALID_STATE_TRANSITION');
      const again = await h.as(tenantKey).post('/v1/admin/partner-assignments', body);
      expect(again.status).toBe(201);
      expect(
        ids(
          await h
            .as(tenantKey)
            .get(`/v1/admin/partner-assignments?partnerId=${partnerId}&merchantId=${h.sandbox.merchantId}&sortOrder=asc`),
        ),
      ).toEqual([assignmentId, again.body.data.id]);
    });

    test('update the commission and the effective period', async () => {
      const res = await h
        .as(tenantKey)
        .patch(`/v1/admin/partner-assignments/${assignmentId}`, { commissionRate: 20000, commissionFixed: null, effectiveTo: null });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ commissionRate: 20000, commissionFixed: null, effectiveTo: null, status: 'suspended' });
      const bad = await h.as(tenantKey).patch(`/v1/admin/partner-assignments/${assignmentId}`, { effectiveTo: '2020-01-01T00:00:00Z' });
      expectProblem(bad, 400);
      expect(paths(bad)).toEqual(['body.effectiveTo']);
      const audit = await h.as(tenantKey).get(`/v1/audit-entries?targetId=${assignmentId}`);
      expect(audit.body.data.map((e: { action: string }) => e.action)).toEqual([
        'partner_assignment.updated',
        'partner_assignment.suspended',
        'partner_assignment.created',
      ]);
    });

    test('partner and merchant must be visible, of one tenant, and the partner active', async () => {
      const foreign = await h
        .as(tenantKey)
        .post('/v1/admin/partner-assignments', { partnerId, merchantId: other.merchantId, commissionRate: 1 });
      expectProblem(foreign, 404);
      expect(paths(foreign)).toEqual(['body.merchantId']);
      expectProblem(
        await h
          .as(tenantKey)
          .post('/v1/admin/partner-assignments', { partnerId: MISSING, merchantId: h.sandbox.merchantId, commissionRate: 1 }),
        404,
      );
      const mixed = await h
        .as(platform)
        .post('/v1/admin/partner-assignments', { partnerId, merchantId: other.merchantId, commissionRate: 1 });
      expectProblem(mixed, 400);
      expect(paths(mixed)).toEqual(['body.merchantId']);
      const p = (await h.as(tenantKey).post('/v1/admin/partners', { name: 'Suspended one' })).body.data;
      await h.as(tenantKey).post(`/v1/admin/partners/${p.id}/suspend`);
      expectProblem(
        await h
          .as(tenantKey)
          .post('/v1/admin/partner-assignments', { partnerId: p.id, merchantId: h.sandbox.merchantId, commissionRate: 1 }),
        409,
        'PARTNER_NOT_ACTIVE',
      );
      // another tenant sees none of them
      expectProblem(await h.as(other.secretKey).get(`/v1/admin/partner-assignments/${assignmentId}`), 404);
      expectProblem(await h.as(other.secretKey).patch(`/v1/admin/partner-assignments/${assignmentId}`, { commissionRate: 1 }), 404);
      expectProblem(await h.as(other.secretKey).post(`/v1/admin/partner-assignments/${assignmentId}/suspend`), 404);
      expect(ids(await h.as(other.secretKey).get('/v1/admin/partner-assignments'))).toEqual([]);
    });

    test('merchant callers get 403; validation names each field', async () => {
      expectProblem(await h.as(merchantKey).get('/v1/admin/partner-assignments'), 403, 'LEVEL_NOT_ALLOWED');
      expectProblem(await h.as(merchantKey).get(`/v1/admin/partner-assignments/${assignmentId}`), 403);
      expectProblem(await h.as(merchantKey).post('/v1/admin/partner-assignments', {}), 403);
      expectProblem(await h.as(merchantKey).patch(`/v1/admin/partner-assignments/${assignmentId}`, { commissionRate: 1 }), 403);
      expectProblem(await h.as(merchantKey).post(`/v1/admin/partner-assignments/${assignmentId}/suspend`), 403);
      const res = await h.as(tenantKey).post('/v1/admin/partner-assignments', {
        partnerId: 'x',
        commissionRate: 1.5,
        commissionFixed: { currency: 'eur', valueMinor: -1 },
        effectiveFrom: 'yesterday',
      });
      expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(paths(res)).toEqual([
        'body.commissionFixed.currency',
        'body.commissionRate',
        'body.effectiveFrom',
        'body.merchantId',
        'body.partnerId',
      ]);
      const over = await h
        .as(tenantKey)
        .post('/v1/admin/partner-assignments', { partnerId, merchantId: h.sandbox.merchantId, commissionRate: 1_000_001 });
      expect(paths(over)).toEqual(['body.commissionRate']);
      const negative = await h.as(tenantKey).post('/v1/admin/partner-assignments', {
        partnerId,
        merchantId: h.sandbox.merchantId,
        commissionRate: 1,
        commissionFixed: { currency: 'EUR', valueMinor: -5 },
      });
      expect(paths(negative)).toEqual(['body.commissionFixed.valueMinor']);
    });
  });
});

describe(`channels (${dialectName})`, () => {
  let channelId: string;

  test('create, get, list, update and disable a channel', async () => {
    const res = await h.as(tenantKey).post('/v1/admin/channels', {
      name: 'EU card pay-in',
      direction: 'payin',
      currencies: ['EUR', 'USD', 'EUR'],
      description: 'Cards in Europe',
      providerIntegrationId: '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e01',
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(String),
      tenantId: h.sandbox.tenantId,
      name: 'EU card pay-in',
      direction: 'payin',
      currencies: ['EUR', 'USD'],
      providerIntegrationId: '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e01',
      status: 'active',
      description: 'Cards in Europe',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      deletedAt: null,
    });
    channelId = res.body.data.id;
    const payout = await h.as(tenantKey).post('/v1/admin/channels', { name: 'Payouts', direction: 'payout', currencies: ['EUR'] });
    expect(payout.body.data).toMatchObject({ providerIntegrationId: null, description: null });
    expect((await h.as(tenantKey).get(`/v1/admin/channels/${channelId}`)).body.data).toEqual(res.body.data);
    // the sandbox provisions a payout channel of its own
    expect(ids(await h.as(tenantKey).get('/v1/admin/channels?direction=payout'))).toEqual([payout.body.data.id, h.sandbox.payoutChannelId]);
    expect(ids(await h.as(tenantKey).get('/v1/admin/channels?sortOrder=asc'))).toEqual([
      h.sandbox.payoutChannelId,
      channelId,
      payout.body.data.id,
    ]);
    const updated = await h.as(tenantKey).patch(`/v1/admin/channels/${channelId}`, {
      name: 'EU cards',
      currencies: ['EUR', 'GBP'],
      providerIntegrationId: null,
      description: null,
    });
    expect(updated.body.data).toMatchObject({
      name: 'EU cards',
      currencies: ['EUR', 'GBP'],
      providerIntegrationId: null,
      description: null,
      direction: 'payin',
    });
    const disabled = await h.as(tenantKey).post(`/v1/admin/channels/${payout.body.data.id}/disable`);
    expect(disabled.status).toBe(200);
    expect(disabled.body.data.status).toBe('disabled');
    expectProblem(await h.as(tenantKey).post(`/v1/admin/channels/${payout.body.data.id}/disable`), 409, 'INVALID_STATE_TRANSITION');
    expect(ids(await h.as(tenantKey).get('/v1/admin/channels?status=disabled'))).toEqual([payout.body.data.id]);
    const audit = await h.as(tenantKey).get(`/v1/audit-entries?targetId=${payout.body.data.id}`);
    expect(audit.body.data.map((e: { action: string }) => e.action)).toEqual(['channel.disabled', 'channel.created']);
  });

  test('tenant isolation, platform access, and 403 for merchant callers', async () => {
    expectProblem(await h.as(other.secretKey).get(`/v1/admin/channels/${channelId}`), 404);
    expectProblem(await h.as(other.secretKey).patch(`/v1/admin/channels/${channelId}`, { name: 'x' }), 404);
    expectProblem(await h.as(other.secretKey).post(`/v1/admin/channels/${channelId}/disable`), 404);
    expect(ids(await h.as(other.secretKey).get('/v1/admin/channels'))).toEqual([]);
    expect((await h.as(platform).get(`/v1/admin/channels/${channelId}`)).status).toBe(200);
    const made = await h
      .as(platform)
      .post('/v1/admin/channels', { name: 'Other payin', direction: 'payin', currencies: ['EUR'], tenantId: other.tenantId });
    expect(made.body.data.tenantId).toBe(other.tenantId);
    expect(ids(await h.as(other.secretKey).get('/v1/admin/channels'))).toEqual([made.body.data.id]);
    expect(paths(await h.as(platform).post('/v1/admin/channels', { name: 'x', direction: 'payin', currencies: ['EUR'] }))).toEqual([
      'body.tenantId',
    ]);
    expectProblem(await h.as(merchantKey).get('/v1/admin/channels'), 403, 'LEVEL_NOT_ALLOWED');
    expectProblem(await h.as(merchantKey).post('/v1/admin/channels', { name: 'x', direction: 'payin', currencies: ['EUR'] }), 403);
    expectProblem(await h.as(merchantKey).get(`/v1/admin/channels/${channelId}`), 403);
    expectProblem(await h.as(merchantKey).patch(`/v1/admin/channels/${channelId}`, { name: 'x' }), 403);
    expectProblem(await h.as(merchantKey).post(`/v1/admin/channels/${channelId}/disable`), 403);
  });

  test('validation names each field', async () => {
    const res = await h
      .as(tenantKey)
      .post('/v1/admin/channels', { name: '', direction: 'sideways', currencies: ['EUR', 'XXQ'], providerIntegrationId: 'abc' });
    expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(paths(res)).toEqual(['body.currencies[1]', 'body.direction', 'body.name', 'body.providerIntegrationId']);
    expect(paths(await h.as(tenantKey).post('/v1/admin/channels', { name: 'x', direction: 'payin', currencies: [] }))).toEqual([
      'body.currencies',
    ]);
    expect(paths(await h.as(tenantKey).patch(`/v1/admin/channels/${channelId}`, { direction: 'payout' }))).toContain('body.direction');
    expectProblem(await h.as(tenantKey).get('/v1/admin/channels?direction=up'), 400);
  });

  describe('channel limits', () => {
    let limitId: string;

    test('create, list and disable a channel limit', async () => {
      const res = await h.as(tenantKey).post(`/v1/admin/channels/${channelId}/limits`, {
        period: { value: 1, unit: 'day' },
        metric: 'volume',
        threshold: 5_000_000_000,
        currency: 'EUR',
        brand: 'visa',
        paymentMethod: 'card',
      });
      expect(res.status).toBe(201);
      expect(res.body.data).toEqual({
        id: expect.any(String),
        tenantId: h.sandbox.tenantId,
        entityId: channelId,
        entityType: 'channel',
        period: { value: 1, unit: 'day' },
        metric: 'volume',
        threshold: 5_000_000_000,
        currency: 'EUR',
        paymentMethod: 'card',
        brand: 'visa',
        transactionType: 'payment',
        status: 'active',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        deletedAt: null,
      });
      limitId = res.body.data.id;
      const count = await h.as(tenantKey).post(`/v1/admin/channels/${channelId}/limits`, {
        period: { value: 10, unit: 'minute' },
        metric: 'count',
        threshold: 100,
        transactionType: 'refund',
      });
      expect(count.body.data).toMatchObject({ currency: null, transactionType: 'refund', threshold: 100 });
      const list = await h.as(tenantKey).get(`/v1/admin/channels/${channelId}/limits?sortOrder=asc`);
      expect(list.body.data).toEqual([res.body.data, count.body.data]);
      expect(list.body.pagination.totalCount).toBe(2);
      const disabled = await h.as(tenantKey).post(`/v1/admin/channels/${channelId}/limits/${limitId}/disable`);
      expect(disabled.status).toBe(200);
      expect(disabled.body.data.status).toBe('disabled');
      expectProblem(
        await h.as(tenantKey).post(`/v1/admin/channels/${channelId}/limits/${limitId}/disable`),
        409,
        'INVALID_STATE_TRANSITION',
      );
      expect(ids(await h.as(tenantKey).get(`/v1/admin/channels/${channelId}/limits?status=active`))).toEqual([count.body.data.id]);
      const audit = await h.as(tenantKey).get(`/v1/audit-entries?targetId=${limitId}`);
      expect(audit.body.data.map((e: { action: string }) => e.action)).toEqual(['limit.disabled', 'limit.created']);
    });

    test('a limit is reached only through its own owner; others get 404 and merchants 403', async () => {
      const otherChannel = (await h.as(tenantKey).post('/v1/admin/channels', { name: 'Another', direction: 'payin', currencies: ['EUR'] }))
        .body.data.id;
      expectProblem(await h.as(tenantKey).post(`/v1/admin/channels/${otherChannel}/limits/${limitId}/disable`), 404);
      expectProblem(await h.as(tenantKey).post(`/v1/admin/merchants/${h.sandbox.merchantId}/limits/${limitId}/disable`), 404);
      expect(ids(await h.as(tenantKey).get(`/v1/admin/channels/${otherChannel}/limits`))).toEqual([]);
      expectProblem(await h.as(other.secretKey).get(`/v1/admin/channels/${channelId}/limits`), 404);
      expectProblem(
        await h
          .as(other.secretKey)
          .post(`/v1/admin/channels/${channelId}/limits`, { period: { value: 1, unit: 'day' }, metric: 'count', threshold: 1 }),
        404,
      );
      expectProblem(await h.as(other.secretKey).post(`/v1/admin/channels/${channelId}/limits/${limitId}/disable`), 404);
      expectProblem(await h.as(tenantKey).get(`/v1/admin/channels/${MISSING}/limits`), 404);
      expect((await h.as(platform).get(`/v1/admin/channels/${channelId}/limits`)).body.data).toHaveLength(2);
      expectProblem(await h.as(merchantKey).get(`/v1/admin/channels/${channelId}/limits`), 403, 'LEVEL_NOT_ALLOWED');
      expectProblem(await h.as(merchantKey).post(`/v1/admin/channels/${channelId}/limits`, {}), 403);
      expectProblem(await h.as(merchantKey).post(`/v1/admin/channels/${channelId}/limits/${limitId}/disable`), 403);
    });

    test('validation names each field; a volume limit needs a currency of the channel', async () => {
      const res = await h.as(tenantKey).post(`/v1/admin/channels/${channelId}/limits`, {
        period: { value: 0, unit: 'year' },
        metric: 'sum',
        threshold: -1,
        currency: 'eur',
        transactionType: 'sale',
        brand: 'Visa Card',
      });
      expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(paths(res)).toEqual([
        'body.brand',
        'body.currency',
        'body.metric',
        'body.period.unit',
        'body.period.value',
        'body.threshold',
        'body.transactionType',
      ]);
      const base = { period: { value: 1, unit: 'hour' }, metric: 'volume' };
      expect(
        paths(await h.as(tenantKey).post(`/v1/admin/channels/${channelId}/limits`, { ...base, threshold: 1.5, currency: 'EUR' })),
      ).toEqual(['body.threshold']);
      expect(paths(await h.as(tenantKey).post(`/v1/admin/channels/${channelId}/limits`, { ...base, threshold: 100 }))).toEqual([
        'body.currency',
      ]);
      expect(
        paths(await h.as(tenantKey).post(`/v1/admin/channels/${channelId}/limits`, { ...base, threshold: 100, currency: 'JPY' })),
      ).toEqual(['body.currency']);
      expect(paths(await h.as(tenantKey).post(`/v1/admin/channels/${channelId}/limits`, { metric: 'count', threshold: 1 }))).toEqual([
        'body.period',
      ]);
    });
  });
});

describe(`merchant limits (${dialectName})`, () => {
  let limitId: string;

  test("a tenant creates, lists and disables a merchant's limits", async () => {
    const res = await h.as(tenantKey).post(`/v1/admin/merchants/${h.sandbox.merchantId}/limits`, {
      period: { value: 1, unit: 'month' },
      metric: 'volume',
      threshold: 1_000_000,
      currency: 'USD',
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      entityType: 'merchant',
      entityId: h.sandbox.merchantId,
      tenantId: h.sandbox.tenantId,
      currency: 'USD',
      status: 'active',
    });
    limitId = res.body.data.id;
    await h
      .as(tenantKey)
      .post(`/v1/admin/merchants/${second.merchantId}/limits`, { period: { value: 1, unit: 'week' }, metric: 'count', threshold: 50 });
    const list = await h.as(tenantKey).get(`/v1/admin/merchants/${h.sandbox.merchantId}/limits`);
    expect(list.body.data).toEqual([res.body.data]);
    const disabled = await h.as(tenantKey).post(`/v1/admin/merchants/${h.sandbox.merchantId}/limits/${limitId}/disable`);
    expect(disabled.body.data.status).toBe('disabled');
    expectProblem(
      await h.as(tenantKey).post(`/v1/admin/merchants/${h.sandbox.merchantId}/limits/${limitId}/disable`),
      409,
      'INVALID_STATE_TRANSITION',
    );
    expectProblem(await h.as(tenantKey).post(`/v1/admin/merchants/${second.merchantId}/limits/${limitId}/disable`), 404);
    const audit = await h.as(tenantKey).get(`/v1/audit-entries?targetId=${limitId}`);
    expect(audit.body.data.map((e: { action: string; merchantId: string }) => [e.action, e.merchantId])).toEqual([
      ['limit.disabled', h.sandbox.merchantId],
      ['limit.created', h.sandbox.merchantId],
    ]);
  });

  test("a merchant caller lists only its own merchant's limits and cannot change them", async () => {
    const own = await h.as(merchantKey).get(`/v1/admin/merchants/${h.sandbox.merchantId}/limits`);
    expect(own.status).toBe(200);
    expect(ids(own)).toEqual([limitId]);
    expect(
      own.body.data.every(
        (l: { entityType: string; entityId: string }) => l.entityType === 'merchant' && l.entityId === h.sandbox.merchantId,
      ),
    ).toBe(true);
    expectProblem(await h.as(merchantKey).get(`/v1/admin/merchants/${second.merchantId}/limits`), 404);
    expect((await h.as(second.secretKey).get(`/v1/admin/merchants/${second.merchantId}/limits`)).body.data).toHaveLength(1);
    expectProblem(await h.as(second.secretKey).get(`/v1/admin/merchants/${h.sandbox.merchantId}/limits`), 404);
    expectProblem(
      await h
        .as(merchantKey)
        .post(`/v1/admin/merchants/${h.sandbox.merchantId}/limits`, { period: { value: 1, unit: 'day' }, metric: 'count', threshold: 1 }),
      403,
      'LEVEL_NOT_ALLOWED',
    );
    expectProblem(
      await h.as(merchantKey).post(`/v1/admin/merchants/${h.sandbox.merchantId}/limits/${limitId}/disable`),
      403,
      'LEVEL_NOT_ALLOWED',
    );
  });

  test('other tenants get 404; the platform reaches every merchant', async () => {
    expectProblem(await h.as(other.secretKey).get(`/v1/admin/merchants/${h.sandbox.merchantId}/limits`), 404);
    expectProblem(
      await h
        .as(other.secretKey)
        .post(`/v1/admin/merchants/${h.sandbox.merchantId}/limits`, { period: { value: 1, unit: 'day' }, metric: 'count', threshold: 1 }),
      404,
    );
    expectProblem(await h.as(other.secretKey).post(`/v1/admin/merchants/${h.sandbox.merchantId}/limits/${limitId}/disable`), 404);
    expectProblem(await h.as(tenantKey).get(`/v1/admin/merchants/${other.merchantId}/limits`), 404);
    const made = await h.as(platform).post(`/v1/admin/merchants/${other.merchantId}/limits`, {
      period: { value: 2, unit: 'hour' },
      metric: 'count',
      threshold: 7,
      currency: 'GBP',
    });
    expect(made.status).toBe(201);
    expect(made.body.data).toMatchObject({ tenantId: other.tenantId, currency: 'GBP', period: { value: 2, unit: 'hour' } });
    expect(ids(await h.as(other.secretKey).get(`/v1/admin/merchants/${other.merchantId}/limits`))).toEqual([made.body.data.id]);
    expectProblem(await h.as(tenantKey).get(`/v1/admin/merchants/${MISSING}/limits`), 404);
  });

  test('validation names each field', async () => {
    const res = await h.as(tenantKey).post(`/v1/admin/merchants/${h.sandbox.merchantId}/limits`, {
      period: { value: 1.5, unit: 'day', extra: 1 },
      metric: 'volume',
      threshold: 0,
    });
    expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(paths(res)).toEqual(['body.period.extra', 'body.period.value', 'body.threshold']);
    expect(
      paths(
        await h.as(tenantKey).post(`/v1/admin/merchants/${h.sandbox.merchantId}/limits`, {
          period: { value: 1, unit: 'day' },
          metric: 'volume',
          threshold: 10,
        }),
      ),
    ).toEqual(['body.currency']);
    expectProblem(await h.as(tenantKey).get(`/v1/admin/merchants/${h.sandbox.merchantId}/limits?status=paused`), 400);
  });
});
