import { useApiHarness, createLiveTenantKey, expectProblem } from '../helpers/api';
import { operatorContext } from '../../src/services/access/operators';
import { createMerchantRecord } from '../../src/services/organization/records';
import { createApiKey } from '../../src/services/api-keys/keys';
import { HOUR_MS } from '../../src/domain/clock';
import { dialectName } from '../helpers/db';

let tenantKey: string;
let merchantKey: string;

const h = useApiHarness();
beforeAll(async () => {
  tenantKey = h.sandbox.tenantKey.secretKey;
  merchantKey = h.sandbox.merchantKey.secretKey;
});

const merchantPerms = ['payments:payments:view', 'payments:refunds:view'];

async function issue(body: object, credential = tenantKey, idempotencyKey?: string) {
  const req = h.as(credential).post('/v1/api-keys', body);
  return idempotencyKey !== undefined ? req.set('Idempotency-Key', idempotencyKey) : req;
}

describe(`API keys over HTTP (${dialectName})`, () => {
  test('create returns the secret once; reads never carry it; the new key authenticates', async () => {
    const res = await issue({ name: 'Reporting', merchantId: h.sandbox.merchantId, permissions: merchantPerms });
    expect(res.status).toBe(201);
    const key = res.body.data;
    expect(key.secretKey).toMatch(/^sk_test_[A-Za-z0-9]{56}$/);
    expect(key.publicKey).toMatch(/^pk_test_[A-Za-z0-9]{16}$/);
    expect(key.secretKey.startsWith(`sk_test_${key.publicKey.slice(8)}`)).toBe(true);
    expect(key).toMatchObject({
      name: 'Reporting',
      status: 'active',
      livemode: false,
      environment: 'test',
      permissions: merchantPerms,
      owner: { type: 'merchant', merchantId: h.sandbox.merchantId, tenantId: h.sandbox.tenantId },
      createdBy: h.sandbox.tenantKey.id,
      createdByType: 'api_key',
    });

    const got = await h.as(tenantKey).get(`/v1/api-keys/${key.id}`);
    expect(got.status).toBe(200);
    expect(got.body.data.secretKey).toBeUndefined();
    expect(JSON.stringify(got.body)).not.toContain(key.secretKey);
    const list = await h.as(tenantKey).get('/v1/api-keys?limit=100');
    expect(list.body.data.every((k: Record<string, unknown>) => k.secretKey === undefined && k.secretHash === undefined)).toBe(true);

    // the new key authenticates and carries exactly its permissions
    const asNew = await h.as(key.secretKey).get('/v1/payments');
    expect(asNew.status).toBe(200);
    const own = await h.as(key.secretKey).get(`/v1/api-keys/${key.id}`);
    expectProblem(own, 403, 'PERMISSION_DENIED');
  });

  test('the same Idempotency-Key again answers 409 API_KEY_ALREADY_ISSUED with the key id, no second key, no secret', async () => {
    const before = (await h.as(tenantKey).get('/v1/api-keys')).body.pagination.totalCount;
    const body = { name: 'Once', ownerType: 'tenant', permissions: ['payments:payments:view'] };
    const first = await issue(body, tenantKey, 'issue-once-1');
    expect(first.status).toBe(201);
    const replay = await issue(body, tenantKey, 'issue-once-1');
    expectProblem(replay, 409, 'API_KEY_ALREADY_ISSUED');
    expect(replay.body.instance).toBe(first.body.data.id);
    expect(JSON.stringify(replay.body)).not.toMatch(/sk_test_/);
    const after = (await h.as(tenantKey).get('/v1/api-keys')).body.pagination.totalCount;
    expect(after).toBe(before + 1);

    // the specification's rule for issuing keys: the same key again is API_KEY_ALREADY_ISSUED, whatever the body
    const other = await issue({ ...body, name: 'Different' }, tenantKey, 'issue-once-1');
    expectProblem(other, 409, 'API_KEY_ALREADY_ISSUED');
    expect(other.body.instance).toBe(first.body.data.id);
  });

  test('concurrent requests with one Idempotency-Key issue exactly one key', async () => {
    const before = (await h.as(tenantKey).get('/v1/api-keys')).body.pagination.totalCount;
    const body = { name: 'Raced', ownerType: 'tenant', permissions: ['payments:payments:view'] };
    const results = await Promise.all(Array.from({ length: 20 }, () => issue(body, tenantKey, 'raced-key')));
    const created = results.filter((r) => r.status === 201);
    const replays = results.filter((r) => r.status === 409 && r.body.code === 'API_KEY_ALREADY_ISSUED');
    expect(created).toHaveLength(1);
    expect(replays).toHaveLength(19);
    expect(new Set(replays.map((r) => r.body.instance))).toEqual(new Set([created[0].body.data.id]));
    const after = (await h.as(tenantKey).get('/v1/api-keys')).body.pagination.totalCount;
    expect(after).toBe(before + 1);
  });

  test('rotation keeps the source active for graceHours, then it expires; the successor keeps scope, permissions and allowlist', async () => {
    const src = (
      await issue({
        name: 'Rotating',
        merchantId: h.sandbox.merchantId,
        permissions: ['api-keys:keys:view'],
        ipAllowlist: ['127.0.0.1', '::1', '10.0.0.0/8'],
      })
    ).body.data;
    const rotated = await h.as(tenantKey).post(`/v1/api-keys/${src.id}/rotate`, { graceHours: 2 }).set('Idempotency-Key', 'rot-1');
    expect(rotated.status).toBe(201);
    const next = rotated.body.data;
    expect(next).toMatchObject({
      rotatedFromKeyId: src.id,
      permissions: ['api-keys:keys:view'],
      ipAllowlist: ['127.0.0.1', '::1', '10.0.0.0/8'],
      owner: src.owner,
      livemode: false,
      status: 'active',
    });
    expect(next.secretKey).toMatch(/^sk_test_/);
    expect(next.secretKey).not.toBe(src.secretKey);

    const replay = await h.as(tenantKey).post(`/v1/api-keys/${src.id}/rotate`, { graceHours: 2 }).set('Idempotency-Key', 'rot-1');
    expectProblem(replay, 409, 'API_KEY_ALREADY_ISSUED');
    expect(replay.body.instance).toBe(next.id);

    expect((await h.as(src.secretKey).get(`/v1/api-keys/${src.id}`)).status).toBe(200);
    const srcNow = (await h.as(tenantKey).get(`/v1/api-keys/${src.id}`)).body.data;
    expect(new Date(srcNow.expiresAt).getTime()).toBe(h.clock.now().getTime() + 2 * HOUR_MS);

    h.clock.advance(2 * HOUR_MS - 1000);
    expect((await h.as(src.secretKey).get(`/v1/api-keys/${src.id}`)).status).toBe(200);
    h.clock.advance(1000);
    expectProblem(await h.as(src.secretKey).get(`/v1/api-keys/${src.id}`), 401, 'API_KEY_EXPIRED');
    expect((await h.as(next.secretKey).get(`/v1/api-keys/${next.id}`)).status).toBe(200);
    expect((await h.as(tenantKey).get(`/v1/api-keys/${src.id}`)).body.data.status).toBe('expired');

    expectProblem(await h.as(tenantKey).post(`/v1/api-keys/${src.id}/rotate`, {}), 409, 'API_KEY_EXPIRED');
  });

  test('rotation defaults to 24 hours of grace', async () => {
    const src = (await issue({ ownerType: 'tenant', permissions: ['api-keys:keys:view'] })).body.data;
    const res = await h.as(tenantKey).post(`/v1/api-keys/${src.id}/rotate`);
    expect(res.status).toBe(201);
    const srcNow = (await h.as(tenantKey).get(`/v1/api-keys/${src.id}`)).body.data;
    expect(new Date(srcNow.expiresAt).getTime()).toBe(h.clock.now().getTime() + 24 * HOUR_MS);
  });

  test('a revoked key answers 401 at once; the record stays readable; both revoke variants work', async () => {
    const a = (await issue({ ownerType: 'tenant', permissions: ['api-keys:keys:view'] })).body.data;
    expect((await h.as(a.secretKey).get('/v1/api-keys')).status).toBe(200);
    const del = await h.as(tenantKey).delete(`/v1/api-keys/${a.id}`);
    expect(del.status).toBe(200);
    expect(del.body.data).toMatchObject({ id: a.id, status: 'revoked' });
    expectProblem(await h.as(a.secretKey).get('/v1/api-keys'), 401, 'API_KEY_REVOKED');
    const read = await h.as(tenantKey).get(`/v1/api-keys/${a.id}`);
    expect(read.body.data.status).toBe('revoked');
    expect(read.body.data.revokedAt).toBe(h.clock.now().toISOString());
    expectProblem(await h.as(tenantKey).delete(`/v1/api-keys/${a.id}`), 409, 'API_KEY_REVOKED');

    const b = (await issue({ ownerType: 'tenant', permissions: ['api-keys:keys:view'] })).body.data;
    const post = await h.as(tenantKey).post(`/v1/api-keys/${b.id}/revoke`);
    expect(post.status).toBe(200);
    expect(post.body.data.status).toBe('revoked');
    expectProblem(await h.as(b.secretKey).get('/v1/api-keys'), 401, 'API_KEY_REVOKED');
  });

  test('update changes only supplied fields; revoked or expired keys answer 409', async () => {
    const k = (await issue({ name: 'Before', ownerType: 'tenant', permissions: ['api-keys:keys:view'] })).body.data;
    const res = await h.as(tenantKey).patch(`/v1/api-keys/${k.id}`, { name: 'After' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ name: 'After', permissions: ['api-keys:keys:view'], expiresAt: null });
    const perms = await h.as(tenantKey).patch(`/v1/api-keys/${k.id}`, { permissions: ['api-keys:keys:manage'] });
    expect(perms.body.data).toMatchObject({ name: 'After', permissions: ['api-keys:keys:manage'] });

    const expiresAt = new Date(h.clock.now().getTime() + HOUR_MS).toISOString();
    expect((await h.as(tenantKey).patch(`/v1/api-keys/${k.id}`, { expiresAt })).body.data.expiresAt).toBe(expiresAt);
    expectProblem(await h.as(tenantKey).patch(`/v1/api-keys/${k.id}`, { expiresAt: '2001-01-01T00:00:00Z' }), 400);
    h.clock.advance(HOUR_MS);
    expectProblem(await h.as(tenantKey).patch(`/v1/api-keys/${k.id}`, { name: 'Late' }), 409, 'API_KEY_EXPIRED');

    const r = (await issue({ ownerType: 'tenant', permissions: ['api-keys:keys:view'] })).body.data;
    await h.as(tenantKey).delete(`/v1/api-keys/${r.id}`);
    expectProblem(await h.as(tenantKey).patch(`/v1/api-keys/${r.id}`, { name: 'x' }), 409, 'API_KEY_REVOKED');
    expectProblem(await h.as(tenantKey).patch(`/v1/api-keys/${r.id}`, {}), 400);
  });

  test('a sandbox caller never sees live keys; livemode of the other mode is an empty page', async () => {
    const live = await createLiveTenantKey(h);
    // the same tenant holds a sandbox key too
    const sandboxCtx = operatorContext(h.rt, { level: 'tenant', tenantId: live.tenantId, livemode: false });
    const testKey = await createApiKey(sandboxCtx, { ownerType: 'tenant' });

    const asTest = await h.as(testKey.secretKey).get('/v1/api-keys?limit=100');
    expect(asTest.body.data.map((k: { id: string }) => k.id)).toEqual([testKey.id]);
    expect(asTest.body.data.every((k: { livemode: boolean }) => !k.livemode)).toBe(true);
    const otherMode = await h.as(testKey.secretKey).get('/v1/api-keys?livemode=true');
    expect(otherMode.status).toBe(200);
    expect(otherMode.body).toEqual({ data: [], pagination: { nextCursor: null, prevCursor: null, hasMore: false, totalCount: 0 } });
    expectProblem(await h.as(testKey.secretKey).get(`/v1/api-keys/${live.id}`), 404);

    const asLive = await h.as(live.secretKey).get('/v1/api-keys?livemode=true');
    expect(asLive.body.data.map((k: { id: string }) => k.id)).toEqual([live.id]);

    const liveIssued = await h.as(live.secretKey).post('/v1/api-keys', { ownerType: 'tenant', permissions: ['api-keys:keys:view'] });
    expect(liveIssued.status).toBe(201);
    expect(liveIssued.body.data.secretKey).toMatch(/^sk_live_/);
    expectProblem(await h.as(testKey.secretKey).post('/v1/api-keys', { livemode: true, ownerType: 'tenant' }), 403, 'LIVEMODE_MISMATCH');
    expectProblem(await h.as(live.secretKey).post('/v1/api-keys', { livemode: false, ownerType: 'tenant' }), 403, 'LIVEMODE_MISMATCH');
  });

  test('a sandbox tenant or a merchant not approved for live cannot hold live keys', async () => {
    const ctx = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
    await expect(createApiKey({ ...ctx, credential: 'user_token' }, { ownerType: 'tenant', livemode: true })).rejects.toMatchObject({
      code: 'TENANT_SANDBOX_ONLY',
    });
  });

  test("permissions come from the owner layer and the issuer's own permissions", async () => {
    const badLayer = await issue({
      merchantId: h.sandbox.merchantId,
      permissions: ['payments:payments:view', 'organization:tenants:manage'],
    });
    expectProblem(badLayer, 400, 'INVALID_PERMISSIONS');
    expect(badLayer.body.errors).toEqual([{ path: 'body.permissions[1]', message: expect.stringContaining('merchant layer') }]);
    const unknown = await issue({ ownerType: 'tenant', permissions: ['nope:nope:nope'] });
    expectProblem(unknown, 400, 'INVALID_PERMISSIONS');
    expect(unknown.body.errors[0].path).toBe('body.permissions[0]');

    const limited = (await issue({ ownerType: 'tenant', permissions: ['api-keys:keys:manage', 'payments:payments:view'] })).body.data;
    const grant = await h.as(limited.secretKey).get('/v1/api-keys/grantable-permissions?ownerType=merchant');
    expect(grant.status).toBe(200);
    expect(grant.body.data).toEqual({
      ownerType: 'merchant',
      permissions: ['api-keys:keys:manage', 'api-keys:keys:view', 'payments:payments:view'],
    });
    const ok = await issue({ merchantId: h.sandbox.merchantId, permissions: grant.body.data.permissions }, limited.secretKey);
    expect(ok.status).toBe(201);
    const notHeld = await issue({ merchantId: h.sandbox.merchantId, permissions: ['payments:refunds:view'] }, limited.secretKey);
    expectProblem(notHeld, 403, 'PERMISSION_NOT_GRANTABLE');
    expect(notHeld.body.errors[0].path).toBe('body.permissions[0]');

    // rotating a key whose permissions the caller lacks would escalate: refused
    const strong = (await issue({ ownerType: 'tenant', permissions: ['payments:refunds:view'] })).body.data;
    expectProblem(await h.as(limited.secretKey).post(`/v1/api-keys/${strong.id}/rotate`), 403, 'PERMISSION_NOT_GRANTABLE');

    const merchantGrant = await h.as(merchantKey).get('/v1/api-keys/grantable-permissions');
    expect(merchantGrant.body.data.ownerType).toBe('merchant');
    expect(merchantGrant.body.data.permissions).toContain('payments:payments:view');
    expectProblem(await h.as(merchantKey).get('/v1/api-keys/grantable-permissions?ownerType=tenant'), 403, 'OWNER_TYPE_NOT_ALLOWED');
    expectProblem(await issue({ ownerType: 'tenant' }, merchantKey), 403, 'OWNER_TYPE_NOT_ALLOWED');
  });

  test('merchant callers see and issue keys of their own merchant only', async () => {
    const ctx = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
    const other = await createMerchantRecord(ctx, { companyId: h.sandbox.companyId, name: 'Other merchant' });
    const otherKey = (await issue({ merchantId: other.id, permissions: merchantPerms })).body.data;
    const tenantOwned = (await issue({ ownerType: 'tenant', permissions: ['api-keys:keys:view'] })).body.data;

    expectProblem(await h.as(merchantKey).get(`/v1/api-keys/${otherKey.id}`), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await h.as(merchantKey).get(`/v1/api-keys/${tenantOwned.id}`), 404);
    expectProblem(await h.as(merchantKey).delete(`/v1/api-keys/${otherKey.id}`), 404);
    const list = await h.as(merchantKey).get('/v1/api-keys?limit=100');
    expect(list.body.data.every((k: { owner: { merchantId?: string } }) => k.owner.merchantId === h.sandbox.merchantId)).toBe(true);

    const own = await issue({ permissions: ['payments:payments:view'] }, merchantKey);
    expect(own.status).toBe(201);
    expect(own.body.data.owner).toEqual({ type: 'merchant', merchantId: h.sandbox.merchantId, tenantId: h.sandbox.tenantId });
    expectProblem(await issue({ merchantId: other.id }, merchantKey), 404);

    const filtered = await h.as(tenantKey).get(`/v1/api-keys?merchantId=${other.id}`);
    expect(filtered.body.data.map((k: { id: string }) => k.id)).toEqual([otherKey.id]);
    const byCreator = await h.as(tenantKey).get(`/v1/api-keys?createdBy=${h.sandbox.merchantKey.id}`);
    expect(byCreator.body.data.map((k: { id: string }) => k.id)).toEqual([own.body.data.id]);
  });

  test("rotation keeps the source's own expiry for the successor; a rotated key's grace cannot be extended", async () => {
    const expiresAt = new Date(h.clock.now().getTime() + 30 * 24 * HOUR_MS).toISOString();
    const src = (await issue({ ownerType: 'tenant', permissions: ['api-keys:keys:view'], expiresAt })).body.data;
    const next = (await h.as(tenantKey).post(`/v1/api-keys/${src.id}/rotate`, { graceHours: 1 })).body.data;
    expect(next.expiresAt).toBe(expiresAt);
    expectProblem(await h.as(tenantKey).patch(`/v1/api-keys/${src.id}`, { expiresAt: null }), 409, 'API_KEY_ROTATED');
    expect((await h.as(tenantKey).patch(`/v1/api-keys/${src.id}`, { name: 'old' })).status).toBe(200);
    // an expired key cannot be revoked (the specification revokes active keys)
    h.clock.advance(HOUR_MS);
    expectProblem(await h.as(tenantKey).delete(`/v1/api-keys/${src.id}`), 409, 'API_KEY_EXPIRED');
  });

  test("a merchant filter can never widen a merchant caller's scope", async () => {
    const ctx = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
    const other = await createMerchantRecord(ctx, { companyId: h.sandbox.companyId, name: 'Filtered merchant' });
    await issue({ merchantId: other.id, permissions: merchantPerms });
    // another merchant is not the merchant caller's to name, even as a filter: 404 naming it
    const res = await h.as(merchantKey).get(`/v1/api-keys?merchantId=${other.id}`);
    expectProblem(res, 404, 'RESOURCE_NOT_FOUND');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(['query.merchantId']);
  });

  test('cross-tenant reads and changes answer 404', async () => {
    const live = await createLiveTenantKey(h);
    const mine = (await issue({ ownerType: 'tenant', permissions: ['api-keys:keys:view'] })).body.data;
    expectProblem(await h.as(live.secretKey).get(`/v1/api-keys/${mine.id}`), 404);
    expectProblem(await h.as(live.secretKey).patch(`/v1/api-keys/${mine.id}`, { name: 'x' }), 404);
    expectProblem(await h.as(live.secretKey).post(`/v1/api-keys/${mine.id}/rotate`), 404);
    expectProblem(await h.as(tenantKey).get(`/v1/api-keys/${live.id}`), 404);
    expectProblem(await h.as(tenantKey).get('/v1/api-keys/not-a-uuid'), 404);
  });

  test('status filter follows expiry and revocation', async () => {
    const ctx = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
    const expiring = await createApiKey(ctx, { ownerType: 'tenant', expiresAt: new Date(h.clock.now().getTime() + 1000).toISOString() });
    const revoked = (await issue({ ownerType: 'tenant', permissions: ['api-keys:keys:view'] })).body.data;
    await h.as(tenantKey).delete(`/v1/api-keys/${revoked.id}`);
    h.clock.advance(1000);
    const ids = async (status: string) =>
      (await h.as(tenantKey).get(`/v1/api-keys?status=${status}&limit=100`)).body.data.map((k: { id: string }) => k.id);
    expect(await ids('expired')).toContain(expiring.id);
    expect(await ids('active')).not.toContain(expiring.id);
    expect(await ids('revoked')).toContain(revoked.id);
    expect(await ids('active')).not.toContain(revoked.id);
    expect(await ids('active')).toContain(h.sandbox.tenantKey.id);
  });

  test('ipAllowlist is enforced against the client address', async () => {
    const far = (await issue({ ownerType: 'tenant', permissions: ['api-keys:keys:view'], ipAllowlist: ['203.0.113.0/24'] })).body.data;
    expectProblem(await h.as(far.secretKey).get('/v1/api-keys'), 403, 'IP_NOT_ALLOWED');
    // X-Forwarded-For is not trusted unless a proxy is configured
    expectProblem(await h.as(far.secretKey).get('/v1/api-keys').set('X-Forwarded-For', '203.0.113.9'), 403, 'IP_NOT_ALLOWED');
    const near = (await issue({ ownerType: 'tenant', permissions: ['api-keys:keys:view'], ipAllowlist: ['127.0.0.1', '::1'] })).body.data;
    expect((await h.as(near.secretKey).get('/v1/api-keys')).status).toBe(200);
    const bad = await issue({ ownerType: 'tenant', ipAllowlist: ['300.1.1.1'] });
    expectProblem(bad, 400, 'INVALID_IP_ALLOWLIST');
    expect(bad.body.errors[0].path).toBe('body.ipAllowlist[0]');
  });

  test('pagination: limit, cursors both ways, totalCount and sortOrder', async () => {
    const live = await createLiveTenantKey(h);
    const created: string[] = [live.id];
    for (let i = 0; i < 6; i++) {
      h.clock.advance(1000);
      created.push(
        (await h.as(live.secretKey).post('/v1/api-keys', { name: `p${i}`, ownerType: 'tenant', permissions: ['api-keys:keys:view'] })).body
          .data.id,
      );
    }
    const newestFirst = [...created].reverse();
    const p1 = await h.as(live.secretKey).get('/v1/api-keys?limit=3');
    expect(p1.body.data.map((k: { id: string }) => k.id)).toEqual(newestFirst.slice(0, 3));
    expect(p1.body.pagination).toEqual({ nextCursor: newestFirst[3], prevCursor: null, hasMore: true, totalCount: 7 });
    const p2 = await h.as(live.secretKey).get(`/v1/api-keys?limit=3&cursor=${p1.body.pagination.nextCursor}`);
    expect(p2.body.data.map((k: { id: string }) => k.id)).toEqual(newestFirst.slice(3, 6));
    expect(p2.body.pagination).toEqual({ nextCursor: newestFirst[6], prevCursor: newestFirst[0], hasMore: true, totalCount: 7 });
    const p3 = await h.as(live.secretKey).get(`/v1/api-keys?limit=3&cursor=${p2.body.pagination.nextCursor}`);
    expect(p3.body.data.map((k: { id: string }) => k.id)).toEqual(newestFirst.slice(6));
    expect(p3.body.pagination).toMatchObject({ nextCursor: null, hasMore: false, prevCursor: newestFirst[3] });
    const back = await h.as(live.secretKey).get(`/v1/api-keys?limit=3&cursor=${p3.body.pagination.prevCursor}`);
    expect(back.body.data).toEqual(p2.body.data);
    const asc = await h.as(live.secretKey).get('/v1/api-keys?limit=2&sortOrder=asc');
    expect(asc.body.data.map((k: { id: string }) => k.id)).toEqual(created.slice(0, 2));
    const defaultLimit = await h.as(live.secretKey).get('/v1/api-keys');
    expect(defaultLimit.body.data).toHaveLength(7);
  });

  test('bad input answers 400 problem+json naming the field, never 500', async () => {
    const cases: Array<[() => Promise<import('supertest').Response>, string]> = [
      [() => h.as(tenantKey).get('/v1/api-keys?limit=0'), 'query.limit'],
      [() => h.as(tenantKey).get('/v1/api-keys?limit=101'), 'query.limit'],
      [() => h.as(tenantKey).get('/v1/api-keys?limit=abc'), 'query.limit'],
      [() => h.as(tenantKey).get('/v1/api-keys?status=sleeping'), 'query.status'],
      [() => h.as(tenantKey).get('/v1/api-keys?sortOrder=up'), 'query.sortOrder'],
      [() => h.as(tenantKey).get('/v1/api-keys?cursor=zzz'), 'query.cursor'],
      [() => h.as(tenantKey).get('/v1/api-keys?cursor=00000000-0000-4000-8000-000000000000'), 'query.cursor'],
      [() => h.as(tenantKey).get('/v1/api-keys?livemode=yes'), 'query.livemode'],
      [() => issue({ name: 42 }), 'body.name'],
      [() => issue({ ownerType: 'robot' }), 'body.ownerType'],
      [() => issue({ permissions: 'payments:payments:view' }), 'body.permissions'],
      [() => issue({ expiresAt: 'tomorrow' }), 'body.expiresAt'],
      [() => issue({ livemode: 'false' }), 'body.livemode'],
      [() => issue({ merchantId: 'abc' }), 'body.merchantId'],
      [() => issue({ surprise: true }), 'body.surprise'],
      [() => issue([1, 2] as unknown as object), 'body'],
      [() => issue({ ownerType: 'tenant' }, tenantKey, 'x'.repeat(129)), 'header.Idempotency-Key'],
      [() => issue({ ownerType: 'tenant' }, tenantKey, ''), 'header.Idempotency-Key'],
      [() => h.as(tenantKey).post('/v1/api-keys/00000000-0000-4000-8000-000000000000/rotate', { graceHours: -1 }), 'body.graceHours'],
      [() => h.as(tenantKey).post('/v1/api-keys/00000000-0000-4000-8000-000000000000/rotate', { graceHours: 1.5 }), 'body.graceHours'],
      [() => issue({ name: 'a\u0000b' }), 'body.name'],
      [() => h.as(tenantKey).get('/v1/api-keys?createdBy=%00'), 'query.createdBy'],
      [() => issue({ ownerType: 'tenant', expiresAt: '9999-12-31T23:59:59.999-23:59' }), 'body.expiresAt'],
    ];
    for (const [send, field] of cases) {
      const res = await send();
      expectProblem(res, 400);
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(field);
      expect(res.body.detail).toContain(field);
    }
    const malformed = await h.as(tenantKey).post('/v1/api-keys').set('Content-Type', 'application/json').send('{"name": ');
    expectProblem(malformed, 400, 'INVALID_JSON');
    expect(malformed.body.errors[0].path).toBe('body');
    const wrongType = await h.as(tenantKey).post('/v1/api-keys').set('Content-Type', 'text/plain').send('name=x');
    expectProblem(wrongType, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  test('key changes are audited without secrets', async () => {
    const k = (await issue({ name: 'Audited', ownerType: 'tenant', permissions: ['api-keys:keys:view'] })).body.data;
    await h.as(tenantKey).delete(`/v1/api-keys/${k.id}`);
    const res = await h.as(tenantKey).get(`/v1/audit-entries?targetId=${k.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((e: { action: string }) => e.action)).toEqual(['api_key.revoked', 'api_key.created']);
    const revoked = res.body.data[0];
    expect(revoked).toMatchObject({
      actor: { type: 'api_key', id: h.sandbox.tenantKey.id },
      target: { type: 'api_key', id: k.id },
      before: { status: 'active' },
      after: { status: 'revoked' },
      requestId: expect.stringMatching(/^req_/),
    });
    expect(JSON.stringify(res.body)).not.toContain(k.secretKey);
    expect(JSON.stringify(res.body)).not.toMatch(/sk_test_[A-Za-z0-9]{20}/);
  });
});
