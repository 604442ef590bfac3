import { useApiHarness } from '../helpers/api';
import { expectLedgerInvariant, postDirectCapture } from '../helpers/ledger';
import { openRuntime, closeRuntime, type Runtime } from '../../src/runtime';
import { operatorContext } from '../../src/services/access/operators';
import type { CallerContext } from '../../src/domain/context';
import { inTransaction } from '../../src/domain/context';
import { computeFees, type ApplicableSchedule, type FeeBreakdown } from '../../src/services/fees/engine';
import { resolveFees } from '../../src/services/fees/schedules';
import { balancesOf } from '../../src/services/ledger/balances';
import { post } from '../../src/services/ledger/post';
import { postRefund } from '../../src/services/ledger/postings/refund';
import { releaseDue } from '../../src/services/ledger/releases';
import { PLATFORM_ID } from '../../src/services/tenants/platform';
import { newId } from '../../src/util/ids';
import type { FeeRule } from '../../src/db/models/fees';
import type { LedgerEntryRow } from '../../src/db/models';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let ctx: CallerContext;
const providerIntegrationId = newId();
const partnerId = newId();

const h = useApiHarness();
beforeAll(async () => {
  ctx = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
});
afterEach(async () => {
  await expectLedgerInvariant(h.rt);
});

function rule(party: FeeRule['party'], fixed: number, rate: number, type: FeeRule['transactionType'] = 'payment'): FeeRule {
  return {
    transactionType: type,
    transactionOutcome: 'any',
    method: 'fixed_plus_percentage',
    party,
    currency: 'EUR',
    fixedAmount: { currency: 'EUR', valueMinor: fixed },
    percentageRate: rate,
    minAmount: null,
    maxAmount: null,
  };
}

/** A schedule with a fee for every party and a 10% rolling reserve held 7 days. */
function fullSchedule(autoRelease = true): ApplicableSchedule {
  return {
    level: 'tenant',
    feeScheduleId: newId(),
    platformOwned: true,
    reserveSpecified: true,
    rules: [
      rule('provider', 10, 5000),
      rule('tenant', 20, 10000),
      rule('platform', 5, 2000),
      rule('partner', 0, 3000),
      rule('tenant', 15, 0, 'refund'),
    ],
    rollingReserve: { rate: 100_000, holdDays: 7, autoRelease, roundingMode: 'half_up' },
  };
}

function fees(amount: number, schedule: ApplicableSchedule, merchantId: string, type: 'payment' | 'refund' = 'payment'): FeeBreakdown {
  return computeFees(
    {
      type,
      outcome: 'successful',
      amount: { currency: 'EUR', valueMinor: amount },
      method: 'card',
      merchantId,
      partnerId,
      at: h.clock.now(),
    },
    [schedule],
  );
}

async function capture(
  breakdown: FeeBreakdown,
  options: { merchantId?: string; immediate?: boolean; partner?: string | null; paymentId?: string } = {},
) {
  return postDirectCapture(ctx, {
    tenantId: h.sandbox.tenantId,
    merchantId: options.merchantId ?? h.sandbox.merchantId,
    paymentId: options.paymentId,
    providerIntegrationId,
    partnerId: options.partner === undefined ? partnerId : options.partner,
    breakdown,
    immediate: options.immediate,
  });
}

async function refund(paymentId: string, amount: number, fee: FeeBreakdown | null = null, merchantId = h.sandbox.merchantId) {
  const refundId = newId();
  await inTransaction(ctx, (tctx) =>
    postRefund(tctx, {
      tenantId: h.sandbox.tenantId,
      livemode: false,
      merchantId,
      paymentId,
      refundId,
      providerIntegrationId,
      partnerId,
      amount: { currency: 'EUR', valueMinor: amount },
      fee,
    }),
  );
  return refundId;
}

async function balance(merchantId: string) {
  const [b] = await balancesOf(ctx, { merchantId, currency: 'EUR' });
  return b
    ? { pending: b.pending.valueMinor, available: b.available.valueMinor, reserved: b.reserved.valueMinor, payable: b.payable.valueMinor }
    : null;
}

async function entriesOf(sourceId: string): Promise<LedgerEntryRow[]> {
  const rows = (await h.rt.db.models.LedgerEntry.findAll({ where: { sourceId }, raw: true })) as unknown as LedgerEntryRow[];
  return rows.map((r) => ({ ...r, amountMinor: Number(r.amountMinor) }));
}

async function events(type: string, since: Date) {
  const rows = await h.rt.db.models.Event.findAll({ where: { type }, raw: true });
  return (rows as unknown as { type: string; tenantId: string; merchantId: string; data: Record<string, unknown>; createdAt: Date }[])
    .map((e) => ({ ...e, data: typeof e.data === 'string' ? JSON.parse(e.data) : e.data }))
    .filter((e) => new Date(e.createdAt).getTime() >= since.getTime());
}

/** releases run as one merchant sees them, so other tests' due releases do not count */
function asMerchant(merchantId: string): CallerContext {
  return operatorContext(h.rt, { level: 'merchant', tenantId: h.sandbox.tenantId, merchantId, livemode: false });
}

async function newMerchant(): Promise<string> {
  // balances are per merchant: a fresh merchant id keeps each test's figures independent
  return newId();
}

describe('postCapture', () => {
  it("books the sandbox schedule's real fee breakdown: clearing −amount, pending +net, tenant revenue +fee", async () => {
    const merchantId = h.sandbox.merchantId;
    const breakdown = await resolveFees(ctx, {
      type: 'payment',
      outcome: 'successful',
      amount: { currency: 'EUR', valueMinor: 10_000 },
      method: 'card',
      merchantId,
      at: h.clock.now(),
    });
    // 1.4% + 0.25 EUR
    expect(breakdown).toMatchObject({ amount: 10_000, tenantFee: 165, merchantFee: 165, net: 9835, reserve: 0 });
    const paymentId = await capture(breakdown, { partner: null });
    const entries = await entriesOf(paymentId);
    const by = (account: string) => entries.filter((e) => e.account === account);
    expect(by('provider_clearing')).toEqual([
      expect.objectContaining({ ownerId: providerIntegrationId, amountMinor: -10_000, merchantId: null }),
    ]);
    expect(by('merchant_pending')).toEqual([expect.objectContaining({ ownerId: merchantId, merchantId, amountMinor: 9835 })]);
    expect(by('tenant_revenue')).toEqual([expect.objectContaining({ ownerId: h.sandbox.tenantId, amountMinor: 165, merchantId: null })]);
    // zero lines are not written
    expect(entries).toHaveLength(3);
    expect(new Set(entries.map((e) => e.postingId)).size).toBe(1);
    expect(await balance(merchantId)).toEqual({ pending: 9835, available: 0, reserved: 0, payable: 0 });
  });

  it("books every party's fee to its owner and holds the rolling reserve", async () => {
    const merchantId = await newMerchant();
    const b = fees(20_000, fullSchedule(), merchantId);
    // provider 10 + 0.5%, tenant 20 + 1%, platform 5 + 0.2%, partner 0.3%; reserve 10% of the net, half up
    expect(b).toMatchObject({
      providerFee: 110,
      tenantFee: 220,
      platformFee: 45,
      partnerCommission: 60,
      merchantFee: 435,
      net: 19_565,
      reserve: 1957,
    });
    const paymentId = await capture(b, { merchantId });
    const entries = await entriesOf(paymentId);
    const line = (account: string) => entries.find((e) => e.account === account);
    expect(line('provider_fees')).toMatchObject({ ownerId: providerIntegrationId, amountMinor: 110 });
    expect(line('tenant_revenue')).toMatchObject({ ownerId: h.sandbox.tenantId, amountMinor: 220 });
    expect(line('platform_revenue')).toMatchObject({ ownerId: PLATFORM_ID, amountMinor: 45 });
    expect(line('partner_revenue')).toMatchObject({ ownerId: partnerId, amountMinor: 60 });
    expect(line('merchant_reserve')).toMatchObject({ ownerId: merchantId, amountMinor: 1957 });
    expect(line('merchant_pending')).toMatchObject({ ownerId: merchantId, amountMinor: 19_565 - 1957 });
    expect(line('provider_clearing')).toMatchObject({ amountMinor: -20_000 });
    expect(await balance(merchantId)).toEqual({ pending: 17_608, available: 0, reserved: 1957, payable: 0 });
  });

  it('releases pending after the holding period and the reserve after holdDays, once, with balance.available', async () => {
    const merchantId = await newMerchant();
    const start = h.clock.now();
    const paymentId = await capture(fees(20_000, fullSchedule(), merchantId), { merchantId });
    h.clock.advance(48 * HOUR - 1);
    expect(await releaseDue(asMerchant(merchantId))).toBe(0);
    expect(await balance(merchantId)).toEqual({ pending: 17_608, available: 0, reserved: 1957, payable: 0 });
    h.clock.advance(1);
    expect(await releaseDue(asMerchant(merchantId))).toBe(1);
    expect(await releaseDue(asMerchant(merchantId))).toBe(0);
    expect(await balance(merchantId)).toEqual({ pending: 0, available: 17_608, reserved: 1957, payable: 0 });
    const released = (await events('balance.available', start)).filter((e) => e.merchantId === merchantId);
    expect(released).toHaveLength(1);
    expect(released[0]).toMatchObject({ tenantId: h.sandbox.tenantId });
    expect(released[0].data).toMatchObject({
      entityType: 'merchant',
      merchantId,
      currency: 'EUR',
      amount: { currency: 'EUR', valueMinor: 17_608 },
      kind: 'pending',
      sourceId: paymentId,
      available: { currency: 'EUR', valueMinor: 17_608 },
    });
    // the reserve: 7 days after the capture
    h.clock.set(new Date(start.getTime() + 7 * DAY - 1));
    expect(await releaseDue(asMerchant(merchantId))).toBe(0);
    h.clock.advance(1);
    expect(await releaseDue(asMerchant(merchantId))).toBe(1);
    expect(await balance(merchantId)).toEqual({ pending: 0, available: 19_565, reserved: 0, payable: 0 });
    const all = (await events('balance.available', start)).filter((e) => e.merchantId === merchantId);
    expect(all.map((e) => e.data.kind)).toEqual(['pending', 'reserve']);
    const releases = await h.rt.db.models.LedgerRelease.findAll({ where: { sourceId: paymentId }, raw: true });
    expect(releases.map((r) => (r as unknown as { releasedAt: Date | null }).releasedAt)).not.toContain(null);
  });

  it('keeps the reserve when the schedule does not auto-release it', async () => {
    const merchantId = await newMerchant();
    await capture(fees(10_000, fullSchedule(false), merchantId), { merchantId });
    h.clock.advance(365 * DAY);
    expect(await releaseDue(asMerchant(merchantId))).toBe(1);
    expect(await balance(merchantId)).toMatchObject({ pending: 0, reserved: 977 });
  });

  it('credits available at once for funds available immediately (no holding period, reserve still held)', async () => {
    const merchantId = await newMerchant();
    const paymentId = await capture(fees(10_000, fullSchedule(), merchantId), { merchantId, immediate: true });
    expect(await balance(merchantId)).toEqual({ pending: 0, available: 8788, reserved: 977, payable: 0 });
    const kinds = (await h.rt.db.models.LedgerRelease.findAll({ where: { sourceId: paymentId }, raw: true })).map(
      (r) => (r as unknown as { kind: string }).kind,
    );
    expect(kinds).toEqual(['reserve']);
  });

  it('posts once per payment', async () => {
    const merchantId = await newMerchant();
    const b = fees(5000, fullSchedule(), merchantId);
    const paymentId = await capture(b, { merchantId });
    await capture(b, { merchantId, paymentId });
    expect(new Set((await entriesOf(paymentId)).map((e) => e.postingId)).size).toBe(1);
    expect((await balance(merchantId))?.pending).toBe(b.net - b.reserve);
  });

  it('books a partner commission to the tenant when the payment has no partner', async () => {
    const merchantId = await newMerchant();
    const b = fees(10_000, fullSchedule(), merchantId);
    const paymentId = await capture(b, { merchantId, partner: null });
    const tenant = (await entriesOf(paymentId)).filter((e) => e.account === 'tenant_revenue');
    expect(tenant.map((e) => e.amountMinor).sort((a, c) => a - c)).toEqual([b.partnerCommission, b.tenantFee].sort((a, c) => a - c));
    expect((await entriesOf(paymentId)).some((e) => e.account === 'partner_revenue')).toBe(false);
  });
});

describe('postRefund', () => {
  it('debits available (amount + refund fee), credits clearing, books the refund fee; no event while available stays ≥ 0', async () => {
    const merchantId = await newMerchant();
    const start = h.clock.now();
    const paymentId = await capture(fees(10_000, fullSchedule(), merchantId), { merchantId, immediate: true });
    const refundFee = fees(2000, fullSchedule(), merchantId, 'refund');
    expect(refundFee.merchantFee).toBe(15);
    const refundId = await refund(paymentId, 2000, refundFee, merchantId);
    const entries = await entriesOf(refundId);
    expect(entries.find((e) => e.account === 'merchant_available')).toMatchObject({ merchantId, amountMinor: -2015, sourceType: 'refund' });
    expect(entries.find((e) => e.account === 'provider_clearing')).toMatchObject({ ownerId: providerIntegrationId, amountMinor: 2000 });
    expect(entries.find((e) => e.account === 'tenant_revenue')).toMatchObject({ ownerId: h.sandbox.tenantId, amountMinor: 15 });
    expect(await balance(merchantId)).toEqual({ pending: 0, available: 8788 - 2015, reserved: 977, payable: 0 });
    expect((await events('balance.negative', start)).filter((e) => e.merchantId === merchantId)).toEqual([]);
    // posts once per refund
    await inTransaction(ctx, (tctx) =>
      postRefund(tctx, {
        tenantId: h.sandbox.tenantId,
        livemode: false,
        merchantId,
        paymentId,
        refundId,
        providerIntegrationId,
        partnerId,
        amount: { currency: 'EUR', valueMinor: 2000 },
        fee: refundFee,
      }),
    );
    expect(await balance(merchantId)).toMatchObject({ available: 8788 - 2015 });
  });

  it('emits balance.negative to the tenant when a refund drives available below zero', async () => {
    const merchantId = await newMerchant();
    const start = h.clock.now();
    // still pending: a full refund right after the capture leaves available at −amount
    const paymentId = await capture(fees(10_000, fullSchedule(), merchantId), { merchantId });
    const refundId = await refund(paymentId, 10_000, null, merchantId);
    expect(await balance(merchantId)).toEqual({ pending: 8788, available: -10_000, reserved: 977, payable: 0 });
    const negative = (await events('balance.negative', start)).filter((e) => e.merchantId === merchantId);
    expect(negative).toHaveLength(1);
    expect(negative[0]).toMatchObject({ tenantId: h.sandbox.tenantId });
    expect(negative[0].data).toMatchObject({
      merchantId,
      currency: 'EUR',
      available: { currency: 'EUR', valueMinor: -10_000 },
      refundId,
      paymentId,
      reason: 'refund',
    });
  });
});

describe('post', () => {
  it('refuses unbalanced postings, fewer than two lines and non-integer amounts, writing nothing', async () => {
    const base = { tenantId: h.sandbox.tenantId, livemode: false, sourceType: 'adjustment' as const, sourceId: newId() };
    const m = await newMerchant();
    await expect(
      post(ctx, { ...base, lines: [{ account: 'merchant_available', ownerId: m, currency: 'EUR', amountMinor: 5 }] }),
    ).rejects.toMatchObject({ code: 'LEDGER_POSTING_INVALID' });
    await expect(
      post(ctx, {
        ...base,
        lines: [
          { account: 'merchant_available', ownerId: m, currency: 'EUR', amountMinor: 5 },
          { account: 'tenant_revenue', ownerId: h.sandbox.tenantId, currency: 'EUR', amountMinor: -4 },
        ],
      }),
    ).rejects.toMatchObject({ code: 'LEDGER_UNBALANCED' });
    await expect(
      post(ctx, {
        ...base,
        lines: [
          { account: 'merchant_available', ownerId: m, currency: 'EUR', amountMinor: 5 },
          { account: 'tenant_revenue', ownerId: h.sandbox.tenantId, currency: 'USD', amountMinor: -5 },
        ],
      }),
    ).rejects.toMatchObject({ code: 'LEDGER_UNBALANCED' });
    await expect(
      post(ctx, {
        ...base,
        lines: [
          { account: 'merchant_available', ownerId: m, currency: 'EUR', amountMinor: 0.5 },
          { account: 'tenant_revenue', ownerId: h.sandbox.tenantId, currency: 'EUR', amountMinor: -0.5 },
        ],
      }),
    ).rejects.toMatchObject({ code: 'LEDGER_POSTING_INVALID' });
    expect(await entriesOf(base.sourceId)).toEqual([]);
    // a balanced multi-currency adjustment goes through, in one posting
    const result = await post(ctx, {
      ...base,
      lines: [
        { account: 'merchant_available', ownerId: m, currency: 'EUR', amountMinor: 5 },
        { account: 'tenant_revenue', ownerId: h.sandbox.tenantId, currency: 'EUR', amountMinor: -5 },
        { account: 'merchant_payable', ownerId: m, currency: 'USD', amountMinor: 7 },
        { account: 'merchant_available', ownerId: m, currency: 'USD', amountMinor: -7 },
      ],
    });
    expect(result.entries).toHaveLength(4);
    expect(result.entries.every((e) => e.postingId === result.postingId)).toBe(true);
    const usd = await balancesOf(ctx, { merchantId: m, currency: 'USD' });
    expect(usd).toEqual([
      {
        merchantId: m,
        currency: 'USD',
        pending: { currency: 'USD', valueMinor: 0 },
        available: { currency: 'USD', valueMinor: -7 },
        reserved: { currency: 'USD', valueMinor: 0 },
        payable: { currency: 'USD', valueMinor: 7 },
      },
    ]);
  });

  it("rolls back with the caller's transaction", async () => {
    const m = await newMerchant();
    const sourceId = newId();
    await expect(
      inTransaction(ctx, async (tctx) => {
        await post(tctx, {
          tenantId: h.sandbox.tenantId,
          livemode: false,
          sourceType: 'adjustment',
          sourceId,
          lines: [
            { account: 'merchant_available', ownerId: m, currency: 'EUR', amountMinor: 5 },
            { account: 'tenant_revenue', ownerId: h.sandbox.tenantId, currency: 'EUR', amountMinor: -5 },
          ],
        });
        throw new Error('later step failed');
      }),
    ).rejects.toThrow('later step failed');
    expect(await entriesOf(sourceId)).toEqual([]);
  });
});

describe('the release job under two processes', () => {
  let second: Runtime;
  beforeAll(async () => {
    second = await openRuntime(h.rt.config, { clock: h.clock, migrate: false, logger: h.rt.logger });
  });
  afterAll(async () => closeRuntime(second));

  it('moves each due release exactly once when two runs race', async () => {
    // everything earlier tests left due is moved first
    h.clock.advance(400 * DAY);
    await releaseDue(h.rt);
    const merchantId = await newMerchant();
    const start = h.clock.now();
    const count = 25;
    let expected = 0;
    for (let i = 0; i < count; i++) {
      const b = fees(1000 + i * 37, fullSchedule(false), merchantId);
      expected += b.net - b.reserve;
      await capture(b, { merchantId });
    }
    h.clock.advance(48 * HOUR);
    const [a, b] = await Promise.all([releaseDue(h.rt, { batchSize: 7 }), releaseDue(second, { batchSize: 7 })]);
    expect(a + b).toBe(count);
    expect(await balance(merchantId)).toMatchObject({ pending: 0, available: expected });
    const moves = (await h.rt.db.models.LedgerEntry.findAll({
      where: { merchantId, sourceType: 'release' },
      raw: true,
    })) as unknown as LedgerEntryRow[];
    expect(moves).toHaveLength(2 * count);
    expect((await events('balance.available', start)).filter((e) => e.merchantId === merchantId)).toHaveLength(count);
    expect(await releaseDue(second)).toBe(0);
  });
});
