import crypto from 'node:crypto';
import request from 'supertest';
import { useApiHarness, expectProblem } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { operatorContext } from '../../src/services/access/operators';
import { createApiKey } from '../../src/services/api-keys/keys';

// Issue 4, item 2: the whole onboarding of a merchant over HTTP, from company to live key to suspension.
// Only key issuing for a merchant's own sandbox key goes through the service (as the merchant itself, like the
// sandbox does): a tenant cannot grant merchant-only codes such as compliance:kyb:manage.

const h = useApiHarness();

function ok(res: request.Response, status = 200): any {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data;
}

test(`walk-through: company, merchant, KYB, live approval, live key, suspension (${dialectName})`, async () => {
  // The platform creates a live tenant (the sandbox tenant is sandbox-only and can hold no live keys) ...
  const tenant = ok(await h.as(h.sandbox.platformToken).post('/v1/admin/tenants', { name: 'Walkthrough tenant', livemode: true }), 201);
  expect(tenant.livemode).toBe(true);
  // ... whose first operator key is issued at the terminal
  const tenantKey = (
    await createApiKey(operatorContext(h.rt, { level: 'tenant', tenantId: tenant.id, livemode: true }), {
      ownerType: 'tenant',
      name: 'ops',
    })
  ).secretKey;
  const ops = h.as(tenantKey);

  // 1. the tenant creates a company and a merchant (pinned bodies of operations.md)
  const company = ok(
    await ops.post('/v1/admin/companies', {
      name: 'Acme Trading',
      legalName: 'Acme Trading GmbH',
      country: 'DE',
      registrationNumber: 'HRB 12345',
    }),
    201,
  );
  const merchant = ok(
    await ops.post('/v1/admin/merchants', {
      companyId: company.id,
      name: 'Acme Shop',
      defaultCurrency: 'EUR',
      website: 'https://shop.acme.example',
    }),
    201,
  );
  expect(merchant).toMatchObject({ companyId: company.id, status: 'active', liveStatus: 'sandbox' });

  // a merchant starts in sandbox: no live key yet
  expectProblem(await ops.post('/v1/api-keys', { ownerType: 'merchant', merchantId: merchant.id }), 403, 'MERCHANT_NOT_LIVE');
  // and no live approval without an approved KYB submission
  expectProblem(await ops.post(`/v1/admin/merchants/${merchant.id}/approve-live`), 409, 'KYB_NOT_APPROVED');

  // 2. the merchant, with its sandbox key, drafts its KYB submission, fills the data, uploads a document, submits
  const sandboxKey = (
    await createApiKey(operatorContext(h.rt, { level: 'merchant', tenantId: tenant.id, merchantId: merchant.id, livemode: false }), {
      ownerType: 'merchant',
    })
  ).secretKey;
  const m = h.as(sandboxKey);
  const draft = ok(await m.post('/v1/kyb-submissions', { data: { legalName: 'Acme Trading GmbH' } }), 201);
  expect(draft).toMatchObject({ status: 'draft', companyId: company.id, merchantId: merchant.id });
  ok(
    await m.patch(`/v1/kyb-submissions/${draft.id}`, {
      data: {
        registrationNumber: 'HRB 12345',
        country: 'DE',
        registeredAddress: { line1: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
        owners: [{ name: 'Ada Lovelace', ownershipPercent: 100 }],
      },
    }),
  );
  const certificate = Buffer.concat([Buffer.from('%PDF-1.7\n'), crypto.randomBytes(20_000)]);
  const uploaded = ok(
    await request(h.app)
      .post(`/v1/kyb-submissions/${draft.id}/documents?type=certificate_of_incorporation`)
      .set('Authorization', `Bearer ${sandboxKey}`)
      .attach('file', certificate, { filename: 'certificate.pdf', contentType: 'application/pdf' }),
    201,
  );
  const documentId = uploaded.documents[0].id;
  expect(ok(await m.post(`/v1/kyb-submissions/${draft.id}/submit`)).status).toBe('submitted');

  // 3. the reviewer (the tenant) reads the document, accepts it and approves the submission
  const queue = ok(await ops.get('/v1/admin/kyb-submissions?status=submitted'));
  expect(queue.map((s: { id: string }) => s.id)).toEqual([draft.id]);
  const back = await request(h.app)
    .get(`/v1/kyb-submissions/${draft.id}/documents/${documentId}/content`)
    .set('Authorization', `Bearer ${tenantKey}`)
    .buffer(true)
    .parse((res, cb) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => cb(null, Buffer.concat(chunks)));
    });
  expect(back.status).toBe(200);
  expect(Buffer.compare(back.body as Buffer, certificate)).toBe(0);
  expect(ok(await ops.post(`/v1/admin/kyb-submissions/${draft.id}/documents/${documentId}/verdict`, { verdict: 'accepted' })).status).toBe(
    'in_review',
  );
  expect(ok(await ops.post(`/v1/admin/kyb-submissions/${draft.id}/approve`, { comment: 'Register checked' })).status).toBe('approved');
  expect(ok(await m.get('/v1/kyb-submissions/latest')).status).toBe('approved');

  // 4. the merchant asks for live approval and the tenant approves it
  expect(ok(await m.post(`/v1/admin/merchants/${merchant.id}/request-live-approval`)).liveStatus).toBe('pending_approval');
  expect(ok(await ops.post(`/v1/admin/merchants/${merchant.id}/approve-live`)).liveStatus).toBe('approved');

  // 5. a live key for the merchant can now be issued, and it works
  const liveKey = ok(await ops.post('/v1/api-keys', { ownerType: 'merchant', merchantId: merchant.id, name: 'Acme live' }), 201);
  expect(liveKey.secretKey).toMatch(/^sk_live_/);
  const live = h.as(liveKey.secretKey);
  const keys = ok(await live.get('/v1/api-keys'));
  expect(keys.map((k: { id: string }) => k.id)).toContain(liveKey.id);

  // 6. the tenant suspends the merchant: its keys stop working at once (403 with the reason)
  expect(ok(await ops.post(`/v1/admin/merchants/${merchant.id}/suspend`)).status).toBe('suspended');
  expectProblem(await live.get('/v1/api-keys'), 403, 'MERCHANT_SUSPENDED');
  expectProblem(await m.get('/v1/kyb-submissions/latest'), 403, 'MERCHANT_SUSPENDED');
  // the tenant itself still works
  expect(ok(await ops.get(`/v1/admin/merchants/${merchant.id}`)).status).toBe('suspended');
});
