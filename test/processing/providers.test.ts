import dns from 'node:dns';
import { useApiHarness, createLiveTenantKey, expectProblem } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { providerCatalog, supportsFeature } from '../../src/services/processing/providers';
import { connectorFor, HttpConnector, ConnectorError, SandboxCardConnector, SandboxPayoutConnector } from '../../src/connectors';

let platform: string;
let tenantKey: string;
let merchantKey: string;
let liveKey: string;

const CARD = '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e01';
const PAYOUT = '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e02';
const SINGLE = '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e03';
const STRIPE = '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e10';
const ADYEN = '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e11';
const MISSING = '00000000-0000-4000-8000-000000000000';

// a local fake of an acquirer may be reached in this range only
const h = useApiHarness({ config: { connectorAllowCidrs: ['10.20.0.0/16'] } });
beforeAll(async () => {
  platform = h.sandbox.platformToken;
  tenantKey = h.sandbox.tenantKey.secretKey;
  merchantKey = h.sandbox.merchantKey.secretKey;
  liveKey = (await createLiveTenantKey(h)).secretKey;
});

const paths = (res: { body: { errors?: { path: string }[] } }) => (res.body.errors ?? []).map((e) => e.path).sort();

describe(`provider integrations (${dialectName})`, () => {
  test('the catalog holds the sandbox card acquirer and the sandbox payout provider with what they really support', async () => {
    const res = await h.as(tenantKey).get('/v1/admin/provider-integrations');
    expect(res.status).toBe(200);
    expect(res.body.data.map((p: { code: string }) => p.code).sort()).toEqual([
      'adyen',
      'sandbox-card',
      'sandbox-card-single-refund',
      'sandbox-payout',
      'stripe',
    ]);
    expect(res.body.pagination).toMatchObject({ totalCount: 5, hasMore: false });
    const card = (await h.as(tenantKey).get(`/v1/admin/provider-integrations/${CARD}`)).body.data;
    expect(card).toMatchObject({
      id: CARD,
      code: 'sandbox-card',
      category: 'card_acquirer',
      protocol: 'rest',
      status: 'available',
      testModeAvailable: true,
      capabilityOverlay: null,
      credentialSchema: { type: 'object', required: ['merchantAccount', 'apiKey'] },
    });
    const cardMethod = card.supportedPaymentMethods.find((m: { method: string }) => m.method === 'card');
    expect(cardMethod.brands).toEqual(expect.arrayContaining(['visa', 'mastercard', 'amex']));
    expect(cardMethod.currencies).toEqual(expect.arrayContaining(['EUR', 'USD', 'GBP']));
    expect(cardMethod.operations.map((o: { operation: string }) => o.operation).sort()).toEqual(['authorize', 'capture', 'refund', 'void']);
    expect(card.supportedFeatures).toEqual(
      expect.arrayContaining([
        { feature: 'partial_refund', supported: true, implemented: true },
        { feature: 'single_full_refund_only', supported: false, implemented: false },
      ]),
    );
    expect(card.supportedThreeDSVersions.length).toBeGreaterThan(0);
    expect(card.storedCredentialCapabilities.cardOnFile).toEqual({ supported: true, implemented: true });
    const payout = (await h.as(platform).get(`/v1/admin/provider-integrations/${PAYOUT}`)).body.data;
    expect(payout).toMatchObject({ code: 'sandbox-payout', category: 'payout' });
    expect(payout.supportedPaymentMethods[0].operations).toEqual([{ operation: 'payout', supported: true, implemented: true }]);
    // the fixture loads through the catalog validation
    expect(providerCatalog()).toHaveLength(5);
    const single = res.body.data.find((p: { code: string }) => p.code === 'sandbox-card-single-refund');
    const features = Object.fromEntries(
      single.supportedFeatures.map((f: { feature: string; supported: boolean }) => [f.feature, f.supported]),
    );
    expect(features).toMatchObject({ single_full_refund_only: true, partial_refund: false, multiple_refunds: false });
  });

  test('lists paginate and filter; tenants of either mode see the same platform-wide catalog', async () => {
    const first = await h.as(tenantKey).get('/v1/admin/provider-integrations?limit=1&sortOrder=asc');
    expect(first.body.data.map((p: { id: string }) => p.id)).toEqual([CARD]);
    expect(first.body.pagination).toMatchObject({ hasMore: true, nextCursor: SINGLE, prevCursor: null });
    const second = await h.as(tenantKey).get(`/v1/admin/provider-integrations?limit=1&sortOrder=asc&cursor=${SINGLE}`);
    expect(second.body.data.map((p: { id: string }) => p.id)).toEqual([SINGLE]);
    expect(second.body.pagination).toMatchObject({ hasMore: true, nextCursor: STRIPE, prevCursor: CARD });
    // same createdAt: by id (…9e10 and …9e11 after …9e03); the payout provider's createdAt is a second later
    const third = await h.as(tenantKey).get(`/v1/admin/provider-integrations?limit=2&sortOrder=asc&cursor=${STRIPE}`);
    expect(third.body.data.map((p: { id: string }) => p.id)).toEqual([STRIPE, ADYEN]);
    expect(third.body.pagination).toMatchObject({ hasMore: true, nextCursor: PAYOUT });
    const last = await h.as(tenantKey).get(`/v1/admin/provider-integrations?limit=1&sortOrder=asc&cursor=${PAYOUT}`);
    expect(last.body.data.map((p: { id: string }) => p.id)).toEqual([PAYOUT]);
    expect(last.body.pagination).toMatchObject({ hasMore: false, prevCursor: ADYEN });
    expect((await h.as(liveKey).get('/v1/admin/provider-integrations?category=payout')).body.data.map((p: { id: string }) => p.id)).toEqual(
      [PAYOUT],
    );
    expect((await h.as(platform).get('/v1/admin/provider-integrations?code=sandbox-card')).body.data).toHaveLength(1);
    expect(paths(await h.as(tenantKey).get(`/v1/admin/provider-integrations?cursor=${MISSING}`))).toEqual(['query.cursor']);
    expect(paths(await h.as(tenantKey).get('/v1/admin/provider-integrations?status=broken'))).toEqual(['query.status']);
    expectProblem(await h.as(tenantKey).get(`/v1/admin/provider-integrations/${MISSING}`), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await h.as(tenantKey).get('/v1/admin/provider-integrations/not-a-uuid'), 404);
    expectProblem(await h.as(merchantKey).get('/v1/admin/provider-integrations'), 403);
  });

  test('status changes are platform only, any to any, audited', async () => {
    expectProblem(await h.as(tenantKey).patch(`/v1/admin/provider-integrations/${CARD}/status`, { status: 'maintenance' }), 403);
    expect(paths(await h.as(platform).patch(`/v1/admin/provider-integrations/${CARD}/status`, { status: 'offline' }))).toEqual([
      'body.status',
    ]);
    expectProblem(await h.as(platform).patch(`/v1/admin/provider-integrations/${MISSING}/status`, { status: 'maintenance' }), 404);
    h.clock.advance(1000);
    const res = await h.as(platform).patch(`/v1/admin/provider-integrations/${CARD}/status`, { status: 'maintenance' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'maintenance', updatedAt: '2026-03-01T12:00:01.000Z' });
    expect((await h.as(tenantKey).get(`/v1/admin/provider-integrations/${CARD}`)).body.data.status).toBe('maintenance');
    expect(
      (await h.as(tenantKey).get('/v1/admin/provider-integrations?status=maintenance')).body.data.map((p: { id: string }) => p.id),
    ).toEqual([CARD]);
    for (const status of ['deprecated', 'available']) {
      expect((await h.as(platform).patch(`/v1/admin/provider-integrations/${CARD}/status`, { status })).body.data.status).toBe(status);
    }
    const audit = await h.as(platform).get(`/v1/audit-entries?action=provider_integration.status_changed&targetId=${CARD}&sortOrder=asc`);
    expect(
      audit.body.data.map((e: { before: { status: string }; after: { status: string } }) => `${e.before.status}>${e.after.status}`),
    ).toEqual(['available>maintenance', 'maintenance>deprecated', 'deprecated>available']);
    const rows = await h.rt.db.models.ProviderOverlay.findAll();
    expect(rows.map((r) => r.get('id'))).toEqual([CARD]);
  });

  test('capability overlays adjust declared capabilities, merge, never claim more than declared, and are audited', async () => {
    const url = `/v1/admin/provider-integrations/${CARD}/capabilities`;
    expectProblem(await h.as(tenantKey).patch(url, { supportedFeatures: [{ feature: 'partial_refund', supported: false }] }), 403);
    const res = await h.as(platform).patch(url, {
      supportedFeatures: [{ feature: 'partial_refund', supported: false }],
      supportedPaymentMethods: [
        { method: 'card', brands: ['visa', 'mastercard'], operations: [{ operation: 'void', implemented: false }] },
      ],
    });
    expect(res.status).toBe(200);
    const p = res.body.data;
    expect(p.supportedFeatures).toContainEqual({ feature: 'partial_refund', supported: false, implemented: true });
    expect(p.supportedPaymentMethods[0].brands).toEqual(['visa', 'mastercard']);
    expect(p.supportedPaymentMethods[0].operations).toContainEqual({ operation: 'void', supported: true, implemented: false });
    expect(p.capabilityOverlay).toEqual({
      features: { partial_refund: { supported: false } },
      paymentMethods: { card: { brands: ['visa', 'mastercard'], operations: { void: { implemented: false } } } },
    });
    // a second adjustment merges with the first
    const merged = await h
      .as(platform)
      .patch(url, { storedCredentialCapabilities: { cardOnFile: { supported: false } }, cutoffTimeUtc: '21:30' });
    expect(merged.body.data).toMatchObject({
      cutoffTimeUtc: '21:30',
      storedCredentialCapabilities: { cardOnFile: { supported: false, implemented: true } },
    });
    expect(merged.body.data.supportedFeatures).toContainEqual({ feature: 'partial_refund', supported: false, implemented: true });
    // what every reader sees, and what the payment path asks
    const seen = (await h.as(tenantKey).get(`/v1/admin/provider-integrations/${CARD}`)).body.data;
    expect(supportsFeature(seen, 'partial_refund')).toBe(false);
    // validation names the field: undeclared method, feature, brand; claiming an undeclared capability
    const bad = await h.as(platform).patch(url, {
      supportedPaymentMethods: [
        { method: 'sepa', supported: false },
        { method: 'card', brands: ['discover'] },
      ],
      supportedFeatures: [
        { feature: 'teleport', supported: false },
        { feature: 'single_full_refund_only', supported: true },
      ],
    });
    expectProblem(bad, 400);
    expect(paths(bad)).toEqual([
      'body.supportedFeatures[0].feature',
      'body.supportedFeatures[1].supported',
      'body.supportedPaymentMethods[0].method',
      'body.supportedPaymentMethods[1].brands[0]',
    ]);
    expect(paths(await h.as(platform).patch(url, {}))).toEqual(['body']);
    expect(paths(await h.as(platform).patch(url, { cutoffTimeUtc: '25:00' }))).toEqual(['body.cutoffTimeUtc']);
    // reset drops the earlier adjustments
    const reset = await h.as(platform).patch(url, { reset: true });
    expect(reset.body.data.capabilityOverlay).toBeNull();
    expect(reset.body.data.supportedFeatures).toContainEqual({ feature: 'partial_refund', supported: true, implemented: true });
    const audit = await h.as(platform).get(`/v1/audit-entries?action=provider_integration.capabilities_adjusted&targetId=${CARD}`);
    expect(audit.body.data).toHaveLength(3);
  });

  test('connectors: the sandbox providers run in-process; other providers are served over HTTP at connectorBaseUrl, never inventing a result', async () => {
    expect(connectorFor('sandbox-card')).toBeInstanceOf(SandboxCardConnector);
    expect(connectorFor('sandbox-payout')).toBeInstanceOf(SandboxPayoutConnector);
    expect(connectorFor('some-external-acquirer')).toBeInstanceOf(HttpConnector);
    const env = { db: h.rt.db, clock: h.clock, config: h.rt.config };
    const calls: string[] = [];
    const connector = new HttpConnector({
      fetch: (async (url: string, init: { body: string }) => {
        calls.push(url);
        expect(JSON.parse(init.body).credentials).toEqual({ apiKey: 'k' });
        return new Response(JSON.stringify({ status: 'succeeded', providerReference: 'psp_1' }), { status: 200 });
      }) as unknown as typeof fetch,
    });
    const terminal = {
      terminalId: MISSING,
      providerIntegrationId: CARD,
      connectorBaseUrl: 'https://connectors.example/card/',
      credentials: { apiKey: 'k' },
      mcc: null,
      descriptor: null,
      livemode: false,
    };
    await expect(
      connector.capture(env, terminal, { reference: 'r', providerReference: 'p', amount: { currency: 'EUR', valueMinor: 100 } }),
    ).resolves.toMatchObject({ status: 'succeeded', providerReference: 'psp_1' });
    expect(calls).toEqual(['https://connectors.example/card/capture']);
    const broken = new HttpConnector({ fetch: (async () => new Response('nope', { status: 200 })) as unknown as typeof fetch });
    await expect(
      broken.refund(env, terminal, {
        reference: 'r',
        tenantId: MISSING,
        livemode: false,
        providerReference: 'p',
        amount: { currency: 'EUR', valueMinor: 1 },
      }),
    ).rejects.toBeInstanceOf(ConnectorError);
    await expect(
      connector.payout(
        env,
        { ...terminal, connectorBaseUrl: 'http://plain.example' },
        {
          reference: 'r',
          tenantId: MISSING,
          livemode: false,
          amount: { currency: 'EUR', valueMinor: 1 },
          destination: { type: 'bank_account', details: {} },
        },
      ),
    ).rejects.toBeInstanceOf(ConnectorError);
  });

  test('stripe and adyen claim implemented only what their connectors do: card authorize, capture, void, refund; partial and manual captures, partial and multiple refunds, 3DS by redirect', async () => {
    for (const [id, code, credentials] of [
      [STRIPE, 'stripe', ['secretKey', 'webhookSigningSecret']],
      [ADYEN, 'adyen', ['apiKey', 'merchantAccount', 'hmacKey', 'liveEndpointUrlPrefix']],
    ] as const) {
      const p = (await h.as(tenantKey).get(`/v1/admin/provider-integrations/${id}`)).body.data;
      expect(p).toMatchObject({ id, code, category: 'card_acquirer', status: 'available', testModeAvailable: true });
      expect(Object.keys(p.credentialSchema.properties)).toEqual(credentials);
      const on = (list: Record<string, unknown>[], key: string) =>
        list
          .filter((x) => x.implemented)
          .map((x) => String(x[key]))
          .sort();
      expect(on(p.supportedPaymentMethods, 'method')).toEqual(['card']);
      expect(on(p.supportedPaymentMethods[0].operations, 'operation')).toEqual(['authorize', 'capture', 'refund', 'void']);
      expect(on(p.supportedFeatures, 'feature')).toEqual([
        'manual_capture',
        'multiple_refunds',
        'partial_capture',
        'partial_refund',
        'three_ds',
      ]);
      expect(on(p.threeDsCapabilities.executionModels, 'model')).toEqual(['gateway_full']);
      expect(on(p.threeDsCapabilities.challengeFlows, 'flow')).toEqual(['challenge', 'frictionless']);
      const controls = Object.entries(p.threeDsCapabilities.controls).filter(
        ([, v]) => typeof v === 'object' && !Array.isArray(v) && (v as { implemented: boolean }).implemented,
      );
      expect(controls).toEqual([]);
      expect(Object.values(p.storedCredentialCapabilities).filter((f) => (f as { implemented: boolean }).implemented)).toEqual([]);
    }
  });

  test("PATCH connectorBaseUrl: platform only, https to a public or allowed host, audited, read back as the connector's", async () => {
    const url = `/v1/admin/provider-integrations/${ADYEN}`;
    expectProblem(await h.as(tenantKey).patch(url, { connectorBaseUrl: 'https://adyen.proxy.example' }), 403, 'LEVEL_NOT_ALLOWED');
    expectProblem(await h.as(merchantKey).patch(url, { connectorBaseUrl: 'https://adyen.proxy.example' }), 403);
    expectProblem(await h.as(liveKey).patch(url, { connectorBaseUrl: 'https://adyen.proxy.example' }), 403);
    expectProblem(await h.as(platform).patch(`/v1/admin/provider-integrations/${MISSING}`, { connectorBaseUrl: 'https://a.example' }), 404);

    const refused = async (connectorBaseUrl: unknown, code?: string) => {
      const res = await h.as(platform).patch(url, { connectorBaseUrl });
      expectProblem(res, 400, code);
      expect(paths(res)).toEqual(['body.connectorBaseUrl']);
      return res;
    };
    await refused('http://checkout-test.adyen.com', 'CONNECTOR_BASE_URL_NOT_ALLOWED');
    await refused('not a url', 'CONNECTOR_BASE_URL_NOT_ALLOWED');
    await refused('https://user:pass@checkout-test.adyen.com', 'CONNECTOR_BASE_URL_NOT_ALLOWED');
    for (const host of ['127.0.0.1', 'localhost', '10.0.0.5', '[::1]', '169.254.169.254', '192.168.1.10:8443'])
      expect((await refused(`https://${host}/v71`, 'CONNECTOR_BASE_URL_NOT_ALLOWED')).body.detail).toMatch(/private|loopback|reserved/);
    await refused(42);
    await refused('');
    expect(paths(await h.as(platform).patch(url, {}))).toEqual(['body.connectorBaseUrl']);
    expect(paths(await h.as(platform).patch(url, { connectorBaseUrl: 'https://a.example', status: 'maintenance' }))).toEqual([
      'body.status',
    ]);

    // a name is resolved once at save: every address must be public or allowed
    const lookup = jest.spyOn(dns.promises, 'lookup');
    try {
      lookup.mockResolvedValueOnce([
        { address: '203.0.114.7', family: 4 },
        { address: '172.16.0.9', family: 4 },
      ] as never);
      expect((await refused('https://rebinding.example', 'CONNECTOR_BASE_URL_NOT_ALLOWED')).body.detail).toContain('172.16.0.9');
      lookup.mockResolvedValueOnce([{ address: '10.20.0.8', family: 4 }] as never);
      const allowedName = await h.as(platform).patch(url, { connectorBaseUrl: 'https://fake-adyen.internal/' });
      expect(allowedName.status).toBe(200);
      expect(allowedName.body.data.connectorBaseUrl).toBe('https://fake-adyen.internal');
    } finally {
      lookup.mockRestore();
    }

    // a literal address in PAYPLANE_CONNECTOR_ALLOW_CIDRS (a local fake of the acquirer)
    h.clock.advance(1000);
    const saved = await h.as(platform).patch(url, { connectorBaseUrl: 'https://10.20.1.2:8443/checkout' });
    expect(saved.status).toBe(200);
    expect(saved.body.data).toMatchObject({ id: ADYEN, connectorBaseUrl: 'https://10.20.1.2:8443/checkout', capabilityOverlay: null });
    expect((await h.as(tenantKey).get(url)).body.data.connectorBaseUrl).toBe('https://10.20.1.2:8443/checkout');
    const listed = (await h.as(tenantKey).get('/v1/admin/provider-integrations?code=adyen')).body.data[0];
    expect(listed.connectorBaseUrl).toBe('https://10.20.1.2:8443/checkout');
    // the other providers keep the catalog's
    expect((await h.as(tenantKey).get(`/v1/admin/provider-integrations/${STRIPE}`)).body.data.connectorBaseUrl).toBe(
      'https://api.stripe.com',
    );

    // null: back to the catalog's
    const reset = await h.as(platform).patch(url, { connectorBaseUrl: null });
    expect(reset.body.data.connectorBaseUrl).toBe('https://checkout-test.adyen.com');

    const audit = await h.as(platform).get(`/v1/audit-entries?action=provider_integration.updated&targetId=${ADYEN}&sortOrder=asc`);
    expect(
      audit.body.data.map((e: { before: { connectorBaseUrl: string }; after: { connectorBaseUrl: string } }) => [
        e.before.connectorBaseUrl,
        e.after.connectorBaseUrl,
      ]),
    ).toEqual([
      ['https://checkout-test.adyen.com', 'https://fake-adyen.internal'],
      ['https://fake-adyen.internal', 'https://10.20.1.2:8443/checkout'],
      ['https://10.20.1.2:8443/checkout', 'https://checkout-test.adyen.com'],
    ]);
    expect(audit.body.data[0]).toMatchObject({ target: { type: 'provider_integration', id: ADYEN }, tenantId: null });
  });
});
