import { Writable } from 'node:stream';
import express from 'express';
import pino from 'pino';
import request from 'supertest';
import { expectProblem, type Caller } from '../helpers/api';
import { createTestDatabase, dialectName, testConfig, type TestDatabase } from '../helpers/db';
import { createApp } from '../../src/http/app';
import { openRuntime, closeRuntime, type Runtime } from '../../src/runtime';
import { operatorContext } from '../../src/services/access/operators';
import { ManualClock } from '../../src/domain/clock';
import { createSandbox, type SandboxCredentials } from '../../src/services/sandbox/provision';
import { createTenant } from '../../src/services/tenants/tenants';
import { createApiKey } from '../../src/services/api-keys/keys';

// A harness of its own: the runtime logs through a pino logger into `logs`, and every response body is kept in
// `bodies`, so the last test can search both (and the audit trail and every table) for the credential values.

const CARD = '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e01';
const PAYOUT = '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e02';
const MISSING = '00000000-0000-4000-8000-000000000000';

/** Recognizable credential values: none may appear anywhere but sealed. */
const SECRETS = {
  account: 'ACCT-Zq7xW3-SECRETVALUE-0001',
  apiKey: 'apikey-Hx9Kp2Lm-SECRETVALUE-0002',
  rotated: 'apikey-Rt5Yu8Io-SECRETVALUE-0003',
  payoutKey: 'sign-Mn4Bv6Cx-SECRETVALUE-0004',
  otherTenant: 'apikey-Qw1Er2Ty-SECRETVALUE-0005',
  rejected: 'apikey-Zx3Cv4Bn-SECRETVALUE-0006',
};

const clock = new ManualClock('2026-03-01T12:00:00.000Z');
const logs: string[] = [];
const bodies: string[] = [];
let db: TestDatabase;
let rt: Runtime;
let app: express.Express;
let sandbox: SandboxCredentials;
let tenantKey: string;
let merchantKey: string;
let platform: string;
let other: { tenantId: string; secretKey: string };

function as(credential: string): Caller {
  const auth = (t: request.Test) => t.set('Authorization', `Bearer ${credential}`);
  return {
    get: (path) => auth(request(app).get(path)),
    post: (path, body) => (body === undefined ? auth(request(app).post(path)) : auth(request(app).post(path)).send(body)),
    patch: (path, body) => auth(request(app).patch(path)).send(body ?? {}),
    put: (path, body) => auth(request(app).put(path)).send(body ?? {}),
    delete: (path) => auth(request(app).delete(path)),
  };
}

beforeAll(async () => {
  db = await createTestDatabase();
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  rt = await openRuntime(testConfig(db), { clock, logger: pino({ level: 'trace' }, sink) });
  const inner = createApp(rt);
  app = express();
  app.use((_req, res, next) => {
    const chunks: Buffer[] = [];
    const write = res.write.bind(res);
    const end = res.end.bind(res);
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (chunk) chunks.push(Buffer.from(chunk as string));
      return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof res.write;
    res.end = ((chunk: unknown, ...rest: unknown[]) => {
      if (chunk && typeof chunk !== 'function') chunks.push(Buffer.from(chunk as string));
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      return (end as (...a: unknown[]) => express.Response)(chunk, ...rest);
    }) as typeof res.end;
    next();
  });
  app.use(inner);
  sandbox = await createSandbox(rt);
  tenantKey = sandbox.tenantKey.secretKey;
  merchantKey = sandbox.merchantKey.secretKey;
  platform = sandbox.platformToken;
  const plat = operatorContext(rt, { level: 'platform', tenantId: null, livemode: false });
  const tenant = await createTenant(plat, { name: 'Other tenant', livemode: false });
  const key = await createApiKey(operatorContext(rt, { level: 'tenant', tenantId: tenant.id, livemode: false }), { ownerType: 'tenant' });
  other = { tenantId: tenant.id, secretKey: key.secretKey };
});
afterAll(async () => {
  await closeRuntime(rt);
  await db.drop();
});

const paths = (res: { body: { errors?: { path: string }[] } }) => (res.body.errors ?? []).map((e) => e.path).sort();
const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((r) => r.id);

const cardBody = (extra: Record<string, unknown> = {}) => ({
  providerIntegrationId: CARD,
  name: 'EU cards',
  credentials: { merchantAccount: SECRETS.account, apiKey: SECRETS.apiKey },
  mcc: '5999',
  descriptor: 'PAYPLANE*SHOP',
  supportedCurrencies: ['EUR', 'USD'],
  supportedBrands: ['visa', 'mastercard'],
  ...extra,
});

let terminalId: string;
let payoutTerminalId: string;
let otherTerminalId: string;

describe(`terminals (${dialectName})`, () => {
  test('a tenant creates a card terminal: credentials checked, sealed and never returned', async () => {
    const res = await as(tenantKey).post('/v1/admin/terminals', cardBody());
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(String),
      tenantId: sandbox.tenantId,
      providerIntegrationId: CARD,
      credentialBindingId: expect.any(String),
      providerCostScheduleId: null,
      name: 'EU cards',
      mcc: '5999',
      descriptor: 'PAYPLANE*SHOP',
      direction: 'payin',
      status: 'active',
      livemode: false,
      supportedCurrencies: ['EUR', 'USD'],
      supportedBrands: ['visa', 'mastercard'],
      supportedPaymentMethodTypes: ['card'],
      threeDsConfig: {
        enabled: false,
        executionModel: 'gateway_full',
        mpiAccounts: [],
        rules: { processOnly3dsCards: false, declineOnAttemptStatus: false, allowMerchantDisable: true },
      },
      // the sandbox acquirer takes no notifications
      notificationUrl: null,
      createdAt: '2026-03-01T12:00:00.000Z',
      updatedAt: '2026-03-01T12:00:00.000Z',
      deletedAt: null,
    });
    terminalId = res.body.data.id;
    const binding = await rt.db.models.CredentialBinding.findByPk(res.body.data.credentialBindingId);
    const sealed = binding!.get('credentialsSealed') as string;
    expect(sealed).toMatch(/^v1:/);
    expect(JSON.parse(rt.sealer.open(sealed))).toEqual({ merchantAccount: SECRETS.account, apiKey: SECRETS.apiKey });
    expect((await as(tenantKey).get(`/v1/admin/terminals/${terminalId}`)).body.data).toEqual(res.body.data);
    const audit = await as(tenantKey).get(`/v1/audit-entries?action=terminal.created&targetId=${terminalId}`);
    expect(audit.body.data).toHaveLength(1);
  });

  test('validation names the field: credentials, provider, currencies, brands, methods, direction', async () => {
    const missing = await as(tenantKey).post('/v1/admin/terminals', cardBody({ credentials: { merchantAccount: SECRETS.rejected } }));
    expectProblem(missing, 400, 'INVALID_CREDENTIALS');
    expect(paths(missing)).toEqual(['body.credentials.apiKey']);
    const extra = await as(tenantKey).post(
      '/v1/admin/terminals',
      cardBody({ credentials: { merchantAccount: 'a', apiKey: SECRETS.rejected, pin: SECRETS.rejected } }),
    );
    expect(paths(extra)).toEqual(['body.credentials.pin']);
    expect(paths(await as(tenantKey).post('/v1/admin/terminals', cardBody({ credentials: { merchantAccount: 'a', apiKey: 42 } })))).toEqual(
      ['body.credentials.apiKey'],
    );
    expect(paths(await as(tenantKey).post('/v1/admin/terminals', cardBody({ credentials: undefined })))).toEqual(['body.credentials']);
    expect(paths(await as(tenantKey).post('/v1/admin/terminals', cardBody({ providerIntegrationId: MISSING })))).toEqual([
      'body.providerIntegrationId',
    ]);
    const currency = await as(tenantKey).post('/v1/admin/terminals', cardBody({ supportedCurrencies: ['EUR', 'JPY'] }));
    expectProblem(currency, 400, 'UNSUPPORTED_BY_PROVIDER');
    expect(paths(currency)).toEqual(['body.supportedCurrencies[1]']);
    expect(paths(await as(tenantKey).post('/v1/admin/terminals', cardBody({ supportedBrands: ['discover'] })))).toEqual([
      'body.supportedBrands[0]',
    ]);
    expect(paths(await as(tenantKey).post('/v1/admin/terminals', cardBody({ supportedPaymentMethodTypes: ['bank_transfer'] })))).toEqual([
      'body.supportedPaymentMethodTypes[0]',
    ]);
    expect(paths(await as(tenantKey).post('/v1/admin/terminals', cardBody({ direction: 'payout' })))).toEqual(['body.direction']);
    expect(paths(await as(tenantKey).post('/v1/admin/terminals', cardBody({ mcc: '59' })))).toEqual(['body.mcc']);
    expect(paths(await as(tenantKey).post('/v1/admin/terminals', cardBody({ supportedCurrencies: [] })))).toEqual([
      'body.supportedCurrencies',
    ]);
    expect(paths(await as(tenantKey).post('/v1/admin/terminals', cardBody({ surprise: 1 })))).toEqual(['body.surprise']);
    expect(
      paths(
        await as(tenantKey).post(
          '/v1/admin/terminals',
          cardBody({
            threeDsConfig: {
              enabled: true,
              executionModel: 'teleport',
              rules: { processOnly3dsCards: false, declineOnAttemptStatus: false, allowMerchantDisable: true },
            },
          }),
        ),
      ),
    ).toEqual(['body.threeDsConfig.executionModel']);
    // merchants have no access; a deprecated provider takes no new terminals
    expectProblem(await as(merchantKey).post('/v1/admin/terminals', cardBody()), 403);
    expectProblem(await as(merchantKey).get('/v1/admin/terminals'), 403);
    await as(platform).patch(`/v1/admin/provider-integrations/${CARD}/status`, { status: 'deprecated' });
    expectProblem(await as(tenantKey).post('/v1/admin/terminals', cardBody()), 409, 'PROVIDER_DEPRECATED');
    await as(platform).patch(`/v1/admin/provider-integrations/${CARD}/status`, { status: 'available' });
    expect(await rt.db.models.Terminal.count()).toBe(3); // the sandbox's own card and payout terminals and the one created above
  });

  test('a payout terminal on the payout provider; the platform creates for a named tenant; tenants are isolated', async () => {
    const payout = await as(tenantKey).post('/v1/admin/terminals', {
      providerIntegrationId: PAYOUT,
      name: 'Payouts',
      credentials: { accountId: 'acc-1', signingKey: SECRETS.payoutKey },
      supportedCurrencies: ['EUR'],
    });
    expect(payout.status).toBe(201);
    expect(payout.body.data).toMatchObject({ direction: 'payout', supportedPaymentMethodTypes: ['bank_transfer'], supportedBrands: [] });
    payoutTerminalId = payout.body.data.id;

    const noTenant = await as(platform).post(
      '/v1/admin/terminals',
      cardBody({ credentials: { merchantAccount: 'x', apiKey: SECRETS.otherTenant } }),
    );
    expect(paths(noTenant)).toEqual(['body.tenantId']);
    const created = await as(platform).post(
      '/v1/admin/terminals',
      cardBody({ tenantId: other.tenantId, name: 'Other', credentials: { merchantAccount: 'x', apiKey: SECRETS.otherTenant } }),
    );
    expect(created.status).toBe(201);
    expect(created.body.data.tenantId).toBe(other.tenantId);
    otherTerminalId = created.body.data.id;
    expectProblem(await as(tenantKey).post('/v1/admin/terminals', cardBody({ tenantId: other.tenantId })), 404);

    // lists: a tenant sees its own; the platform every tenant's, filterable
    expect(ids(await as(tenantKey).get('/v1/admin/terminals?sortOrder=asc'))).toEqual([
      sandbox.terminalId,
      sandbox.payoutTerminalId,
      terminalId,
      payoutTerminalId,
    ]);
    expect(ids(await as(tenantKey).get('/v1/admin/terminals?direction=payout'))).toEqual([payoutTerminalId, sandbox.payoutTerminalId]);
    expect(ids(await as(tenantKey).get(`/v1/admin/terminals?providerIntegrationId=${CARD}`))).toEqual([terminalId, sandbox.terminalId]);
    expect(ids(await as(platform).get(`/v1/admin/terminals?tenantId=${other.tenantId}`))).toEqual([otherTerminalId]);
    expect(ids(await as(platform).get('/v1/admin/terminals?limit=100'))).toEqual(
      expect.arrayContaining([terminalId, payoutTerminalId, otherTerminalId]),
    );
    expect(ids(await as(other.secretKey).get('/v1/admin/terminals'))).toEqual([otherTerminalId]);

    // every terminal operation on another tenant's terminal is 404
    const t = `/v1/admin/terminals/${otherTerminalId}`;
    const rules = { processOnly3dsCards: false, declineOnAttemptStatus: false, allowMerchantDisable: true };
    for (const res of [
      await as(tenantKey).get(t),
      await as(tenantKey).patch(t, { name: 'Mine' }),
      await as(tenantKey).post(`${t}/disable`),
      await as(tenantKey).post(`${t}/rotate-credentials`, { credentials: { merchantAccount: 'x', apiKey: 'y' } }),
      await as(tenantKey).get(`${t}/3ds-config`),
      await as(tenantKey).put(`${t}/3ds-config`, { enabled: false, executionModel: 'gateway_full', rules }),
      await as(tenantKey).post(`${t}/3ds-config/mpi-accounts`, { brand: 'visa' }),
      await as(tenantKey).patch(`${t}/3ds-config/mpi-accounts/visa`, { enabled: false }),
      await as(tenantKey).delete(`${t}/3ds-config/mpi-accounts/visa`),
      await as(tenantKey).post(`${t}/restrictions`, { action: 'deny' }),
      await as(tenantKey).get(`${t}/restrictions`),
      await as(tenantKey).patch(`${t}/restrictions/${MISSING}`, { action: 'deny' }),
      await as(tenantKey).post(`${t}/restrictions/${MISSING}/disable`),
      await as(tenantKey).post(`${t}/limits`, { period: { value: 1, unit: 'day' }, metric: 'count', threshold: 10 }),
      await as(tenantKey).get(`${t}/limits`),
      await as(tenantKey).post(`${t}/limits/${MISSING}/disable`),
    ])
      expectProblem(res, 404);
    expectProblem(await as(tenantKey).get(`/v1/admin/terminals/${MISSING}`), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await as(tenantKey).get('/v1/admin/terminals/nope'), 404);
  });

  test('update changes fields and re-checks the lists against the provider', async () => {
    clock.advance(1000);
    const res = await as(tenantKey).patch(`/v1/admin/terminals/${terminalId}`, {
      name: 'EU cards 2',
      supportedCurrencies: ['EUR', 'GBP', 'USD'],
      descriptor: null,
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      name: 'EU cards 2',
      supportedCurrencies: ['EUR', 'GBP', 'USD'],
      descriptor: null,
      updatedAt: '2026-03-01T12:00:01.000Z',
    });
    expect(paths(await as(tenantKey).patch(`/v1/admin/terminals/${terminalId}`, { supportedBrands: ['visa', 'unionpay'] }))).toEqual([
      'body.supportedBrands[1]',
    ]);
    expect(paths(await as(tenantKey).patch(`/v1/admin/terminals/${terminalId}`, {}))).toEqual(['body']);
    expect(paths(await as(tenantKey).patch(`/v1/admin/terminals/${terminalId}`, { credentials: { apiKey: SECRETS.rejected } }))).toContain(
      'body.credentials',
    );
    expect(paths(await as(tenantKey).patch(`/v1/admin/terminals/${terminalId}`, { providerCostScheduleId: 'x' }))).toEqual([
      'body.providerCostScheduleId',
    ]);
    const audit = await as(tenantKey).get(`/v1/audit-entries?action=terminal.updated&targetId=${terminalId}`);
    expect(audit.body.data).toHaveLength(1);
    expect(audit.body.data[0].before.name).toBe('EU cards');
  });

  test('rotate-credentials replaces the binding with a new id; the old one is kept sealed and marked replaced', async () => {
    const before = (await as(tenantKey).get(`/v1/admin/terminals/${terminalId}`)).body.data.credentialBindingId;
    expect(
      paths(
        await as(tenantKey).post(`/v1/admin/terminals/${terminalId}/rotate-credentials`, {
          credentials: { merchantAccount: SECRETS.account },
        }),
      ),
    ).toEqual(['body.credentials.apiKey']);
    const res = await as(tenantKey)
      .post(`/v1/admin/terminals/${terminalId}/rotate-credentials`, {
        credentials: { merchantAccount: SECRETS.account, apiKey: SECRETS.rotated },
      })
      .set('Idempotency-Key', 'rotate-1');
    expect(res.status).toBe(200);
    expect(res.body.data.credentialBindingId).not.toBe(before);
    const replay = await as(tenantKey)
      .post(`/v1/admin/terminals/${terminalId}/rotate-credentials`, {
        credentials: { merchantAccount: SECRETS.account, apiKey: SECRETS.rotated },
      })
      .set('Idempotency-Key', 'rotate-1');
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.data.credentialBindingId).toBe(res.body.data.credentialBindingId);
    const old = await rt.db.models.CredentialBinding.findByPk(before);
    expect(old!.get('status')).toBe('replaced');
    const current = await rt.db.models.CredentialBinding.findByPk(res.body.data.credentialBindingId);
    expect(current!.get('status')).toBe('active');
    expect(JSON.parse(rt.sealer.open(current!.get('credentialsSealed') as string)).apiKey).toBe(SECRETS.rotated);
    const audit = await as(tenantKey).get(`/v1/audit-entries?action=terminal.credentials_rotated&targetId=${terminalId}`);
    expect(audit.body.data[0]).toMatchObject({ before: { bindingId: before }, after: { bindingId: res.body.data.credentialBindingId } });
  });

  test('3DS configuration: get, replace, MPI accounts by brand with mcc and preferredVersion in reads', async () => {
    const base = `/v1/admin/terminals/${terminalId}/3ds-config`;
    expect((await as(tenantKey).get(base)).body.data).toMatchObject({ enabled: false, mpiAccounts: [] });
    const rules = { processOnly3dsCards: true, declineOnAttemptStatus: true, allowMerchantDisable: false };
    const put = await as(tenantKey).put(base, {
      enabled: true,
      executionModel: 'gateway_full',
      rules,
      mpiAccounts: [{ brand: 'visa', merchantName: 'Shop', merchantId: 'MPI-1', merchantCountry: 'DE', acquirerBin: '412345' }],
    });
    expect(put.status).toBe(200);
    expect(put.body.data.threeDsConfig).toEqual({
      enabled: true,
      executionModel: 'gateway_full',
      rules,
      mpiAccounts: [
        {
          brand: 'visa',
          enabled: true,
          merchantName: 'Shop',
          merchantId: 'MPI-1',
          merchantCountry: 'DE',
          acquirerBin: '412345',
          mcc: '5999',
          preferredVersion: '2.2.0',
        },
      ],
    });
    const bad = await as(tenantKey).put(base, {
      enabled: true,
      executionModel: 'nope',
      rules,
      mpiAccounts: [{ brand: 'visa' }, { brand: 'visa' }, { brand: 'amex', preferredVersion: '9.9' }],
    });
    expect(paths(bad)).toEqual([
      'body.executionModel',
      'body.mpiAccounts[1].brand',
      'body.mpiAccounts[2].brand',
      'body.mpiAccounts[2].preferredVersion',
    ]);
    expect(paths(await as(tenantKey).put(base, { enabled: true, executionModel: 'gateway_full' }))).toEqual(['body.rules']);

    const add = await as(tenantKey).post(`${base}/mpi-accounts`, {
      brand: 'mastercard',
      merchantName: 'Shop MC',
      mcc: '5411',
      preferredVersion: '2.1.0',
    });
    expect(add.status).toBe(201);
    expect(add.body.data).toEqual({
      brand: 'mastercard',
      enabled: true,
      merchantName: 'Shop MC',
      merchantId: null,
      merchantCountry: null,
      acquirerBin: null,
      mcc: '5411',
      preferredVersion: '2.1.0',
    });
    expectProblem(await as(tenantKey).post(`${base}/mpi-accounts`, { brand: 'mastercard' }), 409, 'MPI_ACCOUNT_EXISTS');
    expect(paths(await as(tenantKey).post(`${base}/mpi-accounts`, { brand: 'amex' }))).toEqual(['body.brand']);
    expect(paths(await as(tenantKey).post(`${base}/mpi-accounts`, { brand: 'visa', acquirerBin: '12' }))).toEqual(['body.acquirerBin']);
    const upd = await as(tenantKey).patch(`${base}/mpi-accounts/visa`, { enabled: false, acquirerBin: null });
    expect(upd.status).toBe(200);
    expect(upd.body.data).toMatchObject({ brand: 'visa', enabled: false, acquirerBin: null, mcc: '5999', preferredVersion: '2.2.0' });
    expect(paths(await as(tenantKey).patch(`${base}/mpi-accounts/visa`, { preferredVersion: '1.0' }))).toEqual(['body.preferredVersion']);
    expectProblem(await as(tenantKey).patch(`${base}/mpi-accounts/amex`, { enabled: false }), 404);
    const del = await as(tenantKey).delete(`${base}/mpi-accounts/mastercard`);
    expect(del.status).toBe(200);
    expect(del.body.data.threeDsConfig.mpiAccounts.map((a: { brand: string }) => a.brand)).toEqual(['visa']);
    expectProblem(await as(tenantKey).delete(`${base}/mpi-accounts/mastercard`), 404);
    // the terminal's mcc is the default of an account without its own
    await as(tenantKey).patch(`/v1/admin/terminals/${terminalId}`, { mcc: '4816' });
    expect((await as(tenantKey).get(base)).body.data.mpiAccounts[0]).toMatchObject({ brand: 'visa', mcc: '4816' });
    // a provider without 3DS cannot have it enabled
    const payoutRes = await as(tenantKey).put(`/v1/admin/terminals/${payoutTerminalId}/3ds-config`, {
      enabled: true,
      executionModel: 'gateway_full',
      rules,
    });
    expect(paths(payoutRes)).toEqual(['body.enabled', 'body.executionModel']);
    for (const action of [
      'terminal.3ds_config_replaced',
      'terminal.mpi_account_added',
      'terminal.mpi_account_updated',
      'terminal.mpi_account_deleted',
    ]) {
      expect((await as(tenantKey).get(`/v1/audit-entries?action=${action}&targetId=${terminalId}`)).body.data.length).toBeGreaterThan(0);
    }
  });

  test('restrictions: create, list, update, disable; illegal moves 409', async () => {
    const base = `/v1/admin/terminals/${terminalId}/restrictions`;
    const res = await as(tenantKey).post(base, { action: 'deny', brand: 'mastercard' });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(String),
      terminalId,
      action: 'deny',
      paymentMethod: null,
      brand: 'mastercard',
      transactionType: 'payment',
      status: 'active',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const id = res.body.data.id;
    const second = await as(platform).post(base, { action: 'allow', paymentMethod: 'card', transactionType: 'refund' });
    expect(second.status).toBe(201);
    expect(paths(await as(tenantKey).post(base, { action: 'deny', brand: 'amex', paymentMethod: 'sepa' }))).toEqual([
      'body.brand',
      'body.paymentMethod',
    ]);
    expect(paths(await as(tenantKey).post(base, { action: 'block' }))).toEqual(['body.action']);
    expect(ids(await as(tenantKey).get(`${base}?sortOrder=asc`))).toEqual([id, second.body.data.id]);
    const upd = await as(tenantKey).patch(`${base}/${id}`, { action: 'allow', brand: 'visa' });
    expect(upd.body.data).toMatchObject({ action: 'allow', brand: 'visa' });
    expectProblem(await as(tenantKey).patch(`${base}/${MISSING}`, { action: 'deny' }), 404);
    // a restriction of another terminal is not found under this one
    expectProblem(await as(tenantKey).post(`/v1/admin/terminals/${payoutTerminalId}/restrictions/${id}/disable`), 404);
    const dis = await as(tenantKey).post(`${base}/${id}/disable`);
    expect(dis.body.data.status).toBe('disabled');
    expectProblem(await as(tenantKey).post(`${base}/${id}/disable`), 409, 'INVALID_STATE_TRANSITION');
    expectProblem(await as(tenantKey).patch(`${base}/${id}`, { action: 'deny' }), 409, 'INVALID_STATE_TRANSITION');
    expect(ids(await as(tenantKey).get(`${base}?status=disabled`))).toEqual([id]);
    for (const action of ['terminal_restriction.created', 'terminal_restriction.updated', 'terminal_restriction.disabled']) {
      expect((await as(tenantKey).get(`/v1/audit-entries?action=${action}&targetId=${id}`)).body.data).toHaveLength(1);
    }
  });

  test("limits share the limit model: create, list, disable; currency must be the terminal's", async () => {
    const base = `/v1/admin/terminals/${terminalId}/limits`;
    const res = await as(tenantKey).post(base, {
      period: { value: 1, unit: 'day' },
      metric: 'volume',
      threshold: 1_000_000,
      currency: 'EUR',
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      entityType: 'terminal',
      entityId: terminalId,
      tenantId: sandbox.tenantId,
      metric: 'volume',
      threshold: 1_000_000,
      status: 'active',
    });
    const id = res.body.data.id;
    expect(
      paths(await as(tenantKey).post(base, { period: { value: 1, unit: 'day' }, metric: 'volume', threshold: 5, currency: 'JPY' })),
    ).toEqual(['body.currency']);
    expect(paths(await as(tenantKey).post(base, { period: { value: 1, unit: 'day' }, metric: 'volume', threshold: 5 }))).toEqual([
      'body.currency',
    ]);
    expect(paths(await as(tenantKey).post(base, { metric: 'count', threshold: 5 }))).toEqual(['body.period']);
    expect(ids(await as(tenantKey).get(base))).toEqual([id]);
    expect(ids(await as(platform).get(base))).toEqual([id]);
    expectProblem(await as(tenantKey).post(`/v1/admin/terminals/${payoutTerminalId}/limits/${id}/disable`), 404);
    expect((await as(tenantKey).post(`${base}/${id}/disable`)).body.data.status).toBe('disabled');
    expectProblem(await as(tenantKey).post(`${base}/${id}/disable`), 409, 'INVALID_STATE_TRANSITION');
    expect((await as(tenantKey).get(`/v1/audit-entries?action=limit.created&targetId=${id}`)).body.data).toHaveLength(1);
  });

  test('disable: active to disabled once (409 after); a disabled terminal is read-only', async () => {
    const res = await as(tenantKey).post(`/v1/admin/terminals/${payoutTerminalId}/disable`);
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('disabled');
    expectProblem(await as(tenantKey).post(`/v1/admin/terminals/${payoutTerminalId}/disable`), 409, 'INVALID_STATE_TRANSITION');
    expectProblem(await as(tenantKey).patch(`/v1/admin/terminals/${payoutTerminalId}`, { name: 'x' }), 409, 'TERMINAL_DISABLED');
    expectProblem(
      await as(tenantKey).post(`/v1/admin/terminals/${payoutTerminalId}/rotate-credentials`, {
        credentials: { accountId: 'a', signingKey: SECRETS.rejected },
      }),
      409,
      'TERMINAL_DISABLED',
    );
    expectProblem(
      await as(tenantKey).post(`/v1/admin/terminals/${payoutTerminalId}/restrictions`, { action: 'deny' }),
      409,
      'TERMINAL_DISABLED',
    );
    expect(ids(await as(tenantKey).get('/v1/admin/terminals?status=disabled'))).toEqual([payoutTerminalId]);
    expect((await as(platform).get(`/v1/audit-entries?action=terminal.disabled&targetId=${payoutTerminalId}`)).body.data).toHaveLength(1);
    // and the platform can act on any tenant's terminal
    expect((await as(platform).post(`/v1/admin/terminals/${otherTerminalId}/disable`)).body.data.status).toBe('disabled');
  });

  test('credential values appear in no response, log line, audit entry, idempotency record or table: only sealed', async () => {
    const secrets = Object.values(SECRETS);
    const found = (where: string, text: string) => secrets.filter((s) => text.includes(s)).map((s) => `${where}: ${s}`);
    expect(bodies.length).toBeGreaterThan(80);
    expect(logs.length).toBeGreaterThan(80);
    const hits: string[] = [];
    bodies.forEach((b, i) => hits.push(...found(`response ${i}`, b)));
    logs.forEach((l, i) => hits.push(...found(`log ${i}`, l)));
    // the audit trail through the API, as the tenant and the platform see it
    for (const caller of [tenantKey, platform, other.secretKey]) {
      let cursor: string | null = null;
      do {
        const page: request.Response = await as(caller).get(`/v1/audit-entries?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
        expect(page.status).toBe(200);
        hits.push(...found('audit API', JSON.stringify(page.body)));
        cursor = page.body.pagination.nextCursor;
      } while (cursor);
    }
    // every row of every table (audit entries, idempotency records and credential bindings included)
    const qi = rt.db.sequelize.getQueryInterface();
    const tables = (await qi.showAllTables()).map((t) => String((t as { tableName?: string }).tableName ?? t));
    expect(tables).toEqual(expect.arrayContaining(['audit_entries', 'idempotency_records', 'terminal_credential_bindings', 'terminals']));
    for (const table of tables) {
      const [rows] = await rt.db.sequelize.query(`SELECT * FROM "${table}"`);
      hits.push(...found(`table ${table}`, JSON.stringify(rows)));
    }
    expect(hits).toEqual([]);
    // the values exist, sealed, in the bindings only
    const bindings = await rt.db.models.CredentialBinding.findAll();
    expect(bindings.length).toBe(6); // four written here, two by the sandbox
    const opened = bindings.map((b) => rt.sealer.open(b.get('credentialsSealed') as string)).join('\n');
    for (const s of [SECRETS.account, SECRETS.apiKey, SECRETS.rotated, SECRETS.payoutKey, SECRETS.otherTenant]) expect(opened).toContain(s);
    expect(await rt.db.models.Idempotency.count()).toBeGreaterThan(0);
  });
});
