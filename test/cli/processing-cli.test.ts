import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { dialectName, testConfig } from '../helpers/db';
import { hasScript, runOnTerminal, useCliSandbox } from '../helpers/cli';
import { describeWhenPresent } from '../helpers/prerequisite';
import { openRuntime, closeRuntime } from '../../src/runtime';
import { createApp } from '../../src/http/app';

const CARD = '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e01';
const SECRET_KEY = 'cli-apikey-Pq8Wn3Zr-SECRETVALUE';
const SECRET_ACCOUNT = 'cli-account-Lk2Jh7Gf-SECRETVALUE';
const ROTATED = 'cli-rotated-Vb6Nm1Xc-SECRETVALUE';
const STRIPE = '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e10';
const ADYEN = '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e11';
const STRIPE_TEST_KEY = 'sk_test_cliPq8Wn3ZrSECRETVALUE';
const STRIPE_LIVE_KEY = 'sk_live_cliLk2Jh7GfSECRETVALUE';
const WHSEC = 'whsec_Y2xpLXNpZ25pbmctc2VjcmV0';
const ADYEN_API_KEY = 'AQE-cli-Vb6Nm1Xc-SECRETVALUE';
const ADYEN_HMAC = 'ABCDEF0123456789ABCDEF0123456789';

const s = useCliSandbox();
const cli = s.cli;

async function apiGet(p: string, key: string) {
  const rt = await openRuntime(testConfig(s.db));
  try {
    return await request(createApp(rt)).get(p).set('Authorization', `Bearer ${key}`);
  } finally {
    await closeRuntime(rt);
  }
}

describe(`payplane terminals and providers (${dialectName})`, () => {
  test('providers list, get and set-status', async () => {
    const list = await cli('providers', 'list', '--json');
    expect(list.status).toBe(0);
    expect(list.json().data.map((p: { code: string }) => p.code)).toEqual([
      'sandbox-card',
      'sandbox-card-single-refund',
      'stripe',
      'adyen',
      'sandbox-payout',
    ]);
    const table = await cli('providers', 'get', CARD);
    expect(table.status).toBe(0);
    expect(table.stdout).toContain('sandbox-card');
    expect(table.stdout).toContain('partial_refund');
    expect((await cli('providers', 'set-status', CARD, 'maintenance', '--json')).json().status).toBe('maintenance');
    expect((await cli('providers', 'set-status', CARD, 'available', '--json')).json().status).toBe('available');
    expect((await cli('providers', 'set-status', CARD, 'offline', '--json')).status).not.toBe(0);
  });

  test('terminals: create from a credentials file or flags, 3DS, MPI accounts, restrictions, limits, rotate, disable; credentials never echoed', async () => {
    const file = path.join(s.db.home, 'creds.json');
    fs.writeFileSync(file, JSON.stringify({ merchantAccount: SECRET_ACCOUNT, apiKey: SECRET_KEY }));
    const created = await cli(
      'terminals',
      'create',
      '--tenant',
      s.sandbox.tenantId,
      '--provider',
      CARD,
      '--name',
      'EU cards',
      '--currency',
      'EUR',
      '--currency',
      'USD',
      '--brand',
      'visa',
      '--brand',
      'mastercard',
      '--mcc',
      '5999',
      '--credentials-file',
      file,
      '--json',
    );
    expect(created.status).toBe(0);
    const terminal = created.json();
    expect(terminal).toMatchObject({
      tenantId: s.sandbox.tenantId,
      name: 'EU cards',
      supportedCurrencies: ['EUR', 'USD'],
      status: 'active',
    });
    const api = await apiGet(`/v1/admin/terminals/${terminal.id}`, s.sandbox.tenantKey.secretKey);
    expect(api.body.data).toEqual(terminal);

    // validation names the flag; a missing credential names the field, never a value
    const missing = await cli(
      'terminals',
      'create',
      '--tenant',
      s.sandbox.tenantId,
      '--provider',
      CARD,
      '--name',
      'X',
      '--currency',
      'EUR',
      '--credential',
      `merchantAccount=${SECRET_ACCOUNT}`,
      '--json',
    );
    expect(missing.status).toBe(2);
    expect(missing.json().error.errors).toEqual([{ path: 'body.credentials.apiKey', message: expect.any(String) }]);
    const badCurrency = await cli(
      'terminals',
      'create',
      '--tenant',
      s.sandbox.tenantId,
      '--provider',
      CARD,
      '--name',
      'X',
      '--currency',
      'eur',
      '--credential',
      `merchantAccount=${SECRET_ACCOUNT}`,
      '--credential',
      `apiKey=${SECRET_KEY}`,
      '--json',
    );
    expect(badCurrency.status).toBe(2);
    expect(badCurrency.json().error.errors[0].path).toBe('--currency[0]');
    const noCreds = await cli(
      'terminals',
      'create',
      '--tenant',
      s.sandbox.tenantId,
      '--provider',
      CARD,
      '--name',
      'X',
      '--currency',
      'EUR',
      '--json',
    );
    expect(noCreds.json().error.code).toBe('MISSING_FLAG');

    // list in a table
    const table = await cli('terminals', 'list', '--tenant', s.sandbox.tenantId);
    expect(table.status).toBe(0);
    expect(table.stdout).toContain('EU cards');

    // 3DS and MPI accounts
    expect(
      (await cli('terminals', '3ds', 'set', terminal.id, '--enabled', '--process-only-3ds-cards', '--json')).json().threeDsConfig,
    ).toMatchObject({ enabled: true, rules: { processOnly3dsCards: true, allowMerchantDisable: true } });
    const mpi = await cli(
      'terminals',
      'mpi-accounts',
      'add',
      terminal.id,
      '--brand',
      'visa',
      '--merchant-name',
      'Shop',
      '--acquirer-bin',
      '412345',
      '--json',
    );
    expect(mpi.json()).toMatchObject({ brand: 'visa', merchantName: 'Shop', mcc: '5999', preferredVersion: '2.2.0' });
    expect((await cli('terminals', 'mpi-accounts', 'add', terminal.id, '--brand', 'visa', '--json')).status).toBe(5);
    expect((await cli('terminals', 'mpi-accounts', 'update', terminal.id, 'visa', '--no-enabled', '--json')).json().enabled).toBe(false);
    // set keeps the MPI accounts
    expect((await cli('terminals', '3ds', 'set', terminal.id, '--no-enabled', '--json')).json().threeDsConfig.mpiAccounts).toHaveLength(1);
    const shown = await cli('terminals', '3ds', 'show', terminal.id, '--json');
    expect(shown.json()).toMatchObject({ enabled: false, mpiAccounts: [{ brand: 'visa', enabled: false }] });
    expect(
      (await cli('terminals', 'mpi-accounts', 'delete', terminal.id, 'visa', '--yes', '--json')).json().threeDsConfig.mpiAccounts,
    ).toEqual([]);

    // restrictions and limits
    const restriction = (
      await cli('terminals', 'restrictions', 'create', terminal.id, '--action', 'deny', '--brand', 'mastercard', '--json')
    ).json();
    expect(restriction).toMatchObject({ action: 'deny', brand: 'mastercard', status: 'active' });
    expect(
      (await cli('terminals', 'restrictions', 'update', terminal.id, restriction.id, '--brand', 'null', '--json')).json().brand,
    ).toBeNull();
    expect((await cli('terminals', 'restrictions', 'list', terminal.id, '--json')).json().data).toHaveLength(1);
    expect((await cli('terminals', 'restrictions', 'disable', terminal.id, restriction.id, '--yes', '--json')).json().status).toBe(
      'disabled',
    );
    const limit = (
      await cli('terminals', 'limits', 'create', terminal.id, '--period-unit', 'day', '--metric', 'count', '--threshold', '100', '--json')
    ).json();
    expect(limit).toMatchObject({ entityType: 'terminal', entityId: terminal.id, threshold: 100 });
    expect((await cli('terminals', 'limits', 'list', terminal.id, '--json')).json().data).toHaveLength(1);
    expect((await cli('terminals', 'limits', 'disable', terminal.id, limit.id, '--yes', '--json')).json().status).toBe('disabled');

    // update, rotate, disable (twice: exit 5)
    expect((await cli('terminals', 'update', terminal.id, '--name', 'EU cards 2', '--json')).json().name).toBe('EU cards 2');
    const rotated = await cli(
      'terminals',
      'rotate-credentials',
      terminal.id,
      '--credential',
      `merchantAccount=${SECRET_ACCOUNT}`,
      '--credential',
      `apiKey=${ROTATED}`,
    );
    expect(rotated.status).toBe(0);
    expect(rotated.stdout).toContain('credential binding');
    expect((await cli('terminals', 'disable', terminal.id, '--yes', '--json')).json().status).toBe('disabled');
    const again = await cli('terminals', 'disable', terminal.id, '--yes', '--json');
    expect(again.status).toBe(5);
    expect(again.json().error.code).toBe('INVALID_STATE_TRANSITION');

    // nothing the CLI printed holds a credential value
    for (const out of s.outputs) {
      for (const secret of [SECRET_KEY, SECRET_ACCOUNT, ROTATED]) {
        expect(out.stdout).not.toContain(secret);
        expect(out.stderr).not.toContain(secret);
      }
    }
  });

  test('providers: the real acquirers listed with what their connectors do; update --base-url by code, audited, --reset', async () => {
    const table = await cli('providers', 'list');
    expect(table.status).toBe(0);
    expect(table.stdout).toContain('Implemented');
    const stripeRow = table.stdout.split('\n').find((line) => line.includes(' stripe '));
    expect(stripeRow).toContain('authorize capture void refund; partial_capture partial_refund multiple_refunds manual_capture three_ds');
    expect(table.stdout).toContain('adyen');
    const records = (await cli('providers', 'list', '--json')).json().data;
    expect(records.find((p: { code: string }) => p.code === 'adyen')).toMatchObject({
      id: ADYEN,
      connectorBaseUrl: 'https://checkout-test.adyen.com',
    });

    const updated = await cli('providers', 'update', 'adyen', '--base-url', 'https://checkout-test.adyen.com/checkout/', '--json');
    expect(updated.status).toBe(0);
    expect(updated.json()).toMatchObject({ id: ADYEN, code: 'adyen', connectorBaseUrl: 'https://checkout-test.adyen.com/checkout' });
    expect((await apiGet(`/v1/admin/provider-integrations/${ADYEN}`, s.sandbox.tenantKey.secretKey)).body.data.connectorBaseUrl).toBe(
      'https://checkout-test.adyen.com/checkout',
    );
    expect((await cli('providers', 'get', 'adyen')).stdout).toContain('https://checkout-test.adyen.com/checkout');

    for (const url of ['http://checkout-test.adyen.com', 'https://127.0.0.1:8443', 'https://localhost']) {
      const refused = await cli('providers', 'update', 'adyen', '--base-url', url, '--json');
      expect(refused.status).toBe(2);
      expect(refused.json().error).toMatchObject({ code: 'CONNECTOR_BASE_URL_NOT_ALLOWED', errors: [{ path: '--base-url' }] });
    }
    const unknown = await cli('providers', 'update', 'no-such-acquirer', '--base-url', 'https://a.example', '--json');
    expect(unknown.status).not.toBe(0);
    expect(unknown.json().error.code).toBe('RESOURCE_NOT_FOUND');
    const nothing = await cli('providers', 'update', 'adyen', '--json');
    expect(nothing.json().error.errors).toEqual([{ path: '--base-url', message: 'is required' }]);

    const reset = await cli('providers', 'update', 'adyen', '--reset', '--json');
    expect(reset.json().connectorBaseUrl).toBe('https://checkout-test.adyen.com');
    // the CLI acts as the platform in live mode: its entries are live ones
    const rt = await openRuntime(testConfig(s.db));
    try {
      const entries = await rt.db.models.AuditEntry.findAll({
        where: { action: 'provider_integration.updated' },
        order: [['createdAt', 'ASC']],
      });
      expect(entries.map((e) => [e.get('targetId'), (e.get('after') as { connectorBaseUrl: string }).connectorBaseUrl])).toEqual([
        [ADYEN, 'https://checkout-test.adyen.com/checkout'],
        [ADYEN, 'https://checkout-test.adyen.com'],
      ]);
    } finally {
      await closeRuntime(rt);
    }
  });

  test('terminals create --provider stripe: --livemode, and in a script every credential must be given', async () => {
    const base = ['terminals', 'create', '--tenant', s.sandbox.tenantId, '--provider', 'stripe', '--currency', 'EUR'];
    const sandboxOne = await cli(
      ...base,
      '--name',
      'Stripe test',
      '--credential',
      `secretKey=${STRIPE_TEST_KEY}`,
      '--credential',
      `webhookSigningSecret=${WHSEC}`,
      '--json',
    );
    expect(sandboxOne.status).toBe(0);
    expect(sandboxOne.json()).toMatchObject({ providerIntegrationId: STRIPE, livemode: false });
    const liveOne = await cli(
      ...base,
      '--name',
      'Stripe live',
      '--livemode',
      '--credential',
      `secretKey=${STRIPE_LIVE_KEY}`,
      '--credential',
      `webhookSigningSecret=${WHSEC}`,
      '--json',
    );
    expect(liveOne.status).toBe(0);
    expect(liveOne.json().livemode).toBe(true);
    expect(liveOne.stdout).not.toContain(STRIPE_LIVE_KEY);
    expect((await cli('terminals', 'get', liveOne.json().id)).stdout).toMatch(/livemode\s+true/i);

    const missing = await cli(...base, '--name', 'Half', '--credential', `secretKey=${STRIPE_TEST_KEY}`, '--json');
    expect(missing.status).toBe(2);
    expect(missing.json().error.errors).toEqual([{ path: 'body.credentials.webhookSigningSecret', message: expect.any(String) }]);
    expect(missing.stdout + missing.stderr).not.toContain(STRIPE_TEST_KEY);
    const none = await cli(...base, '--name', 'None', '--json');
    expect(none.status).toBe(2);
    expect(none.json().error.code).toBe('MISSING_FLAG');
  });
});

describeWhenPresent('the terminal tests', hasScript() ? null : 'no `script` command (bsdutils)')(
  `terminals create on a terminal (${dialectName})`,
  () => {
    test("asks for each credential of the provider's credentialSchema not given, the secret ones without echo", async () => {
      const run = await runOnTerminal(
        ['terminals', 'create', '--tenant', s.sandbox.tenantId, '--provider', 'adyen', '--name', 'Adyen prompted', '--currency', 'EUR'],
        {
          cols: 250,
          env: s.env,
          timeoutMs: 45_000,
          steps: [
            { waitFor: 'API key of the web service user', keys: `${ADYEN_API_KEY}\r` },
            { waitFor: 'Merchant account', keys: 'PayplaneECOM\r' },
            { waitFor: 'HMAC key', keys: `${ADYEN_HMAC}\r` },
            { waitFor: 'Live endpoint URL prefix', keys: '\r' },
          ],
        },
      );
      const screen = run.text.replace(/\r/g, '');
      expect(run.status).toBe(0);
      expect(screen).toContain('Adyen prompted');
      // the merchant account is typed in the open; the API key and the HMAC key are never shown
      expect(screen).toContain('PayplaneECOM');
      expect(screen).not.toContain(ADYEN_API_KEY);
      expect(screen).not.toContain(ADYEN_HMAC);
      const list = (await cli('terminals', 'list', '--tenant', s.sandbox.tenantId, '--json')).json().data;
      const created = list.find((t: { name: string }) => t.name === 'Adyen prompted');
      expect(created).toMatchObject({ providerIntegrationId: ADYEN, livemode: false });
    }, 120_000);
  },
);
