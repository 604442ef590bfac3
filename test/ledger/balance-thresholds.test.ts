import { useApiHarness, createSecondMerchant, createLiveTenantKey, expectProblem } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { money } from '../helpers/amounts';
import { operatorContext } from '../../src/services/access/operators';
import { inTransaction, type CallerContext } from '../../src/domain/context';
import { post } from '../../src/services/ledger/post';
import { releaseDue } from '../../src/services/ledger/releases';
import { createApiKey } from '../../src/services/api-keys/keys';
import { createTenant } from '../../src/services/tenants/tenants';
import { newId } from '../../src/util/ids';

// Issue 23, part 4: balance thresholds (GET/POST /v1/balance-thresholds, DELETE /v1/balance-thresholds/{id}) and
// balance.threshold_reached, raised by the posting that crosses a threshold, once per crossing, in its transaction.

let tenant: CallerContext;
let m1: string;
let m2: string;
let m2Key: string;
let otherTenantKey: string;
const clearing = newId();

const BASE = '/v1/balance-thresholds';

/** One adjustment posting: `amount` (signed) onto the merchant's `account`, against provider clearing. */
async function adjust(
  merchantId: string,
  amount: number,
  options: { currency?: string; account?: 'merchant_available' | 'merchant_pending'; ctx?: CallerContext; livemode?: boolean } = {},
) {
  const currency = options.currency ?? 'EUR';
  const livemode = options.livemode ?? false;
  const ctx = options.ctx ?? operatorContext(h.rt, { level: 'platform', tenantId: null, livemode });
  h.clock.advance(1000);
  return post(ctx, {
    tenantId: h.sandbox.tenantId,
    livemode,
    sourceType: 'adjustment',
    sourceId: newId(),
    description: 'threshold test',
    lines: [
      { account: 'provider_clearing', ownerId: clearing, currency, amountMinor: -amount },
      { account: options.account ?? 'merchant_available', ownerId: merchantId, currency, amountMinor: amount },
    ],
  });
}

/** The balance.threshold_reached events of the merchant, oldest first. */
async function reached(merchantId: string): Promise<{ id: string; data: Record<string, any>; createdAt: Date }[]> {
  const rows = await h.rt.db.models.Event.findAll({
    where: { type: 'balance.threshold_reached', merchantId },
    order: [
      ['createdAt', 'ASC'],
      ['id', 'ASC'],
    ],
    raw: true,
  });
  return (rows as unknown as { id: string; data: unknown; createdAt: Date }[]).map((r) => ({
    ...r,
    data: typeof r.data === 'string' ? JSON.parse(r.data) : r.data,
  }));
}

function create(key: string, body: object) {
  return h.as(key).post(BASE, body);
}

const h = useApiHarness();
beforeAll(async () => {
  tenant = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
  m1 = h.sandbox.merchantId;
  ({ merchantId: m2, secretKey: m2Key } = await createSecondMerchant(h));
  const platform = operatorContext(h.rt, { level: 'platform', tenantId: null, livemode: false });
  const other = await createTenant(platform, { name: 'Other tenant', livemode: false });
  otherTenantKey = (
    await createApiKey(operatorContext(h.rt, { level: 'tenant', tenantId: other.id, livemode: false }), {
      ownerType: 'tenant',
      livemode: false,
    })
  ).secretKey;
}, 60_000);

describe(`balance thresholds: the operations (${dialectName})`, () => {
  let merchantThreshold: string;
  let tenantThreshold: string;

  it('a merchant caller creates its own; a tenant caller names the merchant', async () => {
    const mine = await create(h.sandbox.merchantKey.secretKey, {
      balanceType: 'available',
      direction: 'above',
      amount: money('EUR', 500_000),
    }).expect(201);
    expect(mine.body.data).toMatchObject({
      tenantId: h.sandbox.tenantId,
      merchantId: m1,
      livemode: false,
      currency: 'EUR',
      balanceType: 'available',
      direction: 'above',
      amount: money('EUR', 500_000),
      crossed: false,
      crossedAt: null,
      deletedAt: null,
    });
    merchantThreshold = mine.body.data.id;
    const theirs = await create(h.sandbox.tenantKey.secretKey, {
      merchantId: m2,
      balanceType: 'pending',
      direction: 'below',
      amount: money('USD', 100),
    }).expect(201);
    expect(theirs.body.data).toMatchObject({
      merchantId: m2,
      currency: 'USD',
      balanceType: 'pending',
      direction: 'below',
      amount: money('USD', 100),
      crossed: true,
    });
    tenantThreshold = theirs.body.data.id;
    // the audit entry of each creation
    const audit = await h.rt.db.models.AuditEntry.findAll({ where: { action: 'balance_threshold.created' }, raw: true });
    expect(audit.map((a) => (a as unknown as { targetId: string }).targetId).sort()).toEqual([merchantThreshold, tenantThreshold].sort());
  });

  it('takes an Idempotency-Key on create: the same key answers the same record', async () => {
    const body = { balanceType: 'available', direction: 'below', amount: money('GBP', 1_000) };
    const first = await h.as(h.sandbox.merchantKey.secretKey).post(BASE, body).set('Idempotency-Key', 'threshold-once').expect(201);
    const again = await h.as(h.sandbox.merchantKey.secretKey).post(BASE, body).set('Idempotency-Key', 'threshold-once').expect(201);
    expect(again.body.data.id).toBe(first.body.data.id);
    await h.as(h.sandbox.merchantKey.secretKey).delete(`${BASE}/${first.body.data.id}`).expect(200);
  });

  it("lists: a merchant its own, a tenant every merchant's or one with merchantId, with filters", async () => {
    const own = await h.as(h.sandbox.merchantKey.secretKey).get(BASE).expect(200);
    expect(own.body.data.map((t: { id: string }) => t.id)).toEqual([merchantThreshold]);
    const all = await h.as(h.sandbox.tenantKey.secretKey).get(BASE).expect(200);
    expect(all.body.data.map((t: { id: string }) => t.id)).toEqual([tenantThreshold, merchantThreshold]);
    const one = await h.as(h.sandbox.tenantKey.secretKey).get(`${BASE}?merchantId=${m2}`).expect(200);
    expect(one.body.data.map((t: { id: string }) => t.id)).toEqual([tenantThreshold]);
    const filtered = await h
      .as(h.sandbox.tenantKey.secretKey)
      .get(`${BASE}?currency=EUR&balanceType=available&direction=above`)
      .expect(200);
    expect(filtered.body.data.map((t: { id: string }) => t.id)).toEqual([merchantThreshold]);
    // a merchant naming another merchant sees nothing of it
    const across = await h.as(m2Key).get(`${BASE}?merchantId=${m1}`);
    expect(across.status === 404 || (across.status === 200 && across.body.data.length === 0)).toBe(true);
    expect((await h.as(otherTenantKey).get(BASE).expect(200)).body.data).toEqual([]);
    const live = await createLiveTenantKey(h);
    expect((await h.as(live.secretKey).get(BASE).expect(200)).body.data).toEqual([]);
  });

  it('refuses bad input with 400 problem+json naming the field', async () => {
    const m = h.sandbox.merchantKey.secretKey;
    const paths = async (body: object, key = m) => {
      const res = await create(key, body);
      expectProblem(res, 400);
      return res.body.errors.map((e: { path: string }) => e.path) as string[];
    };
    const good = { balanceType: 'available', direction: 'above', amount: money('EUR', 100) };
    expect(await paths({ ...good, amount: money('EUR', 0) })).toContain('body.amount.valueMinor');
    expect(await paths({ ...good, amount: money('EUR', -5) })).toContain('body.amount.valueMinor');
    expect(await paths({ ...good, amount: money('EUR', 1.5) })).toContain('body.amount.valueMinor');
    expect(await paths({ ...good, amount: money('eur', 100) })).toContain('body.amount.currency');
    expect(await paths({ ...good, amount: money('XXY', 100) })).toContain('body.amount.currency');
    expect(await paths({ ...good, amount: 100 })).toContain('body.amount');
    expect(await paths({ ...good, balanceType: 'reserved' })).toContain('body.balanceType');
    expect(await paths({ ...good, direction: 'sideways' })).toContain('body.direction');
    expect(await paths({ ...good, extra: 1 })).toEqual(expect.arrayContaining([expect.stringMatching(/^body/)]));
    // a tenant caller must name the merchant
    expect(await paths(good, h.sandbox.tenantKey.secretKey)).toEqual(['body.merchantId']);
    expect(await paths({ ...good, merchantId: 'nope' }, h.sandbox.tenantKey.secretKey)).toContain('body.merchantId');
    // another tenant's merchant is 404 naming it
    const foreign = await create(otherTenantKey, { ...good, merchantId: m1 });
    expectProblem(foreign, 404);
    expectProblem(await h.as(h.sandbox.tenantKey.secretKey).get(`${BASE}?balanceType=reserved`), 400);
    expectProblem(await h.as(h.sandbox.tenantKey.secretKey).get(`${BASE}?currency=eur`), 400);
  });

  it('refuses callers without the permission (403) and platform callers', async () => {
    const narrow = await createApiKey(tenant, {
      name: 'View only',
      ownerType: 'tenant',
      livemode: false,
      permissions: ['payouts:balances:view'],
    });
    await h.as(narrow.secretKey).get(BASE).expect(200);
    expectProblem(
      await create(narrow.secretKey, { merchantId: m1, balanceType: 'available', direction: 'above', amount: money('EUR', 100) }),
      403,
    );
    expectProblem(await h.as(narrow.secretKey).delete(`${BASE}/${merchantThreshold}`), 403);
    const none = await createApiKey(tenant, {
      name: 'Nothing of balances',
      ownerType: 'tenant',
      livemode: false,
      permissions: ['payments:payments:view'],
    });
    expectProblem(await h.as(none.secretKey).get(BASE), 403);
    expectProblem(await h.as(h.sandbox.platformToken).get(BASE), 403);
  });

  it('deletes: 404 across merchants and tenants, then 404 once deleted (soft delete)', async () => {
    expectProblem(await h.as(m2Key).delete(`${BASE}/${merchantThreshold}`), 404);
    expectProblem(await h.as(otherTenantKey).delete(`${BASE}/${merchantThreshold}`), 404);
    expectProblem(await h.as(h.sandbox.merchantKey.secretKey).delete(`${BASE}/${tenantThreshold}`), 404);
    expectProblem(await h.as(h.sandbox.merchantKey.secretKey).delete(`${BASE}/not-a-uuid`), 404);
    const gone = await h.as(h.sandbox.tenantKey.secretKey).delete(`${BASE}/${tenantThreshold}`).expect(200);
    expect(gone.body.data).toMatchObject({ id: tenantThreshold, deletedAt: expect.any(String) });
    expectProblem(await h.as(h.sandbox.tenantKey.secretKey).delete(`${BASE}/${tenantThreshold}`), 404);
    expect((await h.as(h.sandbox.tenantKey.secretKey).get(`${BASE}?merchantId=${m2}`).expect(200)).body.data).toEqual([]);
    const row = await h.rt.db.models.BalanceThreshold.findByPk(tenantThreshold, { raw: true });
    expect((row as unknown as { deletedAt: Date | null }).deletedAt).not.toBeNull();
    const audit = await h.rt.db.models.AuditEntry.count({ where: { action: 'balance_threshold.deleted', targetId: tenantThreshold } });
    expect(audit).toBe(1);
    await h.as(h.sandbox.merchantKey.secretKey).delete(`${BASE}/${merchantThreshold}`).expect(200);
  });
});

describe(`balance.threshold_reached: once per crossing, in the posting's transaction (${dialectName})`, () => {
  it('above: one event when a posting crosses, none while above, a second after crossing back', async () => {
    const threshold = (
      await create(h.sandbox.merchantKey.secretKey, { balanceType: 'available', direction: 'above', amount: money('CHF', 10_000) }).expect(
        201,
      )
    ).body.data;
    expect(threshold.crossed).toBe(false);
    await adjust(m1, 4_000, { currency: 'CHF' });
    expect(await reached(m1)).toHaveLength(0);
    await adjust(m1, 7_000, { currency: 'CHF' }); // 11_000: crosses
    let events = await reached(m1);
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({
      object: 'balance',
      merchantId: m1,
      currency: 'CHF',
      balanceType: 'available',
      direction: 'above',
      threshold: { id: threshold.id, amount: money('CHF', 10_000), crossed: true },
      balance: money('CHF', 11_000),
      available: money('CHF', 11_000),
      pending: money('CHF', 0),
      sourceType: 'adjustment',
    });
    await adjust(m1, 5_000, { currency: 'CHF' }); // 16_000: still above
    await adjust(m1, -1_000, { currency: 'CHF' }); // 15_000
    await adjust(m1, 3_000, { currency: 'CHF', account: 'merchant_pending' }); // the pending balance: not this threshold's
    expect(await reached(m1)).toHaveLength(1);
    const listed = (await h.as(h.sandbox.merchantKey.secretKey).get(`${BASE}?currency=CHF`).expect(200)).body.data[0];
    expect(listed).toMatchObject({ crossed: true, crossedAt: expect.any(String) });
    await adjust(m1, -9_000, { currency: 'CHF' }); // 6_000: back under, armed again
    expect((await h.as(h.sandbox.merchantKey.secretKey).get(`${BASE}?currency=CHF`).expect(200)).body.data[0].crossed).toBe(false);
    expect(await reached(m1)).toHaveLength(1);
    await adjust(m1, 4_000, { currency: 'CHF' }); // exactly 10_000: reached
    events = await reached(m1);
    expect(events).toHaveLength(2);
    expect(events[1].data.balance).toEqual(money('CHF', 10_000));
    // the merchant's endpoints receive it (a merchant-level type of the catalog)
    const audit = await h.rt.db.models.AuditEntry.count({ where: { action: 'balance_threshold.reached', targetId: threshold.id } });
    expect(audit).toBe(2);
    expect(await h.rt.db.models.AuditEntry.count({ where: { action: 'balance_threshold.rearmed', targetId: threshold.id } })).toBe(1);
    await h.as(h.sandbox.merchantKey.secretKey).delete(`${BASE}/${threshold.id}`).expect(200);
    // deleted: no more events
    await adjust(m1, -9_000, { currency: 'CHF' });
    await adjust(m1, 9_000, { currency: 'CHF' });
    expect(await reached(m1)).toHaveLength(2);
  });

  it('postings at once that cross it together raise it exactly once (each waits for the one before to commit)', async () => {
    await create(h.sandbox.merchantKey.secretKey, { balanceType: 'available', direction: 'above', amount: money('SEK', 10_000) }).expect(
      201,
    );
    const ctx = operatorContext(h.rt, { level: 'platform', tenantId: null, livemode: false });
    // two postings of 60.00 in their own transactions at once: neither crosses 100.00 alone, together they do
    await Promise.all(
      Array.from({ length: 2 }, () =>
        post(ctx, {
          tenantId: h.sandbox.tenantId,
          livemode: false,
          sourceType: 'adjustment',
          sourceId: newId(),
          description: 'threshold race',
          lines: [
            { account: 'provider_clearing', ownerId: clearing, currency: 'SEK', amountMinor: -6_000 },
            { account: 'merchant_available', ownerId: m1, currency: 'SEK', amountMinor: 6_000 },
          ],
        }),
      ),
    );
    const events = (await reached(m1)).filter((e) => e.data.currency === 'SEK');
    expect(events).toHaveLength(1);
    expect(events[0].data.balance.valueMinor).toBeGreaterThanOrEqual(10_000);
  });

  it('below, mirrored, on the pending balance, for the merchant only; a threshold created beyond starts crossed', async () => {
    const t = (
      await create(h.sandbox.tenantKey.secretKey, {
        merchantId: m2,
        balanceType: 'pending',
        direction: 'below',
        amount: money('SEK', 2_000),
      }).expect(201)
    ).body.data;
    expect(t.crossed).toBe(true); // no SEK yet: 0 ≤ 2_000, and no event for it
    await adjust(m2, 5_000, { currency: 'SEK', account: 'merchant_pending' }); // 5_000: above, armed
    expect(await reached(m2)).toHaveLength(0);
    await adjust(m2, -2_500, { currency: 'SEK', account: 'merchant_pending' }); // 2_500
    expect(await reached(m2)).toHaveLength(0);
    await adjust(m2, -1_000, { currency: 'SEK', account: 'merchant_pending' }); // 1_500: crosses below
    await adjust(m2, -500, { currency: 'SEK', account: 'merchant_pending' }); // 1_000: still below
    await adjust(m1, -9_999, { currency: 'SEK', account: 'merchant_pending' }); // another merchant: not its threshold
    let events = await reached(m2);
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({
      direction: 'below',
      balanceType: 'pending',
      balance: money('SEK', 1_500),
      pending: money('SEK', 1_500),
    });
    await adjust(m2, 3_000, { currency: 'SEK', account: 'merchant_pending' }); // 4_000: back above
    await adjust(m2, -2_000, { currency: 'SEK', account: 'merchant_pending' }); // 2_000: reached again
    events = await reached(m2);
    expect(events).toHaveLength(2);
    expect(events[1].data.balance).toEqual(money('SEK', 2_000));
    // other modes and currencies are not this threshold's
    await adjust(m2, 9_000, { currency: 'SEK', account: 'merchant_pending', livemode: true });
    await adjust(m2, -9_000, { currency: 'SEK', account: 'merchant_pending', livemode: true });
    await adjust(m2, 5_000, { currency: 'NOK', account: 'merchant_pending' });
    await adjust(m2, -5_000, { currency: 'NOK', account: 'merchant_pending' });
    expect(await reached(m2)).toHaveLength(2);
    expect(events.every((e) => (e as unknown as { merchantId: string }).merchantId === m2)).toBe(true);
  });

  it("the release of pending to available moves both balances: a pending-below and an available-above threshold fire in the release's transaction", async () => {
    const key = h.sandbox.tenantKey.secretKey;
    const above = (
      await create(key, { merchantId: m2, balanceType: 'available', direction: 'above', amount: money('DKK', 1_000) }).expect(201)
    ).body.data;
    const below = (await create(key, { merchantId: m2, balanceType: 'pending', direction: 'below', amount: money('DKK', 100) }).expect(201))
      .body.data;
    expect([above.crossed, below.crossed]).toEqual([false, true]);
    await adjust(m2, 1_500, { currency: 'DKK', account: 'merchant_pending' }); // pending 1_500: re-arms below
    const release = {
      tenantId: h.sandbox.tenantId,
      livemode: false,
      merchantId: m2,
      currency: 'DKK',
      kind: 'pending',
      amountMinor: 1_500,
      releaseAt: h.clock.now(),
      releasedAt: null,
      postingId: null,
      sourceType: 'payment',
      sourceId: newId(),
    };
    await h.rt.db.models.LedgerRelease.create({ id: newId(), ...release, createdAt: h.clock.now(), updatedAt: h.clock.now() } as never);
    const before = (await reached(m2)).length;
    expect(await releaseDue(tenant)).toBe(1);
    const events = (await reached(m2)).slice(before);
    expect(events.map((e) => e.data.threshold.id).sort()).toEqual([above.id, below.id].sort());
    // in the release's transaction: the events are the outbox's, with the balance.available of the same release
    const available = await h.rt.db.models.Event.findAll({ where: { type: 'balance.available', merchantId: m2 }, raw: true });
    expect(available).toHaveLength(1);
  });

  it('rolls back with the posting: a failed transaction leaves neither the state nor the event', async () => {
    const t = (
      await create(h.sandbox.merchantKey.secretKey, { balanceType: 'available', direction: 'above', amount: money('PLN', 1_000) }).expect(
        201,
      )
    ).body.data;
    const ctx = operatorContext(h.rt, { level: 'platform', tenantId: null, livemode: false });
    const baseline = (await reached(m1)).length;
    await expect(
      inTransaction(ctx, async (tx) => {
        await adjust(m1, 2_000, { currency: 'PLN', ctx: tx });
        // inside the transaction, the event is in the outbox with the entries and the state
        const seen = await h.rt.db.models.Event.count({
          where: { type: 'balance.threshold_reached', merchantId: m1 },
          transaction: tx.transaction!,
        });
        expect(seen).toBe(baseline + 1);
        const row = await h.rt.db.models.BalanceThreshold.findByPk(t.id, { transaction: tx.transaction!, raw: true });
        expect(Boolean((row as unknown as { crossed: boolean }).crossed)).toBe(true);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect((await reached(m1)).filter((e) => e.data.threshold.id === t.id)).toHaveLength(0);
    expect((await h.as(h.sandbox.merchantKey.secretKey).get(`${BASE}?currency=PLN`).expect(200)).body.data[0].crossed).toBe(false);
    await adjust(m1, 2_000, { currency: 'PLN' });
    expect((await reached(m1)).filter((e) => e.data.threshold.id === t.id)).toHaveLength(1);
  });

  it("delivers to the merchant's endpoints (a merchant-level event of the catalog)", async () => {
    const endpoint = await h
      .as(m2Key)
      .post('/v1/webhooks/endpoints', { url: 'https://hooks.example.test/thresholds', events: ['balance.threshold_reached'] })
      .expect(201);
    await create(m2Key, { balanceType: 'available', direction: 'above', amount: money('CZK', 1_000) }).expect(201);
    await adjust(m2, 1_000, { currency: 'CZK' });
    const [event] = (await reached(m2)).filter((e) => e.data.currency === 'CZK');
    expect(event).toBeDefined();
    const deliveries = await h.rt.db.models.WebhookDelivery.findAll({ where: { eventId: event.id }, raw: true });
    expect(deliveries.map((d) => (d as unknown as { endpointId: string }).endpointId)).toContain(endpoint.body.data.id);
  });
});
