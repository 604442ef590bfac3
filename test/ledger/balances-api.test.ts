import { useApiHarness, createSecondMerchant, expectProblem } from '../helpers/api';
import { cardPaymentFees, expectLedgerInvariant, postDirectCapture } from '../helpers/ledger';
import { money } from '../helpers/amounts';
import { operatorContext } from '../../src/services/access/operators';
import { inTransaction, type CallerContext } from '../../src/domain/context';
import { postRefund } from '../../src/services/ledger/postings/refund';
import { releaseDue } from '../../src/services/ledger/releases';
import { createApiKey } from '../../src/services/api-keys/keys';
import { newId } from '../../src/util/ids';

const HOUR = 3_600_000;

let tenant: CallerContext;
let m1: string;
let m2: string;
let m2Key: string;
const providerIntegrationId = newId();
const p1 = newId();
const r1 = newId();

const bal = (merchantId: string, currency: string, pending: number, available: number, reserved = 0, payable = 0) => ({
  merchantId,
  currency,
  pending: money(currency, pending),
  available: money(currency, available),
  reserved: money(currency, reserved),
  payable: money(currency, payable),
});

async function capture(
  merchantId: string,
  currency: string,
  amount: number,
  options: { immediate?: boolean; livemode?: boolean; paymentId?: string } = {},
) {
  const livemode = options.livemode ?? false;
  const ctx = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode });
  const breakdown = await cardPaymentFees(tenant, m1, money(currency, amount), h.clock.now());
  await postDirectCapture(ctx, {
    tenantId: h.sandbox.tenantId,
    livemode,
    merchantId,
    paymentId: options.paymentId,
    providerIntegrationId,
    breakdown,
    immediate: options.immediate,
  });
  return breakdown;
}

const h = useApiHarness();
beforeAll(async () => {
  tenant = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
  m1 = h.sandbox.merchantId;
  ({ merchantId: m2, secretKey: m2Key } = await createSecondMerchant(h));

  // merchant 1: EUR 100.00 captured (1.4% + 0.25 fee: net 98.35 pending), 10.00 refunded; USD 50.00 available at once
  const eur = await capture(m1, 'EUR', 10_000, { paymentId: p1 });
  expect(eur.net).toBe(9835);
  h.clock.advance(1000);
  await inTransaction(tenant, (t) =>
    postRefund(t, {
      tenantId: h.sandbox.tenantId,
      livemode: false,
      merchantId: m1,
      paymentId: p1,
      refundId: r1,
      providerIntegrationId,
      partnerId: null,
      amount: money('EUR', 1000),
      fee: null,
    }),
  );
  h.clock.advance(1000);
  const usd = await capture(m1, 'USD', 5000, { immediate: true });
  expect(usd.net).toBe(4825);
  // merchant 2: EUR 30.00 (net 29.33)
  h.clock.advance(1000);
  await capture(m2, 'EUR', 3000);
  // live mode: invisible to sandbox keys
  await capture(m1, 'EUR', 7777, { livemode: true });
});
afterEach(async () => {
  await expectLedgerInvariant(h.rt);
});

describe('GET /v1/balances', () => {
  it('a merchant sees its own balances per currency, derived from the entries', async () => {
    const res = await h.as(h.sandbox.merchantKey.secretKey).get('/v1/balances').expect(200);
    expect(res.body.data).toEqual([bal(m1, 'EUR', 9835, -1000), bal(m1, 'USD', 0, 4825)]);
    expect(res.body.pagination).toEqual({ nextCursor: null, prevCursor: null, hasMore: false, totalCount: 2 });
    const other = await h.as(m2Key).get('/v1/balances').expect(200);
    expect(other.body.data).toEqual([bal(m2, 'EUR', 2933, 0)]);
    // another merchant's id as a filter names a record the merchant cannot see: 404 naming the parameter
    const asked = await h.as(m2Key).get(`/v1/balances?merchantId=${m1}`).expect(404);
    expect(asked.body.errors).toEqual([expect.objectContaining({ path: 'query.merchantId' })]);
    expect(JSON.stringify(asked.body)).not.toContain('9835');
  });

  it('a tenant sees every merchant, filters by merchantId and currency, and pages', async () => {
    const key = h.sandbox.tenantKey.secretKey;
    const all = await h.as(key).get('/v1/balances').expect(200);
    const expected = [bal(m1, 'EUR', 9835, -1000), bal(m1, 'USD', 0, 4825), bal(m2, 'EUR', 2933, 0)].sort((a, b) =>
      a.merchantId === b.merchantId ? a.currency.localeCompare(b.currency) : a.merchantId < b.merchantId ? -1 : 1,
    );
    expect(all.body.data).toEqual(expected);
    expect((await h.as(key).get(`/v1/balances?merchantId=${m2}`).expect(200)).body.data).toEqual([bal(m2, 'EUR', 2933, 0)]);
    expect((await h.as(key).get('/v1/balances?currency=USD').expect(200)).body.data).toEqual([bal(m1, 'USD', 0, 4825)]);
    const first = await h.as(key).get('/v1/balances?limit=2').expect(200);
    expect(first.body.data).toEqual(expected.slice(0, 2));
    expect(first.body.pagination).toMatchObject({ hasMore: true, totalCount: 3, prevCursor: null });
    const second = await h.as(key).get(`/v1/balances?limit=2&cursor=${first.body.pagination.nextCursor}`).expect(200);
    expect(second.body.data).toEqual(expected.slice(2));
    expect(second.body.pagination).toMatchObject({
      hasMore: false,
      nextCursor: null,
      prevCursor: `${expected[0].merchantId}.${expected[0].currency}`,
    });
  });

  it('refuses bad input with a 400 naming the field, other levels and missing permissions with 403', async () => {
    const key = h.sandbox.tenantKey.secretKey;
    const bad = await h.as(key).get('/v1/balances?currency=eur');
    expectProblem(bad, 400);
    expect(bad.body.errors.map((e: { path: string }) => e.path)).toContain('query.currency');
    expectProblem(await h.as(key).get(`/v1/balances?cursor=${newId()}.EUR`), 400, 'INVALID_CURSOR');
    expectProblem(await h.as(key).get('/v1/balances?merchantId=nope'), 400);
    expectProblem(await h.as(h.sandbox.platformToken).get('/v1/balances'), 403);
    const narrow = await createApiKey(tenant, {
      name: 'No balances',
      ownerType: 'tenant',
      livemode: false,
      permissions: ['payments:payments:view'],
    });
    expectProblem(await h.as(narrow.secretKey).get('/v1/balances'), 403);
    expectProblem(await h.as(narrow.secretKey).get('/v1/balance-transactions'), 403);
  });
});

describe('GET /v1/balance-transactions', () => {
  it("lists the entries of merchant balances newest first, with filters, for the caller's merchant only", async () => {
    const res = await h.as(h.sandbox.merchantKey.secretKey).get('/v1/balance-transactions').expect(200);
    const rows = res.body.data as {
      merchantId: string;
      type: string;
      balanceType: string;
      amount: { currency: string; valueMinor: number };
      createdAt: string;
      sourceId: string;
    }[];
    // EUR capture → pending; refund → available; USD capture → available (fees and clearing are not merchant balances)
    expect(rows.map((r) => [r.type, r.balanceType, r.amount])).toEqual([
      ['payment', 'available', money('USD', 4825)],
      ['refund', 'available', money('EUR', -1000)],
      ['payment', 'pending', money('EUR', 9835)],
    ]);
    expect(rows.every((r) => r.merchantId === m1)).toBe(true);
    const times = rows.map((r) => Date.parse(r.createdAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);

    const refunds = await h.as(h.sandbox.merchantKey.secretKey).get('/v1/balance-transactions?type=refund').expect(200);
    expect(refunds.body.data).toEqual([
      expect.objectContaining({
        sourceId: r1,
        type: 'refund',
        currency: 'EUR',
        amount: money('EUR', -1000),
        description: expect.any(String),
      }),
    ]);
    const bySource = await h.as(h.sandbox.merchantKey.secretKey).get(`/v1/balance-transactions?sourceId=${p1}`).expect(200);
    expect(bySource.body.data.map((r: { sourceId: string }) => r.sourceId)).toEqual([p1]);
    const usd = await h.as(h.sandbox.merchantKey.secretKey).get('/v1/balance-transactions?currency=USD&balanceType=available').expect(200);
    expect(usd.body.pagination.totalCount).toBe(1);

    // merchant 2 never sees merchant 1's entries
    const other = await h.as(m2Key).get('/v1/balance-transactions').expect(200);
    expect(other.body.data.map((r: { merchantId: string }) => r.merchantId)).toEqual([m2]);
    expect((await h.as(m2Key).get(`/v1/balance-transactions?sourceId=${p1}`).expect(200)).body.data).toEqual([]);
    // the tenant sees both merchants, and pages with cursors
    const page1 = await h.as(h.sandbox.tenantKey.secretKey).get('/v1/balance-transactions?limit=2').expect(200);
    expect(page1.body.pagination).toMatchObject({ totalCount: 4, hasMore: true });
    const page2 = await h
      .as(h.sandbox.tenantKey.secretKey)
      .get(`/v1/balance-transactions?limit=2&cursor=${page1.body.pagination.nextCursor}`)
      .expect(200);
    expect(page2.body.data).toHaveLength(2);
    expect(new Set([...page1.body.data, ...page2.body.data].map((r: { id: string }) => r.id)).size).toBe(4);
    expectProblem(await h.as(h.sandbox.tenantKey.secretKey).get('/v1/balance-transactions?type=bogus'), 400);
  });

  it('shows the release after the holding period as two entries and moves the balance', async () => {
    h.clock.advance(48 * HOUR);
    expect(await releaseDue(h.rt)).toBe(3);
    const res = await h.as(h.sandbox.merchantKey.secretKey).get('/v1/balance-transactions?type=release&currency=EUR').expect(200);
    expect(res.body.data.map((r: { balanceType: string; amount: unknown }) => [r.balanceType, r.amount]).sort()).toEqual(
      [
        ['available', money('EUR', 9835)],
        ['pending', money('EUR', -9835)],
      ].sort(),
    );
    const balances = await h.as(h.sandbox.merchantKey.secretKey).get('/v1/balances?currency=EUR').expect(200);
    expect(balances.body.data).toEqual([bal(m1, 'EUR', 0, 8835)]);
  });
});
