import { useApiHarness, createLiveTenantKey, expectProblem } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { operatorContext } from '../../src/services/access/operators';
import { createApiKey } from '../../src/services/api-keys/keys';

// The KYB verdict is the KYB area's (its walkthrough test drives the real submissions end to end); here it is a
// switch, so the live-approval path of the merchant operations is tested on its own.
const kyb = { approved: new Set<string>() };
jest.mock('../../src/services/kyb/submissions', () => ({
  companyHasApprovedKyb: jest.fn(async (_ctx: unknown, companyId: string) => kyb.approved.has(companyId)),
}));

let live: { tenantId: string; secretKey: string };

const h = useApiHarness();
beforeAll(async () => {
  live = await createLiveTenantKey(h);
});

describe(`live approval with the company's KYB (${dialectName})`, () => {
  test("approve-live needs the company's approved KYB; then the merchant holds live keys; suspend stops them", async () => {
    const company = (await h.as(live.secretKey).post('/v1/admin/companies', { name: 'Live Co', country: 'DE' })).body.data;
    const merchant = (await h.as(live.secretKey).post('/v1/admin/merchants', { companyId: company.id, name: 'Live Shop' })).body.data;
    const asMerchant = operatorContext(h.rt, { level: 'merchant', tenantId: live.tenantId, merchantId: merchant.id, livemode: false });
    const testKey = (await createApiKey(asMerchant, { ownerType: 'merchant', livemode: false })).secretKey;

    expectProblem(
      await h.as(live.secretKey).post('/v1/api-keys', { ownerType: 'merchant', merchantId: merchant.id, livemode: true }),
      403,
      'MERCHANT_NOT_LIVE',
    );
    expect((await h.as(testKey).post(`/v1/admin/merchants/${merchant.id}/request-live-approval`)).body.data.liveStatus).toBe(
      'pending_approval',
    );
    expectProblem(await h.as(live.secretKey).post(`/v1/admin/merchants/${merchant.id}/approve-live`), 409, 'KYB_NOT_APPROVED');

    kyb.approved.add(company.id);
    const approved = await h.as(live.secretKey).post(`/v1/admin/merchants/${merchant.id}/approve-live`);
    expect(approved.status).toBe(200);
    expect(approved.body.data.liveStatus).toBe('approved');
    expectProblem(await h.as(live.secretKey).post(`/v1/admin/merchants/${merchant.id}/approve-live`), 409, 'INVALID_STATE_TRANSITION');
    expectProblem(await h.as(live.secretKey).post(`/v1/admin/merchants/${merchant.id}/reject-live`), 409, 'INVALID_STATE_TRANSITION');
    expectProblem(await h.as(testKey).post(`/v1/admin/merchants/${merchant.id}/request-live-approval`), 409, 'INVALID_STATE_TRANSITION');

    const issued = await h.as(live.secretKey).post('/v1/api-keys', { ownerType: 'merchant', merchantId: merchant.id, livemode: true });
    expect(issued.status).toBe(201);
    const liveKey = issued.body.data.secretKey as string;
    expect(liveKey).toMatch(/^sk_live_/);
    expect((await h.as(liveKey).get(`/v1/admin/merchants/${merchant.id}`)).body.data.liveStatus).toBe('approved');

    await h.as(live.secretKey).post(`/v1/admin/merchants/${merchant.id}/suspend`);
    expectProblem(await h.as(liveKey).get('/v1/admin/merchants'), 403, 'MERCHANT_SUSPENDED');
    await h.as(live.secretKey).post(`/v1/admin/merchants/${merchant.id}/activate`);
    expect((await h.as(liveKey).get('/v1/admin/merchants')).status).toBe(200);
  });

  test('a sandbox merchant may be approved directly; a disabled one may not', async () => {
    const company = (await h.as(live.secretKey).post('/v1/admin/companies', { name: 'Direct Co', country: 'FR' })).body.data;
    kyb.approved.add(company.id);
    const m1 = (await h.as(live.secretKey).post('/v1/admin/merchants', { companyId: company.id, name: 'Direct' })).body.data;
    expect((await h.as(live.secretKey).post(`/v1/admin/merchants/${m1.id}/approve-live`)).body.data.liveStatus).toBe('approved');
    const m2 = (await h.as(live.secretKey).post('/v1/admin/merchants', { companyId: company.id, name: 'Disabled' })).body.data;
    await h.as(live.secretKey).post(`/v1/admin/merchants/${m2.id}/disable`);
    expectProblem(await h.as(live.secretKey).post(`/v1/admin/merchants/${m2.id}/approve-live`), 409, 'MERCHANT_DISABLED');
  });
});
