import { useApiHarness, expectProblem } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { operatorContext } from '../../src/services/access/operators';
import { createMerchantRecord } from '../../src/services/organization/records';
import { createApiKey } from '../../src/services/api-keys/keys';
import { createActiveUser } from '../../src/services/access/users';
import { acceptInvitation } from '../../src/services/access/invitations';

const h = useApiHarness();

describe(`an operator's entityScope (${dialectName})`, () => {
  test('an operator limited to some merchants sees and changes only their records, and grants no more', async () => {
    const tenantKey = h.sandbox.tenantKey.secretKey;
    const ctx = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
    const m1 = h.sandbox.merchantId;
    const m2 = (await createMerchantRecord(ctx, { companyId: h.sandbox.companyId, name: 'Out of scope' })).id;
    const m2Key = await createApiKey(
      operatorContext(h.rt, { level: 'merchant', tenantId: h.sandbox.tenantId, merchantId: m2, livemode: false }),
      { ownerType: 'merchant' },
    );

    // an owner operator limited to m1 (owners hold every operator code: only the scope limits it)
    const limited = await createActiveUser(ctx, { layer: 'operator', email: 'limited@example.com' });
    const scoped = await h.as(tenantKey).patch(`/v1/users/${limited.id}`, { entityScope: { type: 'merchants', merchantIds: [m1] } });
    expect(scoped.status).toBe(200);
    expect(scoped.body.data.entityScope).toEqual({ type: 'merchants', merchantIds: [m1] });
    const token = (await h.rt.tokens.issue(limited.id, 3600, false)).token;

    const merchants = await h.as(token).get('/v1/admin/merchants');
    expect(merchants.body.data.map((m: { id: string }) => m.id)).toEqual([m1]);
    expectProblem(await h.as(token).get(`/v1/admin/merchants/${m2}`), 404);
    expectProblem(await h.as(token).post(`/v1/admin/merchants/${m2}/suspend`), 404);

    const keys = await h.as(token).get('/v1/api-keys?limit=100');
    expect(keys.body.data.length).toBeGreaterThan(0);
    expect(keys.body.data.every((k: { owner: { merchantId?: string } }) => k.owner.merchantId === m1)).toBe(true);
    expectProblem(await h.as(token).get(`/v1/api-keys/${h.sandbox.tenantKey.id}`), 404);
    expectProblem(await h.as(token).get(`/v1/api-keys/${m2Key.id}`), 404);

    // no way out: no tenant-owned key, no key for another merchant, no tenant endpoint, no unlimited user
    expectProblem(
      await h.as(token).post('/v1/api-keys', { ownerType: 'tenant' }).set('Payplane-Mode', 'test'),
      403,
      'ENTITY_SCOPE_EXCEEDED',
    );
    expectProblem(await h.as(token).post('/v1/api-keys', { ownerType: 'merchant', merchantId: m2 }), 404);
    expect(
      (await h.as(token).post('/v1/api-keys', { ownerType: 'merchant', merchantId: m1, permissions: ['payments:payments:view'] })).status,
    ).toBe(201);
    expectProblem(
      await h.as(token).post('/v1/admin/webhook-endpoints', { url: 'https://hooks.example.test/x', events: ['*'] }),
      403,
      'ENTITY_SCOPE_EXCEEDED',
    );
    const wide = await h.as(token).post('/v1/users/invite', { email: 'wide@example.com', layer: 'operator', entityScope: { type: 'all' } });
    expectProblem(wide, 403);
    const widen = await h.as(token).patch(`/v1/users/${limited.id}`, { entityScope: { type: 'merchants', merchantIds: [m1, m2] } });
    expectProblem(widen, 404);
    const users = await h.as(token).get('/v1/users?limit=100');
    expect(users.body.data.every((u: { merchantId: string | null }) => u.merchantId === m1)).toBe(true);

    // tenant-wide records: read only where they concern its merchants, never changed
    expectProblem(await h.as(token).patch(`/v1/admin/tenants/${h.sandbox.tenantId}`, { name: 'Taken over' }), 403, 'ENTITY_SCOPE_EXCEEDED');
    expectProblem(
      await h.as(token).post('/v1/admin/channels', { name: 'c', direction: 'payin', currencies: ['EUR'] }),
      403,
      'ENTITY_SCOPE_EXCEEDED',
    );
    expectProblem(await h.as(token).post('/v1/admin/companies', { name: 'New Co', country: 'DE' }), 403, 'ENTITY_SCOPE_EXCEEDED');
    const otherCompany = (await h.as(tenantKey).post('/v1/admin/companies', { name: 'Elsewhere GmbH', country: 'DE' })).body.data;
    const companies = await h.as(token).get('/v1/admin/companies?limit=100');
    expect(companies.body.data.map((c: { id: string }) => c.id)).toEqual([h.sandbox.companyId]);
    expectProblem(await h.as(token).get(`/v1/admin/companies/${otherCompany.id}`), 404);
    expectProblem(
      await h.as(token).patch(`/v1/admin/companies/${h.sandbox.companyId}`, { website: 'https://x.example' }),
      403,
      'ENTITY_SCOPE_EXCEEDED',
    );

    // it may invite users of its own merchants (for a merchant user "all" means that merchant)
    const invited = await h.as(token).post('/v1/users/invite', { email: 'shop-staff@example.com', layer: 'merchant', merchantId: m1 });
    expect(invited.status).toBe(201);
    expectProblem(await h.as(token).post('/v1/users/invite', { email: 'other-staff@example.com', layer: 'merchant', merchantId: m2 }), 404);
  });

  test('a tenant onboards a merchant owner, who holds merchant-only codes such as compliance:kyb:manage', async () => {
    const res = await h
      .as(h.sandbox.tenantKey.secretKey)
      .post('/v1/users/invite', { email: 'owner@shop.example', layer: 'merchant', merchantId: h.sandbox.merchantId, owner: true });
    expect(res.status).toBe(201);
    const accepted = await acceptInvitation(h.rt, res.body.data.invitation.token, 'idp|shop-owner');
    const token = (await h.rt.tokens.issue(accepted.user.id, 3600, false)).token;
    const draft = await h.as(token).post('/v1/kyb-submissions', {});
    expect(draft.status).toBe(201);
  });

  test('entity scopes are validated', async () => {
    const tenantKey = h.sandbox.tenantKey.secretKey;
    const ctx = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
    const op = await createActiveUser(ctx, { layer: 'operator', email: 'op2@example.com' });
    const merchantUser = await createActiveUser(ctx, { layer: 'merchant', merchantId: h.sandbox.merchantId, email: 'mu@example.com' });
    const unknown = await h
      .as(tenantKey)
      .patch(`/v1/users/${op.id}`, { entityScope: { type: 'merchants', merchantIds: ['00000000-0000-4000-8000-000000000000'] } });
    expectProblem(unknown, 404);
    expect(unknown.body.errors[0].path).toBe('body.entityScope.merchantIds[0]');
    const onMerchant = await h
      .as(tenantKey)
      .patch(`/v1/users/${merchantUser.id}`, { entityScope: { type: 'merchants', merchantIds: [h.sandbox.merchantId] } });
    expectProblem(onMerchant, 400);
    expect(onMerchant.body.errors[0].path).toBe('body.entityScope.type');
    expectProblem(await h.as(tenantKey).patch(`/v1/users/${op.id}`, { entityScope: { type: 'regions' } }), 400);
    expect((await h.as(tenantKey).patch(`/v1/users/${op.id}`, { entityScope: { type: 'all' } })).body.data.entityScope).toEqual({
      type: 'all',
    });
  });
});
