import { useApiHarness, createLiveTenantKey, expectProblem } from '../helpers/api';
import { dialectName } from '../helpers/db';

let platform: string;
let tenantKey: string;

const h = useApiHarness();
beforeAll(async () => {
  platform = h.sandbox.platformToken;
  tenantKey = h.sandbox.tenantKey.secretKey;
});

describe(`tenants (${dialectName})`, () => {
  test("the platform creates a tenant with the specification's record", async () => {
    const res = await h.as(platform).post('/v1/admin/tenants', {
      name: 'Acme Payments',
      defaultCurrency: 'EUR',
      defaultLocale: 'de-DE',
      allowedCurrencies: ['EUR', 'USD'],
      allowedCountries: ['DE', 'FR'],
      featureFlags: { instantPayouts: true },
      doorRateLimitPerMinute: 1200,
      contactEmail: 'ops@acme.example',
      supportUrl: 'https://acme.example/support',
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      name: 'Acme Payments',
      status: 'active',
      livemode: true,
      defaultCurrency: 'EUR',
      defaultLocale: 'de-DE',
      allowedCurrencies: ['EUR', 'USD'],
      allowedCountries: ['DE', 'FR'],
      featureFlags: { instantPayouts: true },
      doorRateLimitPerMinute: 1200,
      contactEmail: 'ops@acme.example',
      supportUrl: 'https://acme.example/support',
      logoUrl: null,
      deletedAt: null,
    });
    expect(res.body.data.tenantId).toBe(res.body.data.id);
    expect(res.body.data.platformId).toMatch(/^[0-9a-f-]{36}$/);
    const got = await h.as(platform).get(`/v1/admin/tenants/${res.body.data.id}`);
    expect(got.body.data).toEqual(res.body.data);
  });

  test('only the platform creates tenants and changes their status', async () => {
    expectProblem(await h.as(tenantKey).post('/v1/admin/tenants', { name: 'Nope' }), 403, 'LEVEL_NOT_ALLOWED');
    expectProblem(await h.as(tenantKey).post(`/v1/admin/tenants/${h.sandbox.tenantId}/suspend`), 403, 'LEVEL_NOT_ALLOWED');
    expectProblem(await h.as(h.sandbox.merchantKey.secretKey).get('/v1/admin/tenants'), 403, 'LEVEL_NOT_ALLOWED');
    expectProblem(await h.as(h.sandbox.merchantKey.secretKey).get(`/v1/admin/tenants/${h.sandbox.tenantId}`), 403);
  });

  test('a tenant caller sees only its own tenant; the platform sees all', async () => {
    const other = await createLiveTenantKey(h);
    const mine = await h.as(tenantKey).get('/v1/admin/tenants');
    expect(mine.body.data.map((t: { id: string }) => t.id)).toEqual([h.sandbox.tenantId]);
    expect(mine.body.pagination.totalCount).toBe(1);
    expectProblem(await h.as(tenantKey).get(`/v1/admin/tenants/${other.tenantId}`), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await h.as(tenantKey).patch(`/v1/admin/tenants/${other.tenantId}`, { name: 'Mine now' }), 404);
    expectProblem(await h.as(other.secretKey).get(`/v1/admin/tenants/${h.sandbox.tenantId}`), 404);
    const all = await h.as(platform).get('/v1/admin/tenants?limit=100');
    const ids = all.body.data.map((t: { id: string }) => t.id);
    expect(ids).toEqual(expect.arrayContaining([h.sandbox.tenantId, other.tenantId]));
  });

  test('a tenant updates its own settings but not the platform-controlled ones', async () => {
    const res = await h
      .as(tenantKey)
      .patch(`/v1/admin/tenants/${h.sandbox.tenantId}`, { name: 'Renamed', contactEmail: 'me@example.com', logoUrl: null });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ name: 'Renamed', contactEmail: 'me@example.com', doorRateLimitPerMinute: 600 });
    const refused = await h
      .as(tenantKey)
      .patch(`/v1/admin/tenants/${h.sandbox.tenantId}`, { doorRateLimitPerMinute: 100000, featureFlags: { x: true } });
    expectProblem(refused, 403, 'PLATFORM_ONLY_FIELD');
    expect(refused.body.errors.map((e: { path: string }) => e.path)).toEqual(['body.featureFlags', 'body.doorRateLimitPerMinute']);
    const byPlatform = await h.as(platform).patch(`/v1/admin/tenants/${h.sandbox.tenantId}`, { doorRateLimitPerMinute: 900 });
    expect(byPlatform.body.data.doorRateLimitPerMinute).toBe(900);
    const badDefault = await h.as(platform).patch(`/v1/admin/tenants/${h.sandbox.tenantId}`, { defaultCurrency: 'JPY' });
    expectProblem(badDefault, 400);
    expect(badDefault.body.errors[0].path).toBe('body.defaultCurrency');
  });

  test("status moves: suspend stops the tenant's keys, activate restores them, invalid moves answer 409", async () => {
    const t = await createLiveTenantKey(h);
    expect((await h.as(t.secretKey).get('/v1/api-keys')).status).toBe(200);
    const suspended = await h.as(platform).post(`/v1/admin/tenants/${t.tenantId}/suspend`);
    expect(suspended.status).toBe(200);
    expect(suspended.body.data.status).toBe('suspended');
    expectProblem(await h.as(t.secretKey).get('/v1/api-keys'), 403, 'TENANT_SUSPENDED');
    expectProblem(await h.as(platform).post(`/v1/admin/tenants/${t.tenantId}/suspend`), 409, 'INVALID_STATE_TRANSITION');
    expect((await h.as(platform).post(`/v1/admin/tenants/${t.tenantId}/activate`)).body.data.status).toBe('active');
    expect((await h.as(t.secretKey).get('/v1/api-keys')).status).toBe(200);
    expectProblem(await h.as(platform).post(`/v1/admin/tenants/${t.tenantId}/activate`), 409, 'INVALID_STATE_TRANSITION');
    expect((await h.as(platform).post(`/v1/admin/tenants/${t.tenantId}/disable`)).body.data.status).toBe('disabled');
    expectProblem(await h.as(t.secretKey).get('/v1/api-keys'), 403, 'TENANT_DISABLED');
    expectProblem(await h.as(platform).post(`/v1/admin/tenants/${t.tenantId}/suspend`), 409);
    expectProblem(await h.as(platform).post(`/v1/admin/tenants/${t.tenantId}/disable`), 409);
    const filtered = await h.as(platform).get('/v1/admin/tenants?status=disabled');
    expect(filtered.body.data.map((x: { id: string }) => x.id)).toContain(t.tenantId);
    expect(filtered.body.data.every((x: { status: string }) => x.status === 'disabled')).toBe(true);

    // audit entries belong to the mode they were made in: the tenant was created in live mode
    const audit = await h.as(platform).get(`/v1/audit-entries?targetId=${t.tenantId}`);
    expect(audit.body.data.map((e: { action: string }) => e.action)).toEqual(['tenant.disabled', 'tenant.activated', 'tenant.suspended']);
    expect(audit.body.data[0]).toMatchObject({
      before: { status: 'active' },
      after: { status: 'disabled' },
      actor: { type: 'user', id: h.sandbox.platformUserId },
    });
  });

  test('validation names each field', async () => {
    const res = await h.as(platform).post('/v1/admin/tenants', {
      defaultCurrency: 'eur',
      allowedCurrencies: ['EUR', 'XYZ'],
      allowedCountries: ['ZZ'],
      doorRateLimitPerMinute: 0,
      contactEmail: 'not-an-email',
      supportUrl: 'ftp://x',
      featureFlags: { a: 'yes' },
      defaultLocale: 'not a locale',
      status: 'active',
    });
    expectProblem(res, 400, 'VALIDATION_FAILED');
    const paths = res.body.errors.map((e: { path: string }) => e.path).sort();
    expect(paths).toEqual([
      'body.allowedCountries[0]',
      'body.allowedCurrencies[1]',
      'body.contactEmail',
      'body.defaultCurrency',
      'body.defaultLocale',
      'body.doorRateLimitPerMinute',
      'body.featureFlags.a',
      'body.name',
      'body.status',
      'body.supportUrl',
    ]);
    expectProblem(await h.as(platform).get('/v1/admin/tenants?status=gone'), 400);
    const longEmail = `a@${Array.from({ length: 5 }, () => 'x'.repeat(60)).join('.')}.com`;
    const tooLong = await h.as(tenantKey).patch(`/v1/admin/tenants/${h.sandbox.tenantId}`, { contactEmail: longEmail });
    expectProblem(tooLong, 400);
    expect(tooLong.body.errors[0].path).toBe('body.contactEmail');
    expectProblem(await h.as(platform).get('/v1/admin/tenants/not-a-uuid'), 404);
    expectProblem(await h.as(platform).post('/v1/admin/tenants/00000000-0000-4000-8000-000000000000/activate'), 404);
  });

  test('POST replays the first response for the same Idempotency-Key; another body is 409', async () => {
    const body = { name: 'Idempotent tenant' };
    const first = await h.as(platform).post('/v1/admin/tenants', body).set('Idempotency-Key', 'tenant-1');
    expect(first.status).toBe(201);
    const again = await h.as(platform).post('/v1/admin/tenants', body).set('Idempotency-Key', 'tenant-1');
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expectProblem(
      await h.as(platform).post('/v1/admin/tenants', { name: 'Other' }).set('Idempotency-Key', 'tenant-1'),
      409,
      'IDEMPOTENCY_KEY_REUSED',
    );

    const raced = await Promise.all(
      Array.from({ length: 10 }, () =>
        h.as(platform).post('/v1/admin/tenants', { name: 'Raced tenant' }).set('Idempotency-Key', 'tenant-race'),
      ),
    );
    expect(raced.every((r) => r.status === 201)).toBe(true);
    expect(new Set(raced.map((r) => r.body.data.id)).size).toBe(1);
    const named = (await h.as(platform).get('/v1/admin/tenants?limit=100')).body.data.filter(
      (t: { name: string }) => t.name === 'Raced tenant',
    );
    expect(named).toHaveLength(1);

    // a failed request does not consume its key
    const bad = await h.as(platform).post('/v1/admin/tenants/00000000-0000-4000-8000-000000000000/suspend').set('Idempotency-Key', 'k-404');
    expectProblem(bad, 404);
    const ok = await h.as(platform).post('/v1/admin/tenants', { name: 'After failure' }).set('Idempotency-Key', 'k-fresh');
    expect(ok.status).toBe(201);
  });
});

describe(`the sandbox (${dialectName})`, () => {
  test('comes with an active fee schedule assigned at tenant level for card payments and withdrawals in EUR and USD', async () => {
    const schedules = await h.as(h.sandbox.tenantKey.secretKey).get('/v1/admin/fee-schedules?status=active');
    expect(schedules.body.data).toHaveLength(1);
    const assignments = await h
      .as(h.sandbox.tenantKey.secretKey)
      .get(`/v1/admin/fee-assignments?level=tenant&feeScheduleId=${schedules.body.data[0].id}`);
    expect(
      assignments.body.data
        .map((a: { currency: string; paymentMethod: string; targetEntityId: string }) => [a.currency, a.paymentMethod, a.targetEntityId])
        .sort(),
    ).toEqual([
      ['EUR', 'bank_transfer', h.sandbox.tenantId],
      ['EUR', 'card', h.sandbox.tenantId],
      ['USD', 'bank_transfer', h.sandbox.tenantId],
      ['USD', 'card', h.sandbox.tenantId],
    ]);
  });

  test('comes with a checkout integration profile for its merchant', async () => {
    const profiles = await h.as(h.sandbox.tenantKey.secretKey).get(`/v1/admin/integration-profiles?merchantId=${h.sandbox.merchantId}`);
    expect(profiles.body.data).toEqual([
      expect.objectContaining({ merchantId: h.sandbox.merchantId, mode: 'checkout', sessionLifetime: 3600, status: 'enabled' }),
    ]);
  });
});
