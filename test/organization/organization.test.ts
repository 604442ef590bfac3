import request from 'supertest';
import { useApiHarness, createLiveTenantKey, expectProblem } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { operatorContext } from '../../src/services/access/operators';
import { createApiKey } from '../../src/services/api-keys/keys';

let platform: string;
let tenantKey: string;
let merchantKey: string;
let other: { tenantId: string; secretKey: string };

const h = useApiHarness();
beforeAll(async () => {
  platform = h.sandbox.platformToken;
  tenantKey = h.sandbox.tenantKey.secretKey;
  merchantKey = h.sandbox.merchantKey.secretKey;
  other = await createLiveTenantKey(h);
});

let seq = 0;
async function company(body: Record<string, unknown> = {}, key = tenantKey): Promise<any> {
  const tenant = key === platform ? { tenantId: h.sandbox.tenantId } : {};
  const res = await h.as(key).post('/v1/admin/companies', { name: `Company ${++seq}`, country: 'DE', ...tenant, ...body });
  if (res.status !== 201) throw new Error(`company create: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

async function merchant(companyId: string, body: Record<string, unknown> = {}, key = tenantKey): Promise<any> {
  const res = await h.as(key).post('/v1/admin/merchants', { companyId, name: `Merchant ${++seq}`, ...body });
  if (res.status !== 201) throw new Error(`merchant create: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/** A sandbox secret key owned by the merchant (issued as the merchant itself, like the sandbox does). */
async function merchantKeyFor(m: { id: string; tenantId: string }): Promise<string> {
  const ctx = operatorContext(h.rt, { level: 'merchant', tenantId: m.tenantId, merchantId: m.id, livemode: false });
  return (await createApiKey(ctx, { ownerType: 'merchant', livemode: false })).secretKey;
}

async function auditActions(targetId: string, key = tenantKey): Promise<string[]> {
  const res = await h.as(key).get(`/v1/audit-entries?targetId=${targetId}&limit=100&sortOrder=asc`);
  expect(res.status).toBe(200);
  return res.body.data.map((e: { action: string }) => e.action);
}

const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((r) => r.id);

describe(`companies (${dialectName})`, () => {
  test("a tenant creates a company with the specification's record; get returns the same record", async () => {
    const res = await h.as(tenantKey).post('/v1/admin/companies', {
      name: 'Acme Trading',
      legalName: 'Acme Trading GmbH',
      legalAddress: 'Hauptstr. 1, 10115 Berlin',
      country: 'DE',
      registrationNumber: 'HRB 12345',
      businessType: 'gmbh',
      contactPerson: 'Ada Lovelace',
      contactEmail: 'ada@acme.example',
      contactPhone: '+49 30 1234567',
      website: 'https://acme.example',
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      tenantId: h.sandbox.tenantId,
      livemode: false,
      name: 'Acme Trading',
      legalName: 'Acme Trading GmbH',
      legalAddress: 'Hauptstr. 1, 10115 Berlin',
      country: 'DE',
      registrationNumber: 'HRB 12345',
      businessType: 'gmbh',
      contactPerson: 'Ada Lovelace',
      contactEmail: 'ada@acme.example',
      contactPhone: '+49 30 1234567',
      website: 'https://acme.example',
      status: 'active',
      createdAt: '2026-03-01T12:00:00.000Z',
      updatedAt: '2026-03-01T12:00:00.000Z',
      deletedAt: null,
    });
    const got = await h.as(tenantKey).get(`/v1/admin/companies/${res.body.data.id}`);
    expect(got.body.data).toEqual(res.body.data);
    expect(await auditActions(res.body.data.id)).toEqual(['company.created']);
    // only name and country are required; legalName defaults to the name
    const minimal = await company({ name: 'Minimal Ltd', country: 'GB' });
    expect(minimal).toMatchObject({ name: 'Minimal Ltd', legalName: 'Minimal Ltd', country: 'GB', website: null, contactEmail: null });
  });

  test('invalid bodies answer 400 naming the field', async () => {
    const missing = await h.as(tenantKey).post('/v1/admin/companies', {});
    expectProblem(missing, 400);
    expect(missing.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['body.country', 'body.name']);
    const bad = await h
      .as(tenantKey)
      .post('/v1/admin/companies', { name: 'X', country: 'de', contactEmail: 'nope', website: 'ftp://x', extra: 1 });
    expectProblem(bad, 400);
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      'body.contactEmail',
      'body.country',
      'body.extra',
      'body.website',
    ]);
    expectProblem(await h.as(tenantKey).post('/v1/admin/companies', { name: 'X', country: 'XX' }), 400);
    const empty = await h.as(tenantKey).patch(`/v1/admin/companies/${h.sandbox.companyId}`, {});
    expectProblem(empty, 400);
  });

  test('platform callers name the tenant; tenant callers cannot create in another tenant', async () => {
    const noTenant = await h.as(platform).post('/v1/admin/companies', { name: 'P', country: 'DE' });
    expectProblem(noTenant, 400);
    expect(noTenant.body.errors[0].path).toBe('body.tenantId');
    const unknown = await h
      .as(platform)
      .post('/v1/admin/companies', { name: 'P', country: 'DE', tenantId: '00000000-0000-4000-8000-000000000000' });
    expectProblem(unknown, 404);
    const byPlatform = await company({ name: 'Platform-made' }, platform);
    expect(byPlatform.tenantId).toBe(h.sandbox.tenantId);
    expect((await h.as(tenantKey).get(`/v1/admin/companies/${byPlatform.id}`)).status).toBe(200);
    expectProblem(await h.as(tenantKey).post('/v1/admin/companies', { name: 'T', country: 'DE', tenantId: other.tenantId }), 404);
    const own = await company({ tenantId: h.sandbox.tenantId });
    expect(own.tenantId).toBe(h.sandbox.tenantId);
  });

  test('search: 1 and 256 characters work, 0 and 257 are 400; case-insensitive over name and legalName, literal', async () => {
    const long = 'L'.repeat(250) + 'ongest';
    expect(long).toHaveLength(256);
    const a = await company({ name: 'Zyx Müller Handel', legalName: 'Qwerty Holding AG' });
    const b = await company({ name: long });
    const c = await company({ name: '100% Pure_Juice' });

    const one = await h.as(tenantKey).get('/v1/admin/companies?search=%C3%BC&limit=100'); // "ü"
    expect(one.status).toBe(200);
    expect(ids(one)).toContain(a.id);
    const full = await h.as(tenantKey).get(`/v1/admin/companies?search=${encodeURIComponent(long.toLowerCase())}`);
    expect(full.status).toBe(200);
    expect(ids(full)).toEqual([b.id]);

    const zero = await h.as(tenantKey).get('/v1/admin/companies?search=');
    expectProblem(zero, 400);
    expect(zero.body.errors[0].path).toBe('query.search');
    const tooLong = await h.as(tenantKey).get(`/v1/admin/companies?search=${'a'.repeat(257)}`);
    expectProblem(tooLong, 400);
    expect(tooLong.body.errors[0].path).toBe('query.search');

    expect(ids(await h.as(tenantKey).get('/v1/admin/companies?search=M%C3%9CLLER'))).toEqual([a.id]); // MÜLLER
    expect(ids(await h.as(tenantKey).get('/v1/admin/companies?search=qwerty%20HOLDING'))).toEqual([a.id]); // legal name
    expect(ids(await h.as(tenantKey).get('/v1/admin/companies?search=0%25%20p'))).toEqual([c.id]); // "0% p"
    expect(ids(await h.as(tenantKey).get('/v1/admin/companies?search=%25'))).toEqual([c.id]); // % is no wildcard
    expect(ids(await h.as(tenantKey).get('/v1/admin/companies?search=e_j'))).toEqual([c.id]); // _ is no wildcard
    expect(ids(await h.as(tenantKey).get('/v1/admin/companies?search=no-such-company'))).toEqual([]);
    // the other tenant does not find them
    expect(ids(await h.as(other.secretKey).get('/v1/admin/companies?search=qwerty&livemode=false'))).toEqual([]);
  });

  test("filters: country, livemode (the caller's mode; the other mode an empty page), status; pagination", async () => {
    const fr1 = await company({ country: 'FR' });
    const fr2 = await company({ country: 'FR' });
    const fr = await h.as(tenantKey).get('/v1/admin/companies?country=FR');
    expect(ids(fr)).toEqual([fr2.id, fr1.id]);
    const page1 = await h.as(tenantKey).get('/v1/admin/companies?country=FR&limit=1&sortOrder=asc');
    expect(ids(page1)).toEqual([fr1.id]);
    expect(page1.body.pagination).toMatchObject({ hasMore: true, totalCount: 2, nextCursor: fr2.id });
    expectProblem(await h.as(tenantKey).get('/v1/admin/companies?country=fr'), 400);

    // the live tenant's live-mode company is listed in live mode, or with livemode=true
    const live = await company({ country: 'NL' }, other.secretKey);
    expect(live.livemode).toBe(true);
    expect(ids(await h.as(other.secretKey).get('/v1/admin/companies'))).toEqual([live.id]);
    expect(ids(await h.as(other.secretKey).get('/v1/admin/companies?livemode=false'))).toEqual([]);
    expect(ids(await h.as(platform).get('/v1/admin/companies?country=NL'))).toEqual([]);
    // a caller works in one mode (issue 20): livemode=true from a sandbox caller is an empty page, not the live rows
    expect(ids(await h.as(platform).get('/v1/admin/companies?country=NL&livemode=true'))).toEqual([]);
    expect(ids(await h.as(platform).get(`/v1/admin/companies?livemode=true&tenantId=${h.sandbox.tenantId}`))).toEqual([]);
    expectProblem(await h.as(platform).get('/v1/admin/companies?livemode=yes'), 400);
    // and the live company does not exist for a sandbox caller
    expectProblem(await h.as(platform).get(`/v1/admin/companies/${live.id}`), 404);
    expect((await h.as(other.secretKey).get(`/v1/admin/companies/${live.id}`)).body.data.id).toBe(live.id);

    const all = await h.as(tenantKey).get('/v1/admin/companies?limit=100');
    expect(ids(all)).toContain(h.sandbox.companyId);
    expect(ids(all)).not.toContain(live.id);
  });

  test('update and disable; a disabled company takes no new merchants; 409 on a second disable', async () => {
    const c = await company({ name: 'Before' });
    h.clock.advance(1000);
    const upd = await h
      .as(tenantKey)
      .patch(`/v1/admin/companies/${c.id}`, { name: 'After', website: null, contactEmail: 'x@after.example', legalName: 'After Legal SE' });
    expect(upd.status).toBe(200);
    expect(upd.body.data).toMatchObject({
      name: 'After',
      legalName: 'After Legal SE',
      contactEmail: 'x@after.example',
      website: null,
      country: 'DE',
    });
    expect(upd.body.data.updatedAt).not.toBe(c.updatedAt);
    expect(ids(await h.as(tenantKey).get('/v1/admin/companies?search=after%20legal'))).toEqual([c.id]);
    expect(ids(await h.as(tenantKey).get('/v1/admin/companies?search=before'))).toEqual([]);
    expectProblem(await h.as(tenantKey).patch(`/v1/admin/companies/${c.id}`, { tenantId: other.tenantId }), 400);

    const m = await merchant(c.id);
    const dis = await h.as(tenantKey).post(`/v1/admin/companies/${c.id}/disable`);
    expect(dis.status).toBe(200);
    expect(dis.body.data.status).toBe('disabled');
    expectProblem(await h.as(tenantKey).post(`/v1/admin/companies/${c.id}/disable`), 409, 'INVALID_STATE_TRANSITION');
    expectProblem(await h.as(tenantKey).post('/v1/admin/merchants', { companyId: c.id, name: 'Late' }), 409, 'COMPANY_DISABLED');
    expect((await h.as(tenantKey).get(`/v1/admin/merchants/${m.id}`)).body.data.status).toBe('active');
    expect(ids(await h.as(tenantKey).get('/v1/admin/companies?status=disabled'))).toEqual([c.id]);
    expect(await auditActions(c.id)).toEqual(['company.created', 'company.updated', 'company.disabled']);
  });

  test('merchants of a company', async () => {
    const c = await company();
    const m1 = await merchant(c.id);
    const m2 = await merchant(c.id);
    await merchant((await company()).id);
    const res = await h.as(tenantKey).get(`/v1/admin/companies/${c.id}/merchants`);
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([m2.id, m1.id]);
    expect(res.body.pagination).toEqual({ nextCursor: null, prevCursor: null, hasMore: false, totalCount: 2 });
    await h.as(tenantKey).post(`/v1/admin/merchants/${m1.id}/suspend`);
    expect(ids(await h.as(tenantKey).get(`/v1/admin/companies/${c.id}/merchants?status=suspended`))).toEqual([m1.id]);
    expect(ids(await h.as(platform).get(`/v1/admin/companies/${c.id}/merchants?limit=1`))).toEqual([m2.id]);
    expectProblem(await h.as(tenantKey).get('/v1/admin/companies/00000000-0000-4000-8000-000000000000/merchants'), 404);
  });

  test("cross-tenant: another tenant's companies are 404 for every operation", async () => {
    const c = await company();
    const x = other.secretKey;
    expectProblem(await h.as(x).get(`/v1/admin/companies/${c.id}`), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await h.as(x).patch(`/v1/admin/companies/${c.id}`, { name: 'Mine' }), 404);
    expectProblem(await h.as(x).post(`/v1/admin/companies/${c.id}/disable`), 404);
    expectProblem(await h.as(x).get(`/v1/admin/companies/${c.id}/merchants`), 404);
    const foreign = await h.as(x).post('/v1/admin/merchants', { companyId: c.id, name: 'Sneaky' });
    expectProblem(foreign, 404);
    expect(foreign.body.errors[0].path).toBe('body.companyId');
    expectProblem(await h.as(tenantKey).get('/v1/admin/companies/not-a-uuid'), 404);
  });

  test('merchant callers may not use company operations (403)', async () => {
    expectProblem(await h.as(merchantKey).get('/v1/admin/companies'), 403, 'LEVEL_NOT_ALLOWED');
    expectProblem(await h.as(merchantKey).get(`/v1/admin/companies/${h.sandbox.companyId}`), 403, 'LEVEL_NOT_ALLOWED');
    expectProblem(await h.as(merchantKey).post('/v1/admin/companies', { name: 'M', country: 'DE' }), 403, 'LEVEL_NOT_ALLOWED');
    expectProblem(await h.as(merchantKey).patch(`/v1/admin/companies/${h.sandbox.companyId}`, { name: 'M' }), 403, 'LEVEL_NOT_ALLOWED');
    expectProblem(await h.as(merchantKey).post(`/v1/admin/companies/${h.sandbox.companyId}/disable`), 403, 'LEVEL_NOT_ALLOWED');
    expectProblem(await h.as(merchantKey).get(`/v1/admin/companies/${h.sandbox.companyId}/merchants`), 403, 'LEVEL_NOT_ALLOWED');
  });
});

describe(`merchants (${dialectName})`, () => {
  test('create: the record starts active and in sandbox, with defaults; the platform may create too', async () => {
    const c = await company();
    const res = await h
      .as(tenantKey)
      .post('/v1/admin/merchants', { companyId: c.id, name: 'Shop', defaultCurrency: 'USD', mcc: '5734', website: 'https://shop.example' });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      tenantId: h.sandbox.tenantId,
      companyId: c.id,
      name: 'Shop',
      status: 'active',
      liveStatus: 'sandbox',
      defaultCurrency: 'USD',
      mcc: '5734',
      website: 'https://shop.example',
      checkoutHosting: 'self_hosted',
      processingMode: 'principal',
      threeDsConfig: { enabled: true, challengePreference: 'no_preference', exemptions: [] },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      deletedAt: null,
    });
    expect((await h.as(tenantKey).get(`/v1/admin/merchants/${res.body.data.id}`)).body.data).toEqual(res.body.data);
    expect(await auditActions(res.body.data.id)).toEqual(['merchant.created']);
    const byPlatform = await merchant(c.id, {}, platform);
    expect(byPlatform.tenantId).toBe(h.sandbox.tenantId);
    const minimal = await merchant(c.id);
    expect(minimal).toMatchObject({ defaultCurrency: null, mcc: null, website: null });
  });

  test('create and update validate their input (400 naming the field)', async () => {
    const missing = await h.as(tenantKey).post('/v1/admin/merchants', {});
    expectProblem(missing, 400);
    expect(missing.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['body.companyId', 'body.name']);
    const bad = await h
      .as(tenantKey)
      .post('/v1/admin/merchants', { companyId: h.sandbox.companyId, name: 'X', mcc: '57a4', defaultCurrency: 'eur', website: 'nope' });
    expectProblem(bad, 400);
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['body.defaultCurrency', 'body.mcc', 'body.website']);
    const notAllowed = await h
      .as(tenantKey)
      .post('/v1/admin/merchants', { companyId: h.sandbox.companyId, name: 'X', defaultCurrency: 'JPY' });
    expectProblem(notAllowed, 400);
    expect(notAllowed.body.errors[0].path).toBe('body.defaultCurrency');
    expectProblem(await h.as(tenantKey).post('/v1/admin/merchants', { companyId: '00000000-0000-4000-8000-000000000000', name: 'X' }), 404);
    expectProblem(await h.as(tenantKey).patch(`/v1/admin/merchants/${h.sandbox.merchantId}`, { mcc: '123' }), 400);
    expectProblem(await h.as(tenantKey).patch(`/v1/admin/merchants/${h.sandbox.merchantId}`, { status: 'disabled' }), 400);
    expectProblem(await h.as(tenantKey).patch(`/v1/admin/merchants/${h.sandbox.merchantId}`, {}), 400);
  });

  test('update changes the given fields and is audited', async () => {
    const m = await merchant((await company()).id, { mcc: '5411' });
    const res = await h
      .as(tenantKey)
      .patch(`/v1/admin/merchants/${m.id}`, { name: 'Renamed', mcc: null, defaultCurrency: 'EUR', website: 'http://renamed.example' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      name: 'Renamed',
      mcc: null,
      defaultCurrency: 'EUR',
      website: 'http://renamed.example',
      status: 'active',
    });
    expectProblem(await h.as(tenantKey).patch(`/v1/admin/merchants/${m.id}`, { defaultCurrency: 'JPY' }), 400);
    expect(await auditActions(m.id)).toEqual(['merchant.created', 'merchant.updated']);
  });

  test("merchant.created reaches a tenant webhook endpoint's deliveries, with the merchant record as data", async () => {
    const ep = await h
      .as(tenantKey)
      .post('/v1/admin/webhook-endpoints', { url: 'https://hooks.example.test/x', events: ['merchant.created'] });
    expect(ep.status).toBe(201);
    const m = await merchant((await company()).id);
    const list = await h.as(tenantKey).get(`/v1/admin/webhook-deliveries?endpoint_id=${ep.body.data.id}`);
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({
      eventType: 'merchant.created',
      status: 'pending',
      tenantId: h.sandbox.tenantId,
      livemode: false,
    });
    const event = await h.rt.db.models.Event.findOne({ where: { id: list.body.data[0].eventId } });
    expect(event!.get('type')).toBe('merchant.created');
    expect(event!.get('tenantId')).toBe(h.sandbox.tenantId);
    expect(event!.get('data')).toEqual(m);
    // the merchant's own endpoints never get it (a tenant-level event), and a failed create emits nothing
    await h.as(tenantKey).post('/v1/admin/merchants', { companyId: h.sandbox.companyId, name: 'X', defaultCurrency: 'JPY' });
    expect((await h.as(tenantKey).get(`/v1/admin/webhook-deliveries?endpoint_id=${ep.body.data.id}`)).body.data).toHaveLength(1);
    await h.as(tenantKey).delete(`/v1/admin/webhook-endpoints/${ep.body.data.id}`);
  });

  test('list: filters; a merchant caller sees only itself', async () => {
    const c = await company();
    const m1 = await merchant(c.id);
    const m2 = await merchant(c.id);
    await h.as(tenantKey).post(`/v1/admin/merchants/${m2.id}/suspend`);
    expect(ids(await h.as(tenantKey).get(`/v1/admin/merchants?companyId=${c.id}`))).toEqual([m2.id, m1.id]);
    expect(ids(await h.as(tenantKey).get(`/v1/admin/merchants?companyId=${c.id}&status=active`))).toEqual([m1.id]);
    expect(ids(await h.as(tenantKey).get(`/v1/admin/merchants?companyId=${c.id}&liveStatus=pending_approval`))).toEqual([]);
    expectProblem(await h.as(tenantKey).get('/v1/admin/merchants?status=paused'), 400);
    const all = await h.as(tenantKey).get('/v1/admin/merchants?limit=100');
    expect(ids(all)).toEqual(expect.arrayContaining([h.sandbox.merchantId, m1.id, m2.id]));

    const mine = await h.as(merchantKey).get('/v1/admin/merchants?limit=100');
    expect(mine.status).toBe(200);
    expect(ids(mine)).toEqual([h.sandbox.merchantId]);
    expect(mine.body.pagination.totalCount).toBe(1);
    expect(ids(await h.as(merchantKey).get(`/v1/admin/merchants?companyId=${c.id}`))).toEqual([]);
    expect((await h.as(merchantKey).get(`/v1/admin/merchants/${h.sandbox.merchantId}`)).body.data.id).toBe(h.sandbox.merchantId);
    expectProblem(await h.as(merchantKey).get(`/v1/admin/merchants/${m1.id}`), 404);
    expectProblem(await h.as(merchantKey).get(`/v1/admin/merchants/${m1.id}/3ds-config`), 404);
    expect((await h.as(merchantKey).get(`/v1/admin/merchants/${h.sandbox.merchantId}/3ds-config`)).status).toBe(200);
  });

  test('merchant callers get 403 on tenant-only operations', async () => {
    const id = h.sandbox.merchantId;
    const m = h.as(merchantKey);
    const calls = [
      m.post('/v1/admin/merchants', { companyId: h.sandbox.companyId, name: 'X' }),
      m.patch(`/v1/admin/merchants/${id}`, { name: 'X' }),
      m.post(`/v1/admin/merchants/${id}/activate`),
      m.post(`/v1/admin/merchants/${id}/suspend`),
      m.post(`/v1/admin/merchants/${id}/disable`),
      m.post(`/v1/admin/merchants/${id}/approve-live`),
      m.post(`/v1/admin/merchants/${id}/reject-live`),
      m.put(`/v1/admin/merchants/${id}/3ds-config`, { enabled: false }),
      m.put(`/v1/admin/merchants/${id}/checkout-hosting`, { checkoutHosting: 'provider_hosted' }),
      m.put(`/v1/admin/merchants/${id}/processing-mode`, { processingMode: 'passthrough' }),
    ];
    for (const res of await Promise.all(calls)) expectProblem(res, 403, 'LEVEL_NOT_ALLOWED');
    // the platform may not ask for live approval on a merchant's behalf (levels M T)
    expectProblem(await h.as(platform).post(`/v1/admin/merchants/${id}/request-live-approval`), 403, 'LEVEL_NOT_ALLOWED');
    expect((await h.as(tenantKey).get(`/v1/admin/merchants/${id}`)).body.data).toMatchObject({ status: 'active', liveStatus: 'sandbox' });
  });

  test("cross-tenant: another tenant's merchants are 404 for every operation", async () => {
    const m = await merchant((await company()).id);
    const x = h.as(other.secretKey);
    const calls = [
      x.get(`/v1/admin/merchants/${m.id}`),
      x.patch(`/v1/admin/merchants/${m.id}`, { name: 'X' }),
      x.post(`/v1/admin/merchants/${m.id}/suspend`),
      x.post(`/v1/admin/merchants/${m.id}/activate`),
      x.post(`/v1/admin/merchants/${m.id}/disable`),
      x.post(`/v1/admin/merchants/${m.id}/request-live-approval`),
      x.post(`/v1/admin/merchants/${m.id}/approve-live`),
      x.post(`/v1/admin/merchants/${m.id}/reject-live`),
      x.get(`/v1/admin/merchants/${m.id}/3ds-config`),
      x.put(`/v1/admin/merchants/${m.id}/3ds-config`, { enabled: false }),
      x.put(`/v1/admin/merchants/${m.id}/checkout-hosting`, { checkoutHosting: 'provider_hosted' }),
      x.put(`/v1/admin/merchants/${m.id}/processing-mode`, { processingMode: 'passthrough' }),
    ];
    for (const res of await Promise.all(calls)) expectProblem(res, 404, 'RESOURCE_NOT_FOUND');
    expect(ids(await x.get('/v1/admin/merchants?limit=100'))).not.toContain(m.id);
    expect((await h.as(tenantKey).get(`/v1/admin/merchants/${m.id}`)).body.data).toEqual(m);
  });

  test("suspend and disable stop the merchant's keys (403 with the reason); activate restores them; invalid moves are 409", async () => {
    const m = await merchant((await company()).id);
    const key = await merchantKeyFor(m);
    expect((await h.as(key).get('/v1/admin/merchants')).status).toBe(200);

    const suspended = await h.as(tenantKey).post(`/v1/admin/merchants/${m.id}/suspend`);
    expect(suspended.status).toBe(200);
    expect(suspended.body.data.status).toBe('suspended');
    expectProblem(await h.as(key).get('/v1/admin/merchants'), 403, 'MERCHANT_SUSPENDED');
    expectProblem(await h.as(key).get('/v1/api-keys'), 403, 'MERCHANT_SUSPENDED');
    expectProblem(await h.as(tenantKey).post(`/v1/admin/merchants/${m.id}/suspend`), 409, 'INVALID_STATE_TRANSITION');

    expect((await h.as(tenantKey).post(`/v1/admin/merchants/${m.id}/activate`)).body.data.status).toBe('active');
    expect((await h.as(key).get('/v1/admin/merchants')).status).toBe(200);
    expectProblem(await h.as(tenantKey).post(`/v1/admin/merchants/${m.id}/activate`), 409, 'INVALID_STATE_TRANSITION');

    expect((await h.as(platform).post(`/v1/admin/merchants/${m.id}/disable`)).body.data.status).toBe('disabled');
    expectProblem(await h.as(key).get('/v1/admin/merchants'), 403, 'MERCHANT_DISABLED');
    expectProblem(await h.as(tenantKey).post(`/v1/admin/merchants/${m.id}/disable`), 409, 'INVALID_STATE_TRANSITION');
    expectProblem(await h.as(tenantKey).post(`/v1/admin/merchants/${m.id}/suspend`), 409, 'INVALID_STATE_TRANSITION');
    // the other merchants' keys are untouched
    expect((await h.as(merchantKey).get('/v1/admin/merchants')).status).toBe(200);

    expect((await h.as(tenantKey).post(`/v1/admin/merchants/${m.id}/activate`)).body.data.status).toBe('active');
    expect((await h.as(key).get('/v1/admin/merchants')).status).toBe(200);
    expect(await auditActions(m.id)).toEqual([
      'merchant.created',
      'merchant.suspended',
      'merchant.activated',
      'merchant.disabled',
      'merchant.activated',
    ]);
  });

  test('live approval: request (M T), reject back to sandbox; the moves answer 409 from the wrong liveStatus', async () => {
    const m = await merchant((await company()).id);
    const key = await merchantKeyFor(m);
    expectProblem(await h.as(tenantKey).post(`/v1/admin/merchants/${m.id}/reject-live`), 409, 'INVALID_STATE_TRANSITION');

    const requested = await h.as(key).post(`/v1/admin/merchants/${m.id}/request-live-approval`);
    expect(requested.status).toBe(200);
    expect(requested.body.data.liveStatus).toBe('pending_approval');
    expectProblem(await h.as(key).post(`/v1/admin/merchants/${m.id}/request-live-approval`), 409, 'INVALID_STATE_TRANSITION');
    expectProblem(await h.as(tenantKey).post(`/v1/admin/merchants/${m.id}/request-live-approval`), 409, 'INVALID_STATE_TRANSITION');
    // a merchant asks for itself only
    expectProblem(await h.as(merchantKey).post(`/v1/admin/merchants/${m.id}/request-live-approval`), 404);

    const rejected = await h.as(platform).post(`/v1/admin/merchants/${m.id}/reject-live`);
    expect(rejected.status).toBe(200);
    expect(rejected.body.data.liveStatus).toBe('sandbox');
    expectProblem(await h.as(tenantKey).post(`/v1/admin/merchants/${m.id}/reject-live`), 409, 'INVALID_STATE_TRANSITION');

    expect((await h.as(tenantKey).post(`/v1/admin/merchants/${m.id}/request-live-approval`)).body.data.liveStatus).toBe('pending_approval');
    expect(ids(await h.as(tenantKey).get('/v1/admin/merchants?liveStatus=pending_approval'))).toEqual([m.id]);
    expect(await auditActions(m.id)).toEqual([
      'merchant.created',
      'merchant.live_approval_requested',
      'merchant.live_rejected',
      'merchant.live_approval_requested',
    ]);
  });

  test('approve-live without an approved KYB submission of the company is 409 KYB_NOT_APPROVED and changes nothing', async () => {
    const m = await merchant((await company()).id);
    await h.as(tenantKey).post(`/v1/admin/merchants/${m.id}/request-live-approval`);
    expectProblem(await h.as(tenantKey).post(`/v1/admin/merchants/${m.id}/approve-live`), 409, 'KYB_NOT_APPROVED');
    expectProblem(await h.as(platform).post(`/v1/admin/merchants/${m.id}/approve-live`), 409, 'KYB_NOT_APPROVED');
    const fresh = await merchant((await company()).id);
    expectProblem(await h.as(tenantKey).post(`/v1/admin/merchants/${fresh.id}/approve-live`), 409, 'KYB_NOT_APPROVED');
    expect((await h.as(tenantKey).get(`/v1/admin/merchants/${m.id}`)).body.data.liveStatus).toBe('pending_approval');
    expect(await auditActions(m.id)).toEqual(['merchant.created', 'merchant.live_approval_requested']);
  });

  test('approve-live with an approved KYB submission of the company moves the merchant to approved', async () => {
    const m = await merchant((await company()).id);
    const key = await merchantKeyFor(m);
    // the company's KYB: draft with data, one PDF, submitted, the document accepted, the submission approved
    const draft = await h.as(key).post('/v1/kyb-submissions', {
      data: {
        legalName: 'Live Ready GmbH',
        registrationNumber: 'HRB 1',
        country: 'DE',
        incorporationDate: '2019-04-01',
        registeredAddress: { line1: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
        owners: [{ name: 'Ada Lovelace', ownershipPercent: 100 }],
      },
    });
    expect(draft.status).toBe(201);
    const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(500, 7)]);
    const upload = await request(h.app)
      .post(`/v1/kyb-submissions/${draft.body.data.id}/documents?type=certificate_of_incorporation`)
      .set('Authorization', `Bearer ${key}`)
      .set('Content-Type', 'application/pdf')
      .send(pdf);
    expect(upload.status).toBe(201);
    expect((await h.as(key).post(`/v1/kyb-submissions/${draft.body.data.id}/submit`)).status).toBe(200);
    await h.as(key).post(`/v1/admin/merchants/${m.id}/request-live-approval`);
    // submitted is not approved yet
    expectProblem(await h.as(tenantKey).post(`/v1/admin/merchants/${m.id}/approve-live`), 409, 'KYB_NOT_APPROVED');
    const documentId = upload.body.data.documents[0].id;
    expect(
      (
        await h
          .as(tenantKey)
          .post(`/v1/admin/kyb-submissions/${draft.body.data.id}/documents/${documentId}/verdict`, { verdict: 'accepted' })
      ).status,
    ).toBe(200);
    expect((await h.as(tenantKey).post(`/v1/admin/kyb-submissions/${draft.body.data.id}/approve`, {})).status).toBe(200);

    const approved = await h.as(tenantKey).post(`/v1/admin/merchants/${m.id}/approve-live`);
    expect(approved.status).toBe(200);
    expect(approved.body.data.liveStatus).toBe('approved');
    expectProblem(await h.as(tenantKey).post(`/v1/admin/merchants/${m.id}/approve-live`), 409, 'INVALID_STATE_TRANSITION');
    expect(await auditActions(m.id)).toEqual(['merchant.created', 'merchant.live_approval_requested', 'merchant.live_approved']);
  });

  test('a merchant not approved for live cannot get live keys (403 MERCHANT_NOT_LIVE)', async () => {
    const c = await company({}, other.secretKey);
    const m = await merchant(c.id, {}, other.secretKey);
    const res = await h.as(other.secretKey).post('/v1/api-keys', { ownerType: 'merchant', merchantId: m.id, livemode: true });
    expectProblem(res, 403, 'MERCHANT_NOT_LIVE');
  });

  test('3DS configuration: default, replace, validation', async () => {
    const m = await merchant((await company()).id);
    const got = await h.as(tenantKey).get(`/v1/admin/merchants/${m.id}/3ds-config`);
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual({ enabled: true, challengePreference: 'no_preference', exemptions: [] });

    const put = await h.as(tenantKey).put(`/v1/admin/merchants/${m.id}/3ds-config`, {
      enabled: true,
      challengePreference: 'challenge_requested',
      exemptions: ['low_value', 'recurring'],
    });
    expect(put.status).toBe(200);
    expect(put.body.data.threeDsConfig).toEqual({
      enabled: true,
      challengePreference: 'challenge_requested',
      exemptions: ['low_value', 'recurring'],
    });
    expect((await h.as(platform).get(`/v1/admin/merchants/${m.id}/3ds-config`)).body.data).toEqual(put.body.data.threeDsConfig);
    // PUT replaces the whole configuration
    const replaced = await h.as(platform).put(`/v1/admin/merchants/${m.id}/3ds-config`, { enabled: false });
    expect(replaced.body.data.threeDsConfig).toEqual({ enabled: false, challengePreference: 'no_preference', exemptions: [] });

    const dup = await h
      .as(tenantKey)
      .put(`/v1/admin/merchants/${m.id}/3ds-config`, { enabled: true, exemptions: ['low_value', 'low_value'] });
    expectProblem(dup, 400);
    expect(dup.body.errors[0].path).toBe('body.exemptions[1]');
    const mandated = await h
      .as(tenantKey)
      .put(`/v1/admin/merchants/${m.id}/3ds-config`, { enabled: false, challengePreference: 'challenge_mandated' });
    expectProblem(mandated, 400);
    expect(mandated.body.errors[0].path).toBe('body.challengePreference');
    const missing = await h.as(tenantKey).put(`/v1/admin/merchants/${m.id}/3ds-config`, {});
    expectProblem(missing, 400);
    expect(missing.body.errors[0].path).toBe('body.enabled');
    expectProblem(await h.as(tenantKey).put(`/v1/admin/merchants/${m.id}/3ds-config`, { enabled: true, exemptions: ['whatever'] }), 400);
    expectProblem(await h.as(tenantKey).put(`/v1/admin/merchants/${m.id}/3ds-config`, { enabled: true, mpi: {} }), 400);
    expect((await h.as(tenantKey).get(`/v1/admin/merchants/${m.id}`)).body.data.threeDsConfig.enabled).toBe(false);
  });

  test('checkout hosting and processing mode', async () => {
    const m = await merchant((await company()).id);
    const hosting = await h.as(tenantKey).put(`/v1/admin/merchants/${m.id}/checkout-hosting`, { checkoutHosting: 'provider_hosted' });
    expect(hosting.status).toBe(200);
    expect(hosting.body.data).toMatchObject({ id: m.id, checkoutHosting: 'provider_hosted', processingMode: 'principal' });
    const mode = await h.as(platform).put(`/v1/admin/merchants/${m.id}/processing-mode`, { processingMode: 'passthrough' });
    expect(mode.status).toBe(200);
    expect(mode.body.data).toMatchObject({ checkoutHosting: 'provider_hosted', processingMode: 'passthrough' });
    const badHosting = await h.as(tenantKey).put(`/v1/admin/merchants/${m.id}/checkout-hosting`, { checkoutHosting: 'iframe' });
    expectProblem(badHosting, 400);
    expect(badHosting.body.errors[0].path).toBe('body.checkoutHosting');
    expectProblem(await h.as(tenantKey).put(`/v1/admin/merchants/${m.id}/processing-mode`, {}), 400);
    expect((await h.as(merchantKey).get(`/v1/admin/merchants/${h.sandbox.merchantId}`)).body.data.checkoutHosting).toBe('self_hosted');
    const got = await h.as(tenantKey).get(`/v1/admin/merchants/${m.id}`);
    expect(got.body.data).toMatchObject({ checkoutHosting: 'provider_hosted', processingMode: 'passthrough' });
    await h.as(tenantKey).put(`/v1/admin/merchants/${m.id}/3ds-config`, { enabled: false });
    expect(await auditActions(m.id)).toEqual([
      'merchant.created',
      'merchant.checkout_hosting_updated',
      'merchant.processing_mode_updated',
      'merchant.three_ds_config_updated',
    ]);
  });
});
