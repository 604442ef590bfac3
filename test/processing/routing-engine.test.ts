import { useApiHarness } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { operatorContext } from '../../src/services/access/operators';
import type { CallerContext } from '../../src/domain/context';
import type { LimitRow } from '../../src/db/models';
import { createCompanyRecord, createMerchantRecord } from '../../src/services/organization/records';
import {
  conditionsMatch,
  decideRoute,
  decideWithSnapshot,
  loadRoutingSnapshot,
  pickWeighted,
  type RoutingInput,
} from '../../src/services/routing/decide';
import { normalizeConditions } from '../../src/services/routing/rules';
import { mulberry32 } from '../../src/util/random';

// The routing engine: rule conditions and priority, priority and split outcomes (70/30 over 10,000 decisions),
// exclusion by currency, brand, restriction, exhausted limit and provider status, sandbox-only providers in live
// mode, and the default order without a matching rule. Configuration is written through the HTTP operations.

const CARD = '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e01';
const PAYOUT = '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e02';
const RULES = '/v1/admin/routing-rules';
const AT = new Date('2026-03-01T12:00:00.000Z');

let tenantKey: string;
let platform: string;
let ctx: CallerContext;
let merchantId: string;
let otherMerchantId: string;
let channelId: string;
/** created in this order: a (EUR+USD, visa+mastercard), b (EUR, visa+mastercard+amex), c (EUR+GBP, all brands) */
let a: string;
let b: string;
let c: string;
let payout: string;
let disabled: string;

type Res = { status: number; body: { data: { id: string } } };
async function ok(pending: Res | PromiseLike<Res>, status = 201): Promise<string> {
  const res = await pending;
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data.id;
}

const terminal = (name: string, currencies: string[], brands?: string[]) =>
  ok(
    h.as(tenantKey).post('/v1/admin/terminals', {
      providerIntegrationId: CARD,
      name,
      credentials: { merchantAccount: 'acct', apiKey: 'key' },
      supportedCurrencies: currencies,
      ...(brands ? { supportedBrands: brands } : {}),
    }),
  );

/** Creates and activates a rule; returns its version id. */
async function activeRule(body: Record<string, unknown>): Promise<string> {
  const id = await ok(await h.as(tenantKey).post(RULES, { name: 'rule', ...body }));
  await ok(await h.as(tenantKey).post(`${RULES}/${id}/activate`), 200);
  return id;
}

async function archiveAll(): Promise<void> {
  const active = await h.as(tenantKey).get(`${RULES}?status=active&limit=100`);
  for (const r of active.body.data) await ok(await h.as(tenantKey).post(`${RULES}/${r.id}/archive`), 200);
}

const payment = (extra: Partial<RoutingInput> = {}): RoutingInput => ({
  merchantId,
  amount: { currency: 'EUR', valueMinor: 5_000 },
  paymentMethod: 'card',
  brand: 'visa',
  cardCountry: 'DE',
  at: AT,
  ...extra,
});

const reasonsOf = (decision: { candidates: { terminalId: string; reasons: string[] }[] }) =>
  Object.fromEntries(decision.candidates.map((x) => [x.terminalId, x.reasons]));

const h = useApiHarness();
beforeAll(async () => {
  tenantKey = h.sandbox.tenantKey.secretKey;
  platform = h.sandbox.platformToken;
  merchantId = h.sandbox.merchantId;
  ctx = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
  const company = await createCompanyRecord(ctx, { name: 'Second Co', country: 'DE', livemode: false });
  otherMerchantId = (await createMerchantRecord(ctx, { companyId: company.id, name: 'Second merchant' })).id;
  // the sandbox's own terminal (when it provisions one) would be a default candidate: this file counts its own
  const sandboxTerminal = (h.sandbox as { terminalId?: string }).terminalId;
  if (sandboxTerminal) await ok(h.as(tenantKey).post(`/v1/admin/terminals/${sandboxTerminal}/disable`), 200);
  channelId = await ok(await h.as(tenantKey).post('/v1/admin/channels', { name: 'Web', direction: 'payin', currencies: ['EUR'] }));
  a = await terminal('A', ['EUR', 'USD'], ['visa', 'mastercard']);
  h.clock.advance(1_000);
  b = await terminal('B', ['EUR']);
  h.clock.advance(1_000);
  disabled = await terminal('Disabled', ['EUR']);
  await ok(await h.as(tenantKey).post(`/v1/admin/terminals/${disabled}/disable`), 200);
  h.clock.advance(1_000);
  c = await terminal('C', ['EUR', 'GBP']);
  payout = await ok(
    await h.as(tenantKey).post('/v1/admin/terminals', {
      providerIntegrationId: PAYOUT,
      name: 'Payouts',
      credentials: { accountId: 'a', signingKey: 's' },
      supportedCurrencies: ['EUR'],
    }),
  );
});

describe(`routing engine (${dialectName})`, () => {
  test("no rule: the default is the tenant's active payin terminals in creation order, each checked", async () => {
    const decision = await decideRoute(ctx, payment());
    expect(decision).toEqual({
      ruleId: null,
      ruleVersionId: null,
      version: null,
      strategy: 'default',
      terminals: [a, b, c],
      candidates: [
        { terminalId: a, providerIntegrationId: CARD, eligible: true, reasons: [] },
        { terminalId: b, providerIntegrationId: CARD, eligible: true, reasons: [] },
        { terminalId: c, providerIntegrationId: CARD, eligible: true, reasons: [] },
      ],
    });
    // payout and disabled terminals are not candidates of the default; currency and brand narrow it
    const gbp = await decideRoute(ctx, payment({ amount: { currency: 'GBP', valueMinor: 100 } }));
    expect(gbp.terminals).toEqual([c]);
    expect(reasonsOf(gbp)).toEqual({ [a]: ['currency_not_supported'], [b]: ['currency_not_supported'], [c]: [] });
    const amex = await decideRoute(ctx, payment({ brand: 'amex' }));
    expect(amex.terminals).toEqual([b, c]);
    expect(reasonsOf(amex)[a]).toEqual(['brand_not_supported']);
    // an unrecognised brand is not held against a terminal; another method is
    expect((await decideRoute(ctx, payment({ brand: 'unknown' }))).terminals).toEqual([a, b, c]);
    const transfer = await decideRoute(ctx, payment({ paymentMethod: 'bank_transfer', brand: null }));
    expect(transfer.terminals).toEqual([]);
    expect(reasonsOf(transfer)[a]).toEqual(['payment_method_not_supported', 'provider_payment_method_not_supported']);
    // USD at the sandbox acquirer's currencies: only A takes USD
    expect((await decideRoute(ctx, payment({ amount: { currency: 'USD', valueMinor: 100 } }))).terminals).toEqual([a]);
  });

  test('conditions: each one narrows, absent ones match anything', () => {
    const input = payment({ channelId: 'ch-1' });
    const match = (c: Parameters<typeof normalizeConditions>[0]) => conditionsMatch(normalizeConditions(c), input);
    expect(match({})).toBe(true);
    expect(match({ amount: { currency: 'EUR', min: 5_000, max: 5_000 } })).toBe(true);
    expect(match({ amount: { currency: 'EUR', min: 5_001 } })).toBe(false);
    expect(match({ amount: { currency: 'EUR', max: 4_999 } })).toBe(false);
    expect(match({ amount: { currency: 'USD', min: 0 } })).toBe(false);
    expect(match({ currencies: ['USD', 'EUR'] })).toBe(true);
    expect(match({ currencies: ['USD'] })).toBe(false);
    expect(match({ paymentMethods: ['card'] })).toBe(true);
    expect(match({ paymentMethods: ['wallet'] })).toBe(false);
    expect(match({ brands: ['visa'] })).toBe(true);
    expect(match({ brands: ['amex'] })).toBe(false);
    expect(conditionsMatch(normalizeConditions({ brands: ['visa'] }), payment({ brand: null }))).toBe(false);
    expect(match({ cardCountries: ['FR', 'DE'] })).toBe(true);
    expect(match({ cardCountries: ['FR'] })).toBe(false);
    expect(conditionsMatch(normalizeConditions({ cardCountries: ['DE'] }), payment({ cardCountry: null }))).toBe(false);
    expect(match({ merchantIds: [merchantId] })).toBe(true);
    expect(match({ merchantIds: [otherMerchantId] })).toBe(false);
    expect(match({ channelIds: ['ch-1'] })).toBe(true);
    expect(match({ channelIds: ['ch-2'] })).toBe(false);
    expect(conditionsMatch(normalizeConditions({ channelIds: ['ch-1'] }), payment())).toBe(false);
    expect(match({ currencies: ['EUR'], brands: ['visa'], amount: { currency: 'EUR', min: 6_000 } })).toBe(false);
  });

  test('active rules by priority: the first whose conditions match gives the terminals in its order; drafts and archived rules do not route', async () => {
    const small = await activeRule({
      priority: 10,
      conditions: { amount: { currency: 'EUR', max: 1_000 } },
      outcome: { type: 'priority', terminals: [c, a] },
    });
    const merchantRule = await activeRule({
      priority: 20,
      conditions: { merchantIds: [otherMerchantId] },
      outcome: { type: 'priority', terminals: [b] },
    });
    const catchAll = await activeRule({ priority: 30, outcome: { type: 'priority', terminals: [b, c, a] } });
    const channelRule = await activeRule({
      priority: 5,
      conditions: { channelIds: [channelId], brands: ['mastercard'] },
      outcome: { type: 'priority', terminals: [a] },
    });
    await ok(await h.as(tenantKey).post(RULES, { name: 'draft', priority: 0, outcome: { type: 'priority', terminals: [c] } }));

    const smallDecision = await decideRoute(ctx, payment({ amount: { currency: 'EUR', valueMinor: 900 } }));
    expect(smallDecision).toMatchObject({ ruleId: small, ruleVersionId: small, version: 1, strategy: 'priority', terminals: [c, a] });
    expect(smallDecision.candidates.map((x) => x.terminalId)).toEqual([c, a]);
    expect(await decideRoute(ctx, payment({ merchantId: otherMerchantId }))).toMatchObject({ ruleId: merchantRule, terminals: [b] });
    expect(await decideRoute(ctx, payment())).toMatchObject({ ruleId: catchAll, strategy: 'priority', terminals: [b, c, a] });
    expect(await decideRoute(ctx, payment({ channelId, brand: 'mastercard' }))).toMatchObject({ ruleId: channelRule, terminals: [a] });
    expect(await decideRoute(ctx, payment({ channelId, brand: 'visa' }))).toMatchObject({ ruleId: catchAll });

    // the matching rule decides even when it leaves nothing eligible: no fall-through to later rules
    const usd = await decideRoute(ctx, payment({ amount: { currency: 'USD', valueMinor: 500 } }));
    expect(usd).toMatchObject({ ruleId: catchAll, terminals: [a] });
    expect(reasonsOf(usd)).toEqual({ [b]: ['currency_not_supported'], [c]: ['currency_not_supported'], [a]: [] });

    // a new version replaces the old one; the decision names the version
    const v2 = await ok(await h.as(tenantKey).post(`${RULES}/${catchAll}/clone`));
    await ok(await h.as(tenantKey).patch(`${RULES}/${v2}`, { outcome: { type: 'priority', terminals: [a, disabled, b] } }), 200);
    await ok(await h.as(tenantKey).post(`${RULES}/${v2}/activate`), 200);
    const next = await decideRoute(ctx, payment());
    expect(next).toMatchObject({ ruleId: catchAll, ruleVersionId: v2, version: 2, terminals: [a, b] });
    expect(next.candidates).toEqual([
      { terminalId: a, providerIntegrationId: CARD, eligible: true, reasons: [] },
      { terminalId: disabled, providerIntegrationId: CARD, eligible: false, reasons: ['terminal_disabled'] },
      { terminalId: b, providerIntegrationId: CARD, eligible: true, reasons: [] },
    ]);
    await archiveAll();
    expect((await decideRoute(ctx, payment())).strategy).toBe('default');
  });

  test('split 70/30: over 10,000 seeded decisions each terminal is picked within 2 percentage points; the other follows as fallback', async () => {
    const rule = await activeRule({
      outcome: {
        type: 'split',
        splits: [
          { terminalId: b, weight: 30 },
          { terminalId: a, weight: 70 },
        ],
      },
    });
    // decideRoute is loadRoutingSnapshot + decideWithSnapshot: the same seeds give the same decisions either way
    const input = payment();
    const snapshot = await loadRoutingSnapshot(ctx, merchantId);
    const [viaRoute, viaSnapshot] = [mulberry32(7), mulberry32(7)];
    for (let i = 0; i < 200; i += 1) {
      expect(await decideRoute(ctx, input, { random: viaRoute })).toEqual(
        await decideWithSnapshot(snapshot, input, { random: viaSnapshot }),
      );
    }
    const random = mulberry32(20260301);
    const firsts = new Map<string, number>();
    const N = 10_000;
    for (let i = 0; i < N; i += 1) {
      const decision = await decideWithSnapshot(snapshot, input, { random });
      expect(decision).toMatchObject({ ruleId: rule, strategy: 'split' });
      expect(decision.terminals).toHaveLength(2);
      firsts.set(decision.terminals[0], (firsts.get(decision.terminals[0]) ?? 0) + 1);
    }
    const shareA = (firsts.get(a) ?? 0) / N;
    const shareB = (firsts.get(b) ?? 0) / N;
    expect(Math.abs(shareA - 0.7)).toBeLessThanOrEqual(0.02);
    expect(Math.abs(shareB - 0.3)).toBeLessThanOrEqual(0.02);
    expect(shareA + shareB).toBe(1);

    // the pick is among eligible terminals only: with B excluded, A takes every payment and B is listed with its reason
    const amex = await decideRoute(ctx, payment({ brand: 'amex' }), { random: () => 0.99 });
    expect(amex).toMatchObject({ ruleId: rule, strategy: 'split', terminals: [b] });
    const usd = await decideRoute(ctx, payment({ amount: { currency: 'USD', valueMinor: 100 } }), { random: () => 0.99 });
    expect(usd.terminals).toEqual([a]);
    expect(usd.candidates.map((x) => [x.terminalId, x.eligible])).toEqual([
      [a, true],
      [b, false],
    ]);
    await archiveAll();
  });

  test('pickWeighted follows the weights at the edges of the random range', () => {
    const items = [
      { id: 'x', w: 7 },
      { id: 'y', w: 3 },
    ];
    const pick = (r: number) =>
      pickWeighted(
        items,
        (i) => i.w,
        () => r,
      )?.id;
    expect(pick(0)).toBe('x');
    expect(pick(0.6999)).toBe('x');
    expect(pick(0.7)).toBe('y');
    expect(pick(0.99999999)).toBe('y');
    expect(
      pickWeighted(
        [],
        () => 1,
        () => 0.5,
      ),
    ).toBeNull();
  });

  test('restrictions: a deny row excludes what it matches; allow rows let only what they allow through', async () => {
    const deny = await ok(await h.as(tenantKey).post(`/v1/admin/terminals/${b}/restrictions`, { action: 'deny', brand: 'amex' }));
    const allow = await ok(
      await h.as(tenantKey).post(`/v1/admin/terminals/${c}/restrictions`, { action: 'allow', paymentMethod: 'card', brand: 'visa' }),
    );
    const amex = await decideRoute(ctx, payment({ brand: 'amex' }));
    expect(reasonsOf(amex)).toEqual({ [a]: ['brand_not_supported'], [b]: ['restriction_denied'], [c]: ['restriction_not_allowed'] });
    expect(amex.terminals).toEqual([]);
    expect((await decideRoute(ctx, payment({ brand: 'visa' }))).terminals).toEqual([a, b, c]);
    expect(reasonsOf(await decideRoute(ctx, payment({ brand: 'mastercard' })))[c]).toEqual(['restriction_not_allowed']);
    // a disabled restriction no longer counts; a refund-only restriction never counts for payments
    await ok(await h.as(tenantKey).post(`/v1/admin/terminals/${b}/restrictions/${deny}/disable`), 200);
    await ok(await h.as(tenantKey).post(`/v1/admin/terminals/${c}/restrictions/${allow}/disable`), 200);
    await ok(await h.as(tenantKey).post(`/v1/admin/terminals/${b}/restrictions`, { action: 'deny', transactionType: 'refund' }));
    expect((await decideRoute(ctx, payment({ brand: 'amex' }))).terminals).toEqual([b, c]);
  });

  test('limits: a terminal whose limit this payment would exceed is excluded (usage from the caller); narrowed limits apply only when they match', async () => {
    const count = await ok(
      await h.as(tenantKey).post(`/v1/admin/terminals/${a}/limits`, { period: { value: 1, unit: 'day' }, metric: 'count', threshold: 5 }),
    );
    const volume = await ok(
      await h.as(tenantKey).post(`/v1/admin/terminals/${b}/limits`, {
        period: { value: 1, unit: 'day' },
        metric: 'volume',
        threshold: 10_000,
        currency: 'EUR',
      }),
    );
    const amexOnly = await ok(
      await h.as(tenantKey).post(`/v1/admin/terminals/${c}/limits`, {
        period: { value: 1, unit: 'hour' },
        metric: 'count',
        threshold: 1,
        brand: 'amex',
      }),
    );
    const asked: Array<[string, string]> = [];
    const usage = (used: Record<string, number>) => async (limit: LimitRow, at: Date) => {
      asked.push([limit.id, at.toISOString()]);
      return used[limit.id] ?? 0;
    };
    const full = await decideRoute(ctx, payment({ amount: { currency: 'EUR', valueMinor: 1_500 } }), {
      usage: usage({ [count]: 5, [volume]: 9_000, [amexOnly]: 1 }),
    });
    expect(reasonsOf(full)).toEqual({ [a]: [`limit_exhausted:${count}`], [b]: [`limit_exhausted:${volume}`], [c]: [] });
    expect(full.terminals).toEqual([c]);
    expect(asked).toEqual(
      expect.arrayContaining([
        [count, AT.toISOString()],
        [volume, AT.toISOString()],
      ]),
    );
    expect(asked.map(([id]) => id)).not.toContain(amexOnly);
    // exactly at the threshold still passes
    const room = await decideRoute(ctx, payment({ amount: { currency: 'EUR', valueMinor: 1_000 } }), {
      usage: usage({ [count]: 4, [volume]: 9_000 }),
    });
    expect(room.terminals).toEqual([a, b, c]);
    // a USD payment is outside the EUR volume limit; the amex-only limit applies to amex cards only
    const amex = await decideRoute(ctx, payment({ brand: 'amex' }), { usage: usage({ [amexOnly]: 1 }) });
    expect(reasonsOf(amex)[c]).toEqual([`limit_exhausted:${amexOnly}`]);
    // a single payment above a threshold is refused even without usage
    expect(reasonsOf(await decideRoute(ctx, payment({ amount: { currency: 'EUR', valueMinor: 10_001 } })))[b]).toEqual([
      `limit_exhausted:${volume}`,
    ]);
    // the merchant's own context routes with the tenant's terminal limits too (they belong to no merchant)
    const asMerchant = operatorContext(h.rt, { level: 'merchant', tenantId: h.sandbox.tenantId, merchantId, livemode: false });
    expect((await decideRoute(asMerchant, payment(), { usage: usage({ [count]: 5 }) })).terminals).toEqual([b, c]);
    for (const [t, l] of [
      [a, count],
      [b, volume],
      [c, amexOnly],
    ])
      await ok(await h.as(tenantKey).post(`/v1/admin/terminals/${t}/limits/${l}/disable`), 200);
    expect((await decideRoute(ctx, payment(), { usage: usage({ [count]: 5 }) })).terminals).toEqual([a, b, c]);
  });

  test('providers in maintenance or deprecated are skipped (set through the platform status operation)', async () => {
    const setStatus = async (status: string) =>
      ok(await h.as(platform).patch(`/v1/admin/provider-integrations/${CARD}/status`, { status }), 200);
    await setStatus('maintenance');
    const down = await decideRoute(ctx, payment());
    expect(down.terminals).toEqual([]);
    expect(reasonsOf(down)).toEqual({ [a]: ['provider_maintenance'], [b]: ['provider_maintenance'], [c]: ['provider_maintenance'] });
    await setStatus('deprecated');
    expect(reasonsOf(await decideRoute(ctx, payment()))[a]).toEqual(['provider_deprecated']);
    await setStatus('available');
    expect((await decideRoute(ctx, payment())).terminals).toEqual([a, b, c]);
  });

  test('a live payment never goes to a sandbox terminal or provider; the merchant must be visible', async () => {
    const live = { ...ctx, livemode: true };
    const decision = await decideRoute(live, payment());
    expect(decision.terminals).toEqual([]);
    expect(reasonsOf(decision)[a]).toEqual(['terminal_mode_mismatch', 'provider_sandbox_only']);
    await expect(decideRoute(ctx, payment({ merchantId: '00000000-0000-4000-8000-000000000000' }))).rejects.toMatchObject({ status: 404 });
    expect(payout).toBeDefined();
  });
});
