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
const MISSING = '00000000-0000-4000-8000-000000000000';

const h = useApiHarness();
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
      'sandbox-card',
      'sandbox-card-single-refund',
      'sandbox-payout',
    ]);
    expect(res.body.pagination).toMatchObject({ totalCount: 3, hasMore: false });
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
    expect(providerCatalog()).toHaveLength(3);
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
    expect(second.body.pagination).toMatchObject({ hasMore: true, nextCursor: PAYOUT, prevCursor: CARD });
    const third = await h.as(tenantKey).get(`/v1/admin/provider-integrations?limit=1&sortOrder=asc&cursor=${PAYOUT}`);
    expect(third.body.data.map((p: { id: string }) => p.id)).toEqual([PAYOUT]);
    expect(third.body.pagination).toMatchObject({ hasMore: false, prevCursor: SINGLE });
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
});
