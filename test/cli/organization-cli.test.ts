import request from 'supertest';
import { dialectName } from '../helpers/db';
import { useCliSandbox } from '../helpers/cli';
import { operatorContext } from '../../src/services/access/operators';
import { createApiKey } from '../../src/services/api-keys/keys';
import { createApp } from '../../src/http/app';
import { readCacheTtlMs } from '../../src/db/read-cache';

const s = useCliSandbox({ sandbox: {}, runtime: true });
const cli = s.cli;
const NO_ESCAPES = /\u001b\[/;

describe(`payplane companies and merchants (${dialectName})`, () => {
  let companyId: string;
  let merchantId: string;

  test('companies create, list with search, get; missing or invalid input exits 2 naming the flag', async () => {
    const created = await cli(
      'companies',
      'create',
      '--tenant',
      s.sandbox.tenantId,
      '--name',
      'Acme Trading',
      '--country',
      'DE',
      '--legal-name',
      'Acme Trading GmbH',
      '--json',
    );
    expect(created.status).toBe(0);
    const company = created.json();
    expect(company).toMatchObject({
      tenantId: s.sandbox.tenantId,
      name: 'Acme Trading',
      legalName: 'Acme Trading GmbH',
      country: 'DE',
      livemode: false,
      status: 'active',
    });
    companyId = company.id;

    const missing = await cli('companies', 'create', '--tenant', s.sandbox.tenantId, '--name', 'No country', '--json');
    expect(missing.status).toBe(2);
    expect(missing.json().error).toMatchObject({ code: 'MISSING_FLAG', errors: [{ path: '--country', message: 'is required' }] });
    const bad = await cli('companies', 'create', '--tenant', s.sandbox.tenantId, '--name', 'X', '--country', 'de', '--json');
    expect(bad.status).toBe(2);
    expect(bad.json().error.errors[0].path).toBe('--country');

    const found = await cli('companies', 'list', '--tenant', s.sandbox.tenantId, '--search', 'ACME trading gmbh', '--json');
    expect(found.status).toBe(0);
    expect(found.json().data.map((c: { id: string }) => c.id)).toEqual([companyId]);
    const tooLong = await cli('companies', 'list', '--search', 'a'.repeat(257), '--json');
    expect(tooLong.status).toBe(2);
    expect(tooLong.json().error.errors[0].path).toBe('--search');

    const table = await cli('companies', 'list');
    expect(table.status).toBe(0);
    expect(table.stdout).toContain('Acme Trading');
    expect(table.stdout).toContain('Sandbox Company');
    expect(table.stdout).not.toMatch(NO_ESCAPES);
    expect((await cli('companies', 'get', companyId, '--json')).json()).toEqual(company);
  });

  test('merchants create, get, update; companies merchants lists it; unknown ids exit 4', async () => {
    const created = await cli(
      'merchants',
      'create',
      '--company',
      companyId,
      '--name',
      'Acme Shop',
      '--mcc',
      '5734',
      '--default-currency',
      'EUR',
      '--json',
    );
    expect(created.status).toBe(0);
    const merchant = created.json();
    expect(merchant).toMatchObject({
      companyId,
      tenantId: s.sandbox.tenantId,
      status: 'active',
      liveStatus: 'sandbox',
      mcc: '5734',
      checkoutHosting: 'self_hosted',
    });
    merchantId = merchant.id;
    const badMcc = await cli('merchants', 'update', merchantId, '--mcc', '12', '--json');
    expect(badMcc.status).toBe(2);
    expect(badMcc.json().error.errors[0].path).toBe('--mcc');
    expect((await cli('merchants', 'update', merchantId, '--name', 'Acme Online', '--json')).json().name).toBe('Acme Online');
    const list = await cli('companies', 'merchants', companyId, '--json');
    expect(list.json().data.map((m: { id: string }) => m.id)).toEqual([merchantId]);
    const unknown = await cli('merchants', 'get', '00000000-0000-4000-8000-000000000000', '--json');
    expect(unknown.status).toBe(4);
    expect(unknown.json().error.code).toBe('RESOURCE_NOT_FOUND');
  });

  test("suspend needs --yes off a terminal; it stops the merchant's key over HTTP; activate restores it", async () => {
    const ctx = operatorContext(s.rt, { level: 'merchant', tenantId: s.sandbox.tenantId, merchantId, livemode: false });
    const key = (await createApiKey(ctx, { ownerType: 'merchant', livemode: false })).secretKey;
    const app = createApp(s.rt);
    const call = () => request(app).get('/v1/admin/merchants').set('Authorization', `Bearer ${key}`);
    expect((await call()).status).toBe(200);

    const unconfirmed = await cli('merchants', 'suspend', merchantId, '--json');
    expect(unconfirmed.status).toBe(2);
    expect(unconfirmed.json().error.code).toBe('CONFIRMATION_REQUIRED');
    const suspended = await cli('merchants', 'suspend', merchantId, '--yes', '--json');
    expect(suspended.status).toBe(0);
    expect(suspended.json().status).toBe('suspended');
    // a change another process (the command) made reaches this process's authentication within its cache's TTL
    const settled = async (status: number) => {
      const deadline = Date.now() + readCacheTtlMs() + 1_000;
      let response = await call();
      while (response.status !== status && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        response = await call();
      }
      return response;
    };
    const refused = await settled(403);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('MERCHANT_SUSPENDED');
    const again = await cli('merchants', 'suspend', merchantId, '--yes', '--json');
    expect(again.status).toBe(5);
    expect(again.json().error.code).toBe('INVALID_STATE_TRANSITION');
    expect((await cli('merchants', 'activate', merchantId, '--json')).json().status).toBe('active');
    expect((await settled(200)).status).toBe(200);
  });

  test('live approval: request-live, reject-live, and approve-live refused without approved KYB', async () => {
    const requested = await cli('merchants', 'request-live', merchantId, '--json');
    expect(requested.status).toBe(0);
    expect(requested.json().liveStatus).toBe('pending_approval');
    const approve = await cli('merchants', 'approve-live', merchantId, '--json');
    expect(approve.status).toBe(5);
    expect(approve.json().error.code).toBe('KYB_NOT_APPROVED');
    const rejected = await cli('merchants', 'reject-live', merchantId);
    expect(rejected.status).toBe(0);
    expect(rejected.stdout).toContain('liveStatus sandbox');
  });

  test('3DS configuration, checkout hosting and processing mode', async () => {
    const set = await cli(
      'merchants',
      '3ds-config',
      merchantId,
      '--enable',
      '--challenge-preference',
      'challenge_requested',
      '--exemption',
      'low_value',
      '--exemption',
      'recurring',
      '--json',
    );
    expect(set.status).toBe(0);
    expect(set.json()).toEqual({ enabled: true, challengePreference: 'challenge_requested', exemptions: ['low_value', 'recurring'] });
    expect((await cli('merchants', '3ds-config', merchantId, '--json')).json()).toEqual(set.json());
    const hosting = await cli('merchants', 'checkout-hosting', merchantId, 'provider_hosted', '--json');
    expect(hosting.json().checkoutHosting).toBe('provider_hosted');
    const mode = await cli('merchants', 'processing-mode', merchantId, 'sideways', '--json');
    expect(mode.status).toBe(2);
    const shown = await cli('merchants', 'get', merchantId);
    expect(shown.stdout).toContain('provider_hosted');
  });

  test('companies disable, then no new merchants (exit 5)', async () => {
    const disabled = await cli('companies', 'disable', companyId, '--yes', '--json');
    expect(disabled.status).toBe(0);
    expect(disabled.json().status).toBe('disabled');
    const late = await cli('merchants', 'create', '--company', companyId, '--name', 'Late', '--json');
    expect(late.status).toBe(5);
    expect(late.json().error.code).toBe('COMPANY_DISABLED');
  });

  test('a company of live mode (issue 20): listed with --live only; get, update, merchants and disable act in its own mode', async () => {
    const created = await cli(
      'companies',
      'create',
      '--tenant',
      s.sandbox.tenantId,
      '--name',
      'Live Only Co',
      '--country',
      'NL',
      '--live',
      '--json',
    );
    expect(created.status).toBe(0);
    const live = created.json();
    expect(live).toMatchObject({ livemode: true, status: 'active' });
    const ids = async (...args: string[]) =>
      (await cli('companies', 'list', '--tenant', s.sandbox.tenantId, '--json', ...args)).json().data.map((c: { id: string }) => c.id);
    expect(await ids()).not.toContain(live.id);
    expect(await ids('--live')).toEqual([live.id]);
    expect((await cli('companies', 'get', live.id, '--json')).json()).toEqual(live);
    const renamed = await cli('companies', 'update', live.id, '--name', 'Live Only Renamed', '--json');
    expect([renamed.status, renamed.json().name, renamed.json().livemode]).toEqual([0, 'Live Only Renamed', true]);
    const merchant = await cli('merchants', 'create', '--company', live.id, '--name', 'Live Co Shop', '--json');
    expect(merchant.status).toBe(0);
    expect((await cli('companies', 'merchants', live.id, '--json')).json().data.map((m: { id: string }) => m.id)).toEqual([
      merchant.json().id,
    ]);
    const disabled = await cli('companies', 'disable', live.id, '--yes', '--json');
    expect([disabled.status, disabled.json().status]).toEqual([0, 'disabled']);
  }, 300_000);
});
