import { useApiHarness, createLiveTenantKey, expectProblem } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { connectorFor, registerConnector } from '../../src/connectors/registry';
import type { Connector, CredentialProblem } from '../../src/connectors/types';

// Terminals of the real acquirers: a livemode of their own (default: the caller's mode), and credentials the provider's
// connector checks for that mode before they are sealed (a Stripe test key on a live terminal is refused).

const STRIPE = '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e10';
const ADYEN = '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e11';
const CARD = '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e01';

const LIVE_KEY = 'sk_live_51AbCdEfGhIjKlMnOpQrStUv';
const TEST_KEY = 'sk_test_51AbCdEfGhIjKlMnOpQrStUv';
const WHSEC = 'whsec_dGVzdC1zaWduaW5nLXNlY3JldA==';

/** The check the Stripe connector makes, registered here so that this file does not wait for it. */
const checks: { livemode: boolean; keys: string[] }[] = [];
function checkStripeKey(credentials: Record<string, string>, livemode: boolean): CredentialProblem | null {
  checks.push({ livemode, keys: Object.keys(credentials).sort() });
  const expected = livemode ? 'sk_live_' : 'sk_test_';
  if (!credentials.secretKey.startsWith(expected))
    return {
      code: 'CREDENTIALS_MODE_MISMATCH',
      field: 'secretKey',
      message: `must be a ${expected} key on a ${livemode ? 'live' : 'sandbox'} terminal`,
    };
  if (!credentials.webhookSigningSecret.startsWith('whsec_'))
    return { code: 'INVALID_CREDENTIALS', field: 'webhookSigningSecret', message: 'must be a whsec_ secret' };
  return null;
}

const original = connectorFor('stripe');
const h = useApiHarness();
let tenantKey: string;
let live: { tenantId: string; secretKey: string };
let platform: string;

beforeAll(async () => {
  registerConnector('stripe', Object.assign(Object.create(original) as Connector, { checkCredentials: checkStripeKey }));
  tenantKey = h.sandbox.tenantKey.secretKey;
  platform = h.sandbox.platformToken;
  live = await createLiveTenantKey(h);
});
afterAll(() => registerConnector('stripe', original));

const stripeBody = (credentials: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  providerIntegrationId: STRIPE,
  name: 'Stripe EU',
  credentials,
  supportedCurrencies: ['EUR'],
  ...extra,
});
const paths = (res: { body: { errors?: { path: string }[] } }) => (res.body.errors ?? []).map((e) => e.path).sort();

describe(`terminals of the real acquirers (${dialectName})`, () => {
  test("livemode defaults to the caller's mode and is shown on the record; the connector checks the credentials for it", async () => {
    const sandbox = await h.as(tenantKey).post('/v1/admin/terminals', stripeBody({ secretKey: TEST_KEY, webhookSigningSecret: WHSEC }));
    expect(sandbox.status).toBe(201);
    expect(sandbox.body.data).toMatchObject({ providerIntegrationId: STRIPE, livemode: false, status: 'active' });
    expect(checks.at(-1)).toEqual({ livemode: false, keys: ['secretKey', 'webhookSigningSecret'] });
    expect((await h.as(tenantKey).get(`/v1/admin/terminals/${sandbox.body.data.id}`)).body.data.livemode).toBe(false);

    const liveOne = await h
      .as(live.secretKey)
      .post('/v1/admin/terminals', stripeBody({ secretKey: LIVE_KEY, webhookSigningSecret: WHSEC }));
    expect(liveOne.status).toBe(201);
    expect(liveOne.body.data.livemode).toBe(true);

    // a test-mode caller may create a live terminal by saying so (terminals are administered from either mode's keys)
    const explicit = await h
      .as(tenantKey)
      .post('/v1/admin/terminals', stripeBody({ secretKey: LIVE_KEY, webhookSigningSecret: WHSEC }, { livemode: true }));
    expect(explicit.status).toBe(201);
    expect(explicit.body.data.livemode).toBe(true);
    expect(checks.at(-1)?.livemode).toBe(true);

    // the sandbox acquirer's terminals are sandbox terminals unless said otherwise
    const card = await h.as(tenantKey).post('/v1/admin/terminals', {
      providerIntegrationId: CARD,
      name: 'Cards',
      credentials: { merchantAccount: 'm', apiKey: 'k' },
      supportedCurrencies: ['EUR'],
    });
    expect(card.status).toBe(201);
    expect(card.body.data.livemode).toBe(false);
  });

  test("credentials that do not fit the mode are 400 with the connector's code naming the field, never echoing a value", async () => {
    const mismatch = await h.as(tenantKey).post('/v1/admin/terminals', stripeBody({ secretKey: LIVE_KEY, webhookSigningSecret: WHSEC }));
    expectProblem(mismatch, 400, 'CREDENTIALS_MODE_MISMATCH');
    expect(mismatch.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(paths(mismatch)).toEqual(['body.credentials.secretKey']);
    expect(JSON.stringify(mismatch.body)).not.toContain(LIVE_KEY);
    expectProblem(
      await h
        .as(tenantKey)
        .post('/v1/admin/terminals', stripeBody({ secretKey: TEST_KEY, webhookSigningSecret: WHSEC }, { livemode: true })),
      400,
      'CREDENTIALS_MODE_MISMATCH',
    );
    const secret = await h.as(tenantKey).post('/v1/admin/terminals', stripeBody({ secretKey: TEST_KEY, webhookSigningSecret: 'nope' }));
    expectProblem(secret, 400, 'INVALID_CREDENTIALS');
    expect(paths(secret)).toEqual(['body.credentials.webhookSigningSecret']);
    // the schema is checked first: a missing field is named before the connector is asked
    const asked = checks.length;
    const missing = await h.as(tenantKey).post('/v1/admin/terminals', stripeBody({ secretKey: TEST_KEY }));
    expectProblem(missing, 400, 'INVALID_CREDENTIALS');
    expect(paths(missing)).toEqual(['body.credentials.webhookSigningSecret']);
    expect(checks.length).toBe(asked);
    expect(
      paths(
        await h
          .as(tenantKey)
          .post('/v1/admin/terminals', stripeBody({ secretKey: TEST_KEY, webhookSigningSecret: WHSEC }, { livemode: 'yes' })),
      ),
    ).toEqual(['body.livemode']);
    // nothing was created by the refusals
    const list = await h.as(platform).get(`/v1/admin/terminals?providerIntegrationId=${STRIPE}&limit=100`);
    expect(list.body.data).toHaveLength(3);
  });

  test("rotate-credentials is checked for the terminal's own mode", async () => {
    const liveOne = await h
      .as(live.secretKey)
      .post('/v1/admin/terminals', stripeBody({ secretKey: LIVE_KEY, webhookSigningSecret: WHSEC }));
    const id = liveOne.body.data.id as string;
    // the terminal's mode decides (a test key is refused on a live terminal)
    const wrong = await h.as(live.secretKey).post(`/v1/admin/terminals/${id}/rotate-credentials`, {
      credentials: { secretKey: TEST_KEY, webhookSigningSecret: WHSEC },
    });
    expectProblem(wrong, 400, 'CREDENTIALS_MODE_MISMATCH');
    expect(paths(wrong)).toEqual(['body.credentials.secretKey']);
    const right = await h.as(live.secretKey).post(`/v1/admin/terminals/${id}/rotate-credentials`, {
      credentials: { secretKey: `${LIVE_KEY}X`, webhookSigningSecret: WHSEC },
    });
    expect(right.status).toBe(200);
    expect(right.body.data.credentialBindingId).not.toBe(liveOne.body.data.credentialBindingId);
    expect(right.body.data.livemode).toBe(true);
  });

  test('a provider whose connector has no credential check takes any credentials its schema allows', async () => {
    const adyen = connectorFor('adyen');
    registerConnector('adyen', Object.assign(Object.create(adyen) as Connector, { checkCredentials: undefined }));
    const res = await h.as(tenantKey).post('/v1/admin/terminals', {
      providerIntegrationId: ADYEN,
      name: 'Adyen EU',
      credentials: { apiKey: 'AQE1-test', merchantAccount: 'PayplaneECOM', hmacKey: '44782DEF547AAA06C910C43932B1EB0C' },
      supportedCurrencies: ['EUR'],
    });
    registerConnector('adyen', adyen);
    expect(res.status).toBe(201);
    expect(res.body.data.livemode).toBe(false);
  });
});
