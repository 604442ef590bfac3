import { useApiHarness, createLiveTenantKey, expectProblem } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { eur } from '../helpers/amounts';
import { about, storedEvents } from '../helpers/events';
import { operatorContext } from '../../src/services/access/operators';
import { systemContext } from '../../src/domain/authority';
import { createCompanyRecord, createMerchantRecord } from '../../src/services/organization/records';
import { createApiKey } from '../../src/services/api-keys/keys';
import { createActiveUser } from '../../src/services/access/users';
import { createSession, getSessionForPayment } from '../../src/services/checkout/sessions';
import { parseClientSecret } from '../../src/services/checkout/client-secret';
import { recordSessionPayment } from '../../src/services/checkout/payment-report';
import { expireDueSessions } from '../../src/services/checkout/expiry';
import { updateProfile } from '../../src/services/profiles';

let tenantKey: string;
let merchantKey: string;
let merchantId: string;
/** a second merchant of the sandbox tenant, with its own key */
let second: { merchantId: string; key: string };
/** a live tenant of its own, with a merchant */
let other: { tenantId: string; secretKey: string; merchantId: string };
let operatorToken: string;

const BASE = '/v1/checkout-sessions';
const MISSING = '00000000-0000-4000-8000-000000000000';
const T0 = '2026-03-01T12:00:00.000Z';

const h = useApiHarness();
beforeAll(async () => {
  tenantKey = h.sandbox.tenantKey.secretKey;
  merchantKey = h.sandbox.merchantKey.secretKey;
  merchantId = h.sandbox.merchantId;
  const op = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
  const m2 = await createMerchantRecord(op, { companyId: h.sandbox.companyId, name: 'Second shop' });
  const asM2 = operatorContext(h.rt, { level: 'merchant', tenantId: h.sandbox.tenantId, merchantId: m2.id, livemode: false });
  second = { merchantId: m2.id, key: (await createApiKey(asM2, { ownerType: 'merchant', livemode: false })).secretKey };
  const live = await createLiveTenantKey(h);
  const otherOp = operatorContext(h.rt, { level: 'tenant', tenantId: live.tenantId, livemode: true });
  const company = await createCompanyRecord(otherOp, { name: 'Other Co', country: 'FR' });
  const merchant = await createMerchantRecord(otherOp, { companyId: company.id, name: 'Other merchant' });
  other = { tenantId: live.tenantId, secretKey: live.secretKey, merchantId: merchant.id };
  const user = await createActiveUser(op, { layer: 'operator', email: 'checkout-op@example.com' });
  operatorToken = (await h.rt.tokens.issue(user.id, 3600, false)).token;
});

const auditOf = async (targetId: string) =>
  (
    await h.rt.db.models.AuditEntry.findAll({
      where: { targetId },
      order: [
        ['createdAt', 'ASC'],
        ['id', 'ASC'],
      ],
    })
  ).map((r) => r.get({ plain: true }));

async function create(body: object = { amount: eur(1999) }, key = merchantKey) {
  const res = await h.as(key).post(BASE, body);
  if (res.status !== 201) throw new Error(`create: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as { id: string; clientSecret: string; url: string; [k: string]: unknown };
}

describe(`checkout sessions (${dialectName})`, () => {
  test('a merchant creates a session: secret and keyed url once, expiry from the integration profile, audited and emitted', async () => {
    const res = await h.as(merchantKey).post(BASE, {
      amount: eur(1999),
      merchantReference: 'order-1',
      successUrl: 'https://shop.example/thanks',
      cancelUrl: 'https://shop.example/cart',
      locale: 'de-DE',
      metadata: { cart: 'c1' },
      customerInfo: { email: 'a@example.com', billingAddress: { country: 'DE', city: 'Berlin' } },
    });
    expect(res.status).toBe(201);
    const s = res.body.data;
    expect(s).toEqual({
      id: expect.any(String),
      tenantId: h.sandbox.tenantId,
      merchantId,
      paymentId: null,
      merchantName: 'Sandbox Merchant',
      tenantName: 'Sandbox tenant',
      merchantReference: 'order-1',
      locale: 'de-DE',
      providerCheckoutId: null,
      termsUrl: null,
      privacyUrl: null,
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/checkout\/[0-9a-f-]{36}\?key=cs_test_[0-9a-f]{32}_secret_[A-Za-z0-9]{32}$/),
      successUrl: 'https://shop.example/thanks',
      cancelUrl: 'https://shop.example/cart',
      channelId: null,
      livemode: false,
      status: 'open',
      paymentStatus: null,
      amount: eur(1999),
      captureMethod: 'automatic',
      lineItems: [],
      fulfillmentOptions: [],
      selectedFulfillment: null,
      totals: [{ type: 'total', displayText: '19,99\u00a0€', amount: eur(1999), description: 'Total' }],
      clientSecret: expect.stringMatching(/^cs_test_[0-9a-f]{32}_secret_[A-Za-z0-9]{32}$/),
      customerInfo: { email: 'a@example.com', billingAddress: { country: 'DE', city: 'Berlin' } },
      agenticContext: null,
      metadata: { cart: 'c1' },
      createdAt: T0,
      expiresAt: '2026-03-01T13:00:00.000Z',
      updatedAt: T0,
      deletedAt: null,
    });
    expect(s.url).toContain(`/checkout/${s.id}?key=${s.clientSecret}`);
    expect(parseClientSecret(s.clientSecret)).toEqual({ livemode: false, sessionId: s.id });
    // only the hash is kept
    const row = (await h.rt.db.models.CheckoutSession.findByPk(s.id))!.get({ plain: true });
    expect(JSON.stringify(row)).not.toContain(s.clientSecret.split('_secret_')[1]);
    const audit = await auditOf(s.id);
    expect(audit.map((a) => a.action)).toEqual(['checkout_session.created']);
    expect(JSON.stringify(audit)).not.toContain(s.clientSecret);
    const events = await storedEvents(h.rt, {}, about(s.id));
    expect(events.map((e) => e.type)).toEqual(['checkout.session.created']);
    expect(events[0]).toMatchObject({ tenantId: h.sandbox.tenantId, merchantId, livemode: false });
    expect(JSON.stringify(events[0].data)).not.toContain('secret');

    // reads: no secret, url without its key
    const got = await h.as(merchantKey).get(`${BASE}/${s.id}`);
    expect(got.status).toBe(200);
    const { clientSecret: _secret, url: _url, ...rest } = s;
    expect(got.body.data).toEqual({ ...rest, url: expect.stringMatching(new RegExp(`/checkout/${s.id}$`)) });
    expect(got.body.data.clientSecret).toBeUndefined();
  });

  test('PAYPLANE_PUBLIC_URL is the base of the hosted page when set', async () => {
    const ctx = { ...operatorContext(h.rt, { level: 'merchant', tenantId: h.sandbox.tenantId, merchantId, livemode: false }) };
    const withBase = { ...ctx, config: { ...ctx.config, publicBaseUrl: 'https://pay.example.com/' } };
    const s = await createSession(withBase, { amount: eur(100) });
    expect(s.url).toBe(`https://pay.example.com/checkout/${s.id}?key=${encodeURIComponent(s.clientSecret!)}`);
    expect((await getSessionForPayment(ctx, s.id)).url).toBe(`https://pay.example.com/checkout/${s.id}`);
  });

  test("expiry follows the profile's sessionLifetime; 24 h without an enabled profile", async () => {
    const profile = (await h.rt.db.models.IntegrationProfile.findOne({ where: { merchantId, mode: 'checkout' } }))!.get({ plain: true });
    const op = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
    await updateProfile(op, profile.id, { sessionLifetime: 600 });
    expect((await create()).expiresAt).toBe('2026-03-01T12:10:00.000Z');
    await updateProfile(op, profile.id, { status: 'disabled' });
    expect((await create()).expiresAt).toBe('2026-03-02T12:00:00.000Z');
    await updateProfile(op, profile.id, { status: 'enabled', sessionLifetime: 3600 });
    // the second merchant has no profile at all
    expect((await create({ amount: eur(5) }, second.key)).expiresAt).toBe('2026-03-02T12:00:00.000Z');
  });

  test('line items: totals computed, amount must match, currencies must agree', async () => {
    const lineItems = [
      { id: 'sku-1', label: 'T-shirt', unitAmount: eur(1500), quantity: 2, taxRate: 0.19, taxAmount: eur(570) },
      { label: 'Sticker <b>', unitAmount: eur(250), quantity: 1 },
    ];
    const fulfillmentOptions = [
      {
        id: 'std',
        type: 'shipping',
        title: 'Standard',
        price: eur(495),
        estimatedDelivery: { earliest: '2026-03-03T00:00:00Z', latest: '2026-03-05T00:00:00Z' },
      },
      { id: 'exp', type: 'shipping', title: 'Express', price: eur(1200) },
    ];
    const bad = await h.as(merchantKey).post(BASE, { amount: eur(3000), lineItems, fulfillmentOptions });
    expectProblem(bad, 400, 'AMOUNT_MISMATCH');
    expect(bad.body.errors).toEqual([{ path: 'body.amount.valueMinor', message: expect.stringContaining('3820') }]);
    const usd = await h
      .as(merchantKey)
      .post(BASE, { amount: eur(250), lineItems: [{ label: 'x', unitAmount: { currency: 'USD', valueMinor: 250 }, quantity: 1 }] });
    expectProblem(usd, 400, 'CURRENCY_MISMATCH');
    expect(usd.body.errors[0].path).toBe('body.lineItems[0].unitAmount.currency');
    const badOption = await h.as(merchantKey).post(BASE, {
      amount: eur(250),
      fulfillmentOptions: [{ id: 'a', type: 'shipping', title: 'A', price: { currency: 'USD', valueMinor: 1 } }],
    });
    expect(badOption.body.errors[0].path).toBe('body.fulfillmentOptions[0].price.currency');
    const dupe = await h
      .as(merchantKey)
      .post(BASE, { amount: eur(500), lineItems: [lineItems[1], lineItems[1]].map((l) => ({ ...l, id: 'same' })) });
    expect(dupe.body.errors[0].path).toBe('body.lineItems[1].id');
    const zero = await h.as(merchantKey).post(BASE, { amount: eur(0) });
    expectProblem(zero, 400);
    expect(zero.body.errors[0].path).toBe('body.amount.valueMinor');
    const quantity = await h.as(merchantKey).post(BASE, { amount: eur(1), lineItems: [{ label: 'x', unitAmount: eur(1), quantity: 0 }] });
    expect(quantity.body.errors[0].path).toBe('body.lineItems[0].quantity');

    const s = await create({ amount: eur(3820), lineItems, fulfillmentOptions });
    expect(s.lineItems).toEqual([lineItems[0], { ...lineItems[1], id: expect.stringMatching(/^li_/) }]);
    expect(s.totals).toEqual([
      { type: 'subtotal', displayText: '€32.50', amount: eur(3250), description: 'Items' },
      { type: 'tax', displayText: '€5.70', amount: eur(570), description: 'Tax' },
      { type: 'total', displayText: '€38.20', amount: eur(3820), description: 'Total' },
    ]);
    expect(s.fulfillmentOptions).toEqual(fulfillmentOptions);

    // choosing a fulfillment moves amount and totals; an unknown option is 400 naming the field
    const unknown = await h.as(merchantKey).patch(`${BASE}/${s.id}`, { selectedFulfillment: { fulfillmentOptionId: 'nope' } });
    expectProblem(unknown, 400, 'UNKNOWN_FULFILLMENT_OPTION');
    expect(unknown.body.errors[0].path).toBe('body.selectedFulfillment.fulfillmentOptionId');
    const chosen = await h.as(merchantKey).patch(`${BASE}/${s.id}`, { selectedFulfillment: { fulfillmentOptionId: 'exp' } });
    expect(chosen.status).toBe(200);
    expect(chosen.body.data.selectedFulfillment).toEqual({
      fulfillmentOptionId: 'exp',
      type: 'shipping',
      title: 'Express',
      price: eur(1200),
    });
    expect(chosen.body.data.amount).toEqual(eur(5020));
    expect(chosen.body.data.totals.map((t: { type: string; amount: { valueMinor: number } }) => [t.type, t.amount.valueMinor])).toEqual([
      ['subtotal', 3250],
      ['tax', 570],
      ['fulfillment', 1200],
      ['total', 5020],
    ]);
    // new lines keep the fulfillment; removing the fulfillment restores the item total
    const relined = await h
      .as(merchantKey)
      .patch(`${BASE}/${s.id}`, { lineItems: [{ id: 'one', label: 'Mug', unitAmount: eur(900), quantity: 1 }] });
    expect(relined.body.data.amount).toEqual(eur(2100));
    const unselected = await h.as(merchantKey).patch(`${BASE}/${s.id}`, { selectedFulfillment: null });
    expect(unselected.body.data.amount).toEqual(eur(900));
    expect(unselected.body.data.totals.map((t: { type: string }) => t.type)).toEqual(['subtotal', 'total']);

    // without lines, the fulfillment adds to the amount asked for
    const plain = await create({ amount: eur(1000), fulfillmentOptions });
    const withShipping = await h.as(merchantKey).patch(`${BASE}/${plain.id}`, { selectedFulfillment: { fulfillmentOptionId: 'std' } });
    expect(withShipping.body.data.amount).toEqual(eur(1495));
    const switched = await h.as(merchantKey).patch(`${BASE}/${plain.id}`, { selectedFulfillment: { fulfillmentOptionId: 'exp' } });
    expect(switched.body.data.amount).toEqual(eur(2200));
    expect(switched.body.data.totals.map((t: { type: string; amount: { valueMinor: number } }) => [t.type, t.amount.valueMinor])).toEqual([
      ['subtotal', 1000],
      ['fulfillment', 1200],
      ['total', 2200],
    ]);
  });

  test('tenant callers name the merchant; merchants see their own only; other tenants see nothing', async () => {
    const missing = await h.as(tenantKey).post(BASE, { amount: eur(100) });
    expectProblem(missing, 400);
    expect(missing.body.errors).toEqual([{ path: 'body.merchantId', message: expect.any(String) }]);
    const foreign = await h.as(tenantKey).post(BASE, { amount: eur(100), merchantId: other.merchantId });
    expectProblem(foreign, 404);
    expect((await h.as(tenantKey).post(BASE, { amount: eur(100), merchantId: MISSING })).status).toBe(404);
    // a merchant cannot create for another merchant
    expectProblem(await h.as(merchantKey).post(BASE, { amount: eur(100), merchantId: second.merchantId }), 404);

    const byTenant = await create({ amount: eur(700), merchantId: second.merchantId }, tenantKey);
    expect(byTenant).toMatchObject({ merchantId: second.merchantId, merchantName: 'Second shop' });
    expect((await h.as(second.key).get(`${BASE}/${byTenant.id}`)).status).toBe(200);
    expectProblem(await h.as(merchantKey).get(`${BASE}/${byTenant.id}`), 404);
    expectProblem(await h.as(merchantKey).patch(`${BASE}/${byTenant.id}`, { metadata: { a: 'b' } }), 404);
    expectProblem(await h.as(merchantKey).post(`${BASE}/${byTenant.id}/expire`), 404);
    expectProblem(await h.as(other.secretKey).get(`${BASE}/${byTenant.id}`), 404);
    expectProblem(await h.as(other.secretKey).post(`${BASE}/${byTenant.id}/expire`), 404);
    expect((await h.as(tenantKey).get(`${BASE}/${byTenant.id}`)).status).toBe(200);
    expectProblem(await h.as(merchantKey).get(`${BASE}/not-a-uuid`), 404);

    // lists
    const mine = await h.as(second.key).get(BASE);
    expect(mine.body.data.every((s: { merchantId: string }) => s.merchantId === second.merchantId)).toBe(true);
    const all = await h.as(tenantKey).get(`${BASE}?merchantId=${second.merchantId}`);
    expect(all.body.data.map((s: { id: string }) => s.id)).toContain(byTenant.id);
    expect((await h.as(other.secretKey).get(BASE)).body.data).toEqual([]);
  });

  test('reads need a secret key: user tokens get 403; platform callers are not a level of these operations', async () => {
    const s = await create();
    expectProblem(await h.as(operatorToken).get(`${BASE}/${s.id}`), 403, 'SECRET_KEY_REQUIRED');
    expectProblem(await h.as(operatorToken).get(BASE), 403, 'SECRET_KEY_REQUIRED');
    expectProblem(await h.as(h.sandbox.platformToken).get(`${BASE}/${s.id}`), 403, 'LEVEL_NOT_ALLOWED');
    // a token may still create (manage): the operations table allows M and T callers
    const byToken = await h.as(operatorToken).post(BASE, { amount: eur(100), merchantId });
    expect(byToken.status).toBe(201);
  });

  test('list filters: status, merchantId, paymentId, created range; pagination', async () => {
    h.clock.advance(60_000);
    const a = await create({ amount: eur(11) });
    h.clock.advance(60_000);
    const b = await create({ amount: eur(12) });
    await h.as(merchantKey).post(`${BASE}/${b.id}/expire`);
    const from = new Date(h.clock.now().getTime() - 90_000).toISOString();
    const range = await h.as(merchantKey).get(`${BASE}?createdFrom=${from}`);
    expect(range.body.data.map((s: { id: string }) => s.id)).toEqual([b.id, a.id]);
    const to = new Date(h.clock.now().getTime()).toISOString();
    expect((await h.as(merchantKey).get(`${BASE}?createdFrom=${from}&createdTo=${to}`)).body.data.map((s: { id: string }) => s.id)).toEqual(
      [a.id],
    );
    const expired = await h.as(merchantKey).get(`${BASE}?status=expired&createdFrom=${from}`);
    expect(expired.body.data.map((s: { id: string }) => s.id)).toEqual([b.id]);
    const page = await h.as(merchantKey).get(`${BASE}?limit=1&createdFrom=${from}&sortOrder=asc`);
    expect(page.body.data.map((s: { id: string }) => s.id)).toEqual([a.id]);
    expect(page.body.pagination).toMatchObject({ hasMore: true, nextCursor: b.id, totalCount: 2 });
    const paymentId = '11111111-1111-4111-8111-111111111111';
    await recordSessionPayment(systemContext(h.rt, false), a.id, { paymentId, paymentStatus: 'failed' });
    expect((await h.as(merchantKey).get(`${BASE}?paymentId=${paymentId}`)).body.data.map((s: { id: string }) => s.id)).toEqual([a.id]);
    expectProblem(await h.as(merchantKey).get(`${BASE}?status=paid`), 400);
    const badDate = await h.as(merchantKey).get(`${BASE}?createdFrom=yesterday`);
    expectProblem(badDate, 400);
    expect(badDate.body.errors[0].path).toBe('query.createdFrom');
  });

  test('update: merges customerInfo, replaces metadata, audited; validation names the field', async () => {
    const s = await create({ amount: eur(100), customerInfo: { email: 'a@example.com', name: 'A' }, metadata: { a: '1' } });
    const res = await h.as(merchantKey).patch(`${BASE}/${s.id}`, {
      customerInfo: { name: 'B', shippingAddress: { city: 'Paris', country: 'FR' } },
      metadata: { b: '2' },
      agenticContext: { channel: 'acp', trustLayers: ['visa_tap'], consumerRecognition: { recognized: true, visaSubjectId: 'v1' } },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.customerInfo).toEqual({ email: 'a@example.com', name: 'B', shippingAddress: { city: 'Paris', country: 'FR' } });
    expect(res.body.data.metadata).toEqual({ b: '2' });
    expect(res.body.data.agenticContext).toEqual({
      channel: 'acp',
      trustLayers: ['visa_tap'],
      consumerRecognition: { recognized: true, visaSubjectId: 'v1' },
    });
    expect((await auditOf(s.id)).map((a) => a.action)).toEqual(['checkout_session.created', 'checkout_session.updated']);
    const empty = await h.as(merchantKey).patch(`${BASE}/${s.id}`, {});
    expectProblem(empty, 400);
    const badEmail = await h.as(merchantKey).patch(`${BASE}/${s.id}`, { customerInfo: { email: 'nope' } });
    expect(badEmail.body.errors[0].path).toBe('body.customerInfo.email');
    const unknownField = await h.as(merchantKey).patch(`${BASE}/${s.id}`, { amount: eur(5) });
    expectProblem(unknownField, 400);
  });

  test('the clientSecret as bearer: it updates its own session only; no reads, lists, creates or expiry', async () => {
    const s = await create({ amount: eur(1000) });
    const otherSession = await create({ amount: eur(1000) });
    const byCustomer = await h.as(s.clientSecret).patch(`${BASE}/${s.id}`, { customerInfo: { email: 'customer@example.com' } });
    expect(byCustomer.status).toBe(200);
    expect(byCustomer.body.data.customerInfo).toEqual({ email: 'customer@example.com' });
    expect(byCustomer.body.data.clientSecret).toBeUndefined();
    // the cart and the merchant's metadata are the merchant's: the secret cannot reprice or relabel the order
    const reprice = await h.as(s.clientSecret).patch(`${BASE}/${s.id}`, {
      lineItems: [{ label: 'Cheap', unitAmount: eur(1), quantity: 1 }],
      metadata: { orderId: 'forged' },
    });
    expectProblem(reprice, 403, 'CLIENT_SECRET_FIELD_NOT_ALLOWED');
    expect(reprice.body.errors.map((e: { path: string }) => e.path)).toEqual(['body.lineItems', 'body.metadata']);
    const unchanged = await h.as(h.sandbox.merchantKey.secretKey).get(`${BASE}/${s.id}`);
    expect(unchanged.body.data).toMatchObject({ amount: eur(1000), metadata: {} });
    const audit = await auditOf(s.id);
    expect(audit[audit.length - 1]).toMatchObject({ action: 'checkout_session.updated', actorType: 'checkout_session', actorId: s.id });

    expectProblem(await h.as(s.clientSecret).patch(`${BASE}/${otherSession.id}`, { metadata: { x: 'y' } }), 404);
    expectProblem(await h.as(s.clientSecret).patch(`${BASE}/${MISSING}`, { metadata: { x: 'y' } }), 404);
    expectProblem(
      await h.as(s.clientSecret).post(`${BASE}/${otherSession.id}/complete`, {
        paymentMethod: { type: 'card', card: { number: '4242424242424242', expMonth: 12, expYear: 2030 } },
      }),
      404,
    );
    expectProblem(await h.as(s.clientSecret).get(`${BASE}/${s.id}`), 403, 'CLIENT_SECRET_NOT_ALLOWED');
    expectProblem(await h.as(s.clientSecret).get(BASE), 403, 'CLIENT_SECRET_NOT_ALLOWED');
    expectProblem(await h.as(s.clientSecret).post(BASE, { amount: eur(1) }), 403, 'CLIENT_SECRET_NOT_ALLOWED');
    expectProblem(await h.as(s.clientSecret).post(`${BASE}/${s.id}/expire`), 403, 'CLIENT_SECRET_NOT_ALLOWED');
    expectProblem(await h.as(s.clientSecret).get('/v1/api-keys'), 403, 'CLIENT_SECRET_NOT_ALLOWED');

    // a forged or altered secret is 401
    const forged = s.clientSecret.replace(/_secret_.*/, `_secret_${'A'.repeat(32)}`);
    expectProblem(await h.as(forged).patch(`${BASE}/${s.id}`, { metadata: {} }), 401, 'INVALID_CLIENT_SECRET');
    const swapped = otherSession.clientSecret.replace(/^cs_test_[0-9a-f]{32}/, `cs_test_${s.id.replace(/-/g, '')}`);
    expectProblem(await h.as(swapped).patch(`${BASE}/${s.id}`, { metadata: {} }), 401, 'INVALID_CLIENT_SECRET');
    expectProblem(
      await h.as(s.clientSecret.replace('cs_test_', 'cs_live_')).patch(`${BASE}/${s.id}`, { metadata: {} }),
      401,
      'INVALID_CLIENT_SECRET',
    );
    expectProblem(await h.as('cs_garbage').patch(`${BASE}/${s.id}`, { metadata: {} }), 401, 'INVALID_CLIENT_SECRET');
  });

  test('expire: open to expired once, with event and audit; then 409; updates refused', async () => {
    const s = await create();
    const res = await h.as(merchantKey).post(`${BASE}/${s.id}/expire`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: s.id, status: 'expired' });
    expect((await storedEvents(h.rt, {}, about(s.id))).map((e) => e.type)).toEqual([
      'checkout.session.created',
      'checkout.session.expired',
    ]);
    expect((await auditOf(s.id)).map((a) => a.action)).toEqual(['checkout_session.created', 'checkout_session.expired']);
    expectProblem(await h.as(merchantKey).post(`${BASE}/${s.id}/expire`), 409, 'CHECKOUT_SESSION_EXPIRED');
    expectProblem(await h.as(merchantKey).patch(`${BASE}/${s.id}`, { metadata: {} }), 409, 'CHECKOUT_SESSION_EXPIRED');
    expectProblem(await h.as(s.clientSecret).patch(`${BASE}/${s.id}`, { metadata: {} }), 409, 'CHECKOUT_SESSION_EXPIRED');
    const card = { paymentMethod: { type: 'card', card: { number: '4242424242424242', expMonth: 12, expYear: 2030 } } };
    expectProblem(await h.as(s.clientSecret).post(`${BASE}/${s.id}/complete`, card), 409, 'CHECKOUT_SESSION_EXPIRED');
  });

  test('the payment path reports: in flight blocks changes, a failure reopens, approval completes', async () => {
    const s = await create({ amount: eur(2500) });
    const sys = systemContext(h.rt, false);
    const p1 = '22222222-2222-4222-8222-222222222222';
    const p2 = '33333333-3333-4333-8333-333333333333';
    await recordSessionPayment(sys, s.id, { paymentId: p1, paymentStatus: 'processing' });
    let got = (await h.as(merchantKey).get(`${BASE}/${s.id}`)).body.data;
    expect(got).toMatchObject({ status: 'open', paymentId: p1, paymentStatus: 'processing' });
    expectProblem(await h.as(merchantKey).patch(`${BASE}/${s.id}`, { metadata: {} }), 409, 'CHECKOUT_PAYMENT_IN_FLIGHT');
    expectProblem(await h.as(merchantKey).post(`${BASE}/${s.id}/expire`), 409, 'CHECKOUT_PAYMENT_IN_FLIGHT');
    const card = { paymentMethod: { type: 'card', card: { number: '4242424242424242', expMonth: 12, expYear: 2030 } } };
    expectProblem(await h.as(s.clientSecret).post(`${BASE}/${s.id}/complete`, card), 409, 'CHECKOUT_PAYMENT_IN_FLIGHT');
    // a second payment cannot start while one is in flight
    await expect(recordSessionPayment(sys, s.id, { paymentId: p2, paymentStatus: 'processing' })).rejects.toMatchObject({
      code: 'CHECKOUT_PAYMENT_IN_FLIGHT',
    });
    await recordSessionPayment(sys, s.id, { paymentId: p1, paymentStatus: 'requires_action' });
    await recordSessionPayment(sys, s.id, { paymentId: p1, paymentStatus: 'failed' });
    got = (await h.as(merchantKey).get(`${BASE}/${s.id}`)).body.data;
    expect(got).toMatchObject({ status: 'open', paymentId: p1, paymentStatus: 'failed' });
    // the customer tries another card: a new payment, approved
    await recordSessionPayment(sys, s.id, { paymentId: p2, paymentStatus: 'processing' });
    await recordSessionPayment(sys, s.id, { paymentId: p2, paymentStatus: 'captured' });
    await recordSessionPayment(sys, s.id, { paymentId: p2, paymentStatus: 'captured' }); // replayed: nothing more
    got = (await h.as(merchantKey).get(`${BASE}/${s.id}`)).body.data;
    expect(got).toMatchObject({ status: 'complete', paymentId: p2, paymentStatus: 'captured' });
    expect((await storedEvents(h.rt, {}, about(s.id))).map((e) => e.type)).toEqual([
      'checkout.session.created',
      'checkout.session.completed',
    ]);
    const completed = (await storedEvents(h.rt, {}, about(s.id)))[1];
    expect(completed).toMatchObject({ tenantId: h.sandbox.tenantId, merchantId, livemode: false });
    expect(completed.data).toMatchObject({
      object: 'checkout.session',
      id: s.id,
      status: 'complete',
      paymentId: p2,
      paymentStatus: 'captured',
    });
    expect((await auditOf(s.id)).map((a) => a.action)).toEqual([
      'checkout_session.created',
      'checkout_session.payment_updated',
      'checkout_session.payment_updated',
      'checkout_session.payment_updated',
      'checkout_session.payment_updated',
      'checkout_session.completed',
    ]);
    // paid: no more changes, payments or expiry; later payment statuses still follow
    expectProblem(await h.as(merchantKey).patch(`${BASE}/${s.id}`, { metadata: {} }), 409, 'CHECKOUT_SESSION_COMPLETE');
    expectProblem(await h.as(merchantKey).post(`${BASE}/${s.id}/expire`), 409, 'CHECKOUT_SESSION_COMPLETE');
    expectProblem(await h.as(s.clientSecret).post(`${BASE}/${s.id}/complete`, card), 409, 'CHECKOUT_SESSION_COMPLETE');
    await expect(recordSessionPayment(sys, s.id, { paymentId: p1, paymentStatus: 'processing' })).rejects.toMatchObject({
      code: 'CHECKOUT_SESSION_COMPLETE',
    });
    await recordSessionPayment(sys, s.id, { paymentId: p2, paymentStatus: 'refunded' });
    expect((await h.as(merchantKey).get(`${BASE}/${s.id}`)).body.data).toMatchObject({ status: 'complete', paymentStatus: 'refunded' });

    // manual capture: requires_capture completes the session too
    const manual = await create({ amount: eur(300), captureMethod: 'manual' });
    expect(manual.captureMethod).toBe('manual');
    await recordSessionPayment(sys, manual.id, { paymentId: p1, paymentStatus: 'requires_capture' });
    expect(await getSessionForPayment(sys, manual.id)).toMatchObject({
      status: 'complete',
      paymentStatus: 'requires_capture',
      amountMinor: 300,
    });
  });

  test("the payment path's getter: scoped, amount as a number, 404 when invisible", async () => {
    const s = await create({ amount: eur(4321) });
    const merchantCtx = operatorContext(h.rt, { level: 'merchant', tenantId: h.sandbox.tenantId, merchantId, livemode: false });
    const row = await getSessionForPayment(merchantCtx, s.id);
    expect(row).toMatchObject({ id: s.id, amountMinor: 4321, currency: 'EUR', captureMethod: 'automatic', status: 'open', merchantId });
    const otherMerchant = operatorContext(h.rt, {
      level: 'merchant',
      tenantId: h.sandbox.tenantId,
      merchantId: second.merchantId,
      livemode: false,
    });
    await expect(getSessionForPayment(otherMerchant, s.id)).rejects.toMatchObject({ status: 404 });
    await expect(getSessionForPayment(systemContext(h.rt, true), s.id)).rejects.toMatchObject({ status: 404 });
    await expect(
      getSessionForPayment({ ...merchantCtx, credential: 'client_secret', checkoutSessionId: MISSING }, s.id),
    ).rejects.toMatchObject({ status: 404 });
  });

  test('the expiry job: due open sessions expire once, one event each, none with a payment in flight', async () => {
    h.clock.advance(2 * 86_400_000); // everything created so far is past its deadline
    const fresh = await create();
    const dueInFlight = await create();
    await recordSessionPayment(systemContext(h.rt, false), dueInFlight.id, {
      paymentId: '44444444-4444-4444-8444-444444444444',
      paymentStatus: 'processing',
    });
    // deadline passed: the session is not changeable even before the job ran
    const late = await create();
    h.clock.advance(3600_000);
    expectProblem(await h.as(merchantKey).patch(`${BASE}/${late.id}`, { metadata: {} }), 409, 'CHECKOUT_SESSION_EXPIRED');
    const open = await h.rt.db.models.CheckoutSession.count({ where: { status: 'open' } });
    // two processes race: each session is expired exactly once
    const counts = await Promise.all([expireDueSessions(h.rt, h.clock.now()), expireDueSessions(h.rt, h.clock.now())]);
    const stillOpen = (await h.rt.db.models.CheckoutSession.findAll({ where: { status: 'open' } })).map((r) => r.get('id'));
    expect(stillOpen).toEqual([dueInFlight.id]);
    expect(counts[0] + counts[1]).toBe(open - 1);
    for (const id of [fresh.id, late.id]) {
      expect((await storedEvents(h.rt, {}, about(id))).map((e) => e.type)).toEqual([
        'checkout.session.created',
        'checkout.session.expired',
      ]);
    }
    const expiredEvents = (await h.rt.db.models.Event.findAll({ where: { type: 'checkout.session.expired' } })).map(
      (e) => (e.get('data') as { id: string }).id,
    );
    expect(new Set(expiredEvents).size).toBe(expiredEvents.length);
    expect(await expireDueSessions(h.rt, h.clock.now())).toBe(0);
    // once its payment fails, the next run expires it
    await recordSessionPayment(systemContext(h.rt, false), dueInFlight.id, {
      paymentId: '44444444-4444-4444-8444-444444444444',
      paymentStatus: 'failed',
    });
    expect(await expireDueSessions(h.rt, h.clock.now())).toBe(1);
  });

  test('the OpenAPI document says which operations take the clientSecret', async () => {
    const doc = (await h.as(merchantKey).get('/v1/openapi.json')).body;
    expect(doc.paths['/v1/checkout-sessions/{id}'].patch.description).toContain('clientSecret');
    expect(doc.paths['/v1/checkout-sessions/{id}/complete'].post.description).toContain('clientSecret');
    expect(doc.paths['/v1/checkout-sessions/{id}'].get.description).not.toContain('Bearer cs_');
  });
});
