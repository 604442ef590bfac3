import { Op, fn, col, type WhereOptions } from 'sequelize';
import type { CallerContext } from '../../domain/context';
import { inTransaction } from '../../domain/context';
import { elevate } from '../../domain/authority';
import { ValidationError } from '../../domain/errors';
import type { Money } from '../../domain/money';
import { scoped, type ListParams, type Page } from '../../db/scoped';
import { sumNumber } from '../../db/model-kit';
import { MERCHANT_ACCOUNTS, type LedgerAccount, type LedgerEntryRow, type LedgerSourceType } from '../../db/models/ledger';
import type { SettlementStatementRow, SettlementStatus, StoredBalances } from '../../db/models/settlements';
import { BALANCE_TYPE, type BalanceType } from '../ledger/balances';
import { filterWhere } from '../present';
import { auditedRecord } from '../audit/changes';
import { refusedMove, statusMachine, transitionIf } from '../status';
import { forEachDue, type DueOptions } from '../due-work';
import type { Runtime } from '../../runtime';
import { publicUrl } from '../../util/public-url';
import { dayEnd, dayStart } from './open';
import { LINE_RULES, TOTAL_NAMES, type LineSourceType, type LineType, type TotalName } from './rules';

export { LINE_RULES, LINE_SOURCE_TYPES, LINE_TYPES, TOTAL_NAMES, type LineSourceType, type LineType, type TotalName } from './rules';

/**
 * Settlement statements: one per merchant, currency, mode and UTC day, opened by the day's first ledger movement
 * (./open.ts, from ledger.post) and finalized once after the day by the `settlements` job. A statement's lines are the
 * ledger's entries of that merchant, currency and day, read when asked for (never a second copy of the money): its
 * totals, opening and closing balances are computed from them while it is open, and stored when it is finalized.
 * Opening + the lines = closing per balance type; a day's closing is the next day's opening (both are sums of the
 * same entries); the statements of a merchant add up to its ledger balances.
 */

/** The accounts a posting's fee is earned on, and the part of the fee breakdown each is. */
const FEE_PART: Partial<Record<LedgerAccount, keyof FeeParts>> = {
  provider_fees: 'providerFee',
  tenant_revenue: 'tenantFee',
  platform_revenue: 'platformFee',
  partner_revenue: 'partnerCommission',
};
/**
 * A withdrawal paid out by hand (no provider integration) books the provider's share of its fee to payout_clearing,
 * beside the amount: that entry is told apart by the description the ledger gives it (ledger.ts feeLines).
 */
const PROVIDER_FEE_TO_CLEARING = /^provider fee of /;

/** The merchant account of a posting its fee is split off from, in this order of preference. */
const FEE_FROM: LedgerAccount[] = ['merchant_available', 'merchant_pending', 'merchant_payable', 'merchant_reserve'];

export interface FeeParts {
  providerFee: Money;
  tenantFee: Money;
  platformFee: Money;
  partnerCommission: Money;
}

export interface SettlementLine {
  id: string;
  statementId: string;
  type: LineType;
  sourceType: LineSourceType;
  sourceId: string;
  amount: Money;
  fee: Money;
  net: Money;
  /** tenant and platform callers only (the schema says so) */
  feeBreakdown: FeeParts | null;
  balanceType: BalanceType;
  /** the ledger's sourceType of the posting the line comes from (a release of a payment: release) */
  postingType: LedgerSourceType;
  description: string | null;
  occurredAt: string;
}

export interface Balances {
  pending: Money;
  available: Money;
  reserved: Money;
  payable: Money;
}

export type Totals = Record<TotalName, Money> & { feeBreakdown: FeeParts };

export interface SettlementStatement {
  id: string;
  tenantId: string;
  merchantId: string;
  livemode: boolean;
  currency: string;
  periodStart: string;
  periodEnd: string;
  status: SettlementStatus;
  openingBalance: Balances;
  closingBalance: Balances;
  totals: Totals;
  lineCount: number;
  finalizedAt: string | null;
  /** the CSV of the statement: an absolute URL of this server */
  downloadUrl: string;
  createdAt: string;
  updatedAt: string;
}

const ACCOUNT_RANK = new Map<LedgerAccount, number>(
  ['merchant_pending', 'merchant_available', 'merchant_reserve', 'merchant_payable'].map((a, i) => [a as LedgerAccount, i]),
);

const money = (currency: string, valueMinor: number): Money => ({ currency, valueMinor });

/** The context statements' entries are read with: the statement's own tenant and mode (fee entries carry no merchant). */
function reader(ctx: CallerContext, st: SettlementStatementRow): CallerContext {
  return elevate(ctx, 'tenant', 'the ledger entries of a settlement statement the caller sees', {
    tenantId: st.tenantId,
    livemode: st.livemode,
  });
}

function sortKey(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The lines of a statement: its merchant's entries of the day in its currency, with each posting's fee split off. */
export async function linesOf(ctx: CallerContext, st: SettlementStatementRow): Promise<SettlementLine[]> {
  const r = reader(ctx, st);
  const { LedgerEntry, LedgerRelease } = r.db.models;
  const entries = await scoped(r, LedgerEntry).findAll({
    merchantId: st.merchantId,
    currency: st.currency,
    account: { [Op.in]: [...MERCHANT_ACCOUNTS] },
    createdAt: { [Op.gte]: st.periodStart, [Op.lt]: st.periodEnd },
  });
  if (!entries.length) return [];
  const postingIds = [...new Set(entries.map((e) => e.postingId))];
  const feeEntries: LedgerEntryRow[] = [];
  for (let i = 0; i < postingIds.length; i += 500) {
    feeEntries.push(
      ...(await scoped(r, LedgerEntry).findAll({
        postingId: { [Op.in]: postingIds.slice(i, i + 500) },
        currency: st.currency,
        account: { [Op.in]: [...Object.keys(FEE_PART), 'payout_clearing'] },
      })),
    );
  }
  const releaseIds = [
    ...new Set(entries.filter((e) => e.sourceType === 'release' || e.sourceType === 'reserve_release').map((e) => e.sourceId)),
  ];
  const releasedPayment = new Map<string, string>();
  for (let i = 0; i < releaseIds.length; i += 500) {
    for (const row of await scoped(r, LedgerRelease).findAll({ id: { [Op.in]: releaseIds.slice(i, i + 500) } }))
      releasedPayment.set(row.id, row.sourceId);
  }
  const feesByPosting = new Map<string, LedgerEntryRow[]>();
  for (const e of feeEntries) {
    if (e.account === 'payout_clearing' && !PROVIDER_FEE_TO_CLEARING.test(e.description ?? '')) continue;
    const list = feesByPosting.get(e.postingId) ?? [];
    list.push(e);
    feesByPosting.set(e.postingId, list);
  }
  const byPosting = new Map<string, LedgerEntryRow[]>();
  for (const e of entries) {
    const list = byPosting.get(e.postingId) ?? [];
    list.push(e);
    byPosting.set(e.postingId, list);
  }
  const postings = [...byPosting.values()].sort(
    (a, b) => new Date(a[0].createdAt).getTime() - new Date(b[0].createdAt).getTime() || sortKey(a[0].postingId, b[0].postingId),
  );
  const c = st.currency;
  const lines: SettlementLine[] = [];
  for (const posted of postings) {
    posted.sort((a, b) => ACCOUNT_RANK.get(a.account)! - ACCOUNT_RANK.get(b.account)! || sortKey(a.id, b.id));
    const fees = (feesByPosting.get(posted[0].postingId) ?? []).sort((a, b) => sortKey(a.id, b.id));
    const parts: FeeParts = { providerFee: money(c, 0), tenantFee: money(c, 0), platformFee: money(c, 0), partnerCommission: money(c, 0) };
    for (const f of fees) parts[FEE_PART[f.account] ?? 'providerFee'].valueMinor += f.amountMinor;
    const feeTotal = fees.reduce((sum, f) => sum + f.amountMinor, 0);
    const feeFrom = FEE_FROM.map((account) => posted.find((e) => e.account === account)).find(Boolean);
    for (const e of posted) {
      const rule = LINE_RULES[e.sourceType] ?? LINE_RULES.adjustment;
      const sourceId =
        e.sourceType === 'release' || e.sourceType === 'reserve_release' ? (releasedPayment.get(e.sourceId) ?? e.sourceId) : e.sourceId;
      const balanceType = BALANCE_TYPE[e.account];
      const occurredAt = new Date(e.createdAt).toISOString();
      const withFee = e === feeFrom && feeTotal !== 0;
      const principal = withFee ? e.amountMinor + feeTotal : e.amountMinor;
      lines.push({
        id: e.id,
        statementId: st.id,
        type: e.account === 'merchant_reserve' && rule.onReserve ? rule.onReserve : rule.line,
        sourceType: rule.source,
        sourceId,
        amount: money(c, principal),
        fee: money(c, 0),
        net: money(c, principal),
        feeBreakdown: null,
        balanceType,
        postingType: e.sourceType,
        description: e.description,
        occurredAt,
      });
      if (withFee) {
        lines.push({
          // the fee's line is named by the first of its entries on a revenue account
          id: fees[0].id,
          statementId: st.id,
          type: rule.fee,
          sourceType: rule.source,
          sourceId,
          amount: money(c, 0),
          fee: money(c, feeTotal),
          net: money(c, -feeTotal),
          feeBreakdown: parts,
          balanceType,
          postingType: e.sourceType,
          description: `fee of ${e.description ?? `${rule.source} ${sourceId}`}`,
          occurredAt,
        });
      }
    }
  }
  return lines;
}

function zeroBalances(currency: string): Balances {
  return { pending: money(currency, 0), available: money(currency, 0), reserved: money(currency, 0), payable: money(currency, 0) };
}

/** The merchant's balances in the statement's currency and mode at `at`: the sum of its entries before it. */
async function balancesAt(ctx: CallerContext, st: SettlementStatementRow, at: Date): Promise<Balances> {
  const r = reader(ctx, st);
  const { LedgerEntry } = r.db.models;
  const rows = (await LedgerEntry.findAll({
    attributes: ['account', [fn('SUM', col('amountMinor')), 'total']],
    where: {
      [Op.and]: [
        { merchantId: st.merchantId, currency: st.currency, account: { [Op.in]: [...MERCHANT_ACCOUNTS] }, createdAt: { [Op.lt]: at } },
        scoped(r, LedgerEntry).scopeWhere(),
      ],
    } as WhereOptions,
    group: ['account'],
    raw: true,
    transaction: r.transaction,
  })) as unknown as { account: string; total: string | number }[];
  const balances = zeroBalances(st.currency);
  for (const row of rows) balances[BALANCE_TYPE[row.account]].valueMinor = sumNumber(row.total);
  return balances;
}

interface Computed {
  openingBalance: Balances;
  closingBalance: Balances;
  totals: Totals;
  lineCount: number;
}

/** Totals and closing balance from the opening balance and the lines. */
export function summarize(currency: string, opening: Balances, lines: SettlementLine[]): Omit<Computed, 'openingBalance'> {
  const t = Object.fromEntries(TOTAL_NAMES.map((name) => [name, money(currency, 0)])) as Record<TotalName, Money>;
  const feeBreakdown: FeeParts = {
    providerFee: money(currency, 0),
    tenantFee: money(currency, 0),
    platformFee: money(currency, 0),
    partnerCommission: money(currency, 0),
  };
  const closing: Balances = {
    pending: { ...opening.pending },
    available: { ...opening.available },
    reserved: { ...opening.reserved },
    payable: { ...opening.payable },
  };
  for (const line of lines) {
    closing[line.balanceType].valueMinor += line.net.valueMinor;
    t.net.valueMinor += line.net.valueMinor;
    if (line.feeBreakdown) {
      t.fees.valueMinor += line.fee.valueMinor;
      for (const k of Object.keys(feeBreakdown) as (keyof FeeParts)[]) feeBreakdown[k].valueMinor += line.feeBreakdown[k].valueMinor;
      continue;
    }
    if (line.type === 'reserve_hold') t.reserveHeld.valueMinor += line.net.valueMinor;
    if (line.type === 'reserve_release' && line.balanceType === 'reserved') t.reserveReleased.valueMinor -= line.net.valueMinor;
    // releases (pending to available, reserve to available) move money between balances: no total but net
    const bucket = (LINE_RULES[line.postingType] ?? LINE_RULES.adjustment).total;
    if (bucket) t[bucket].valueMinor += line.amount.valueMinor;
  }
  return { closingBalance: closing, totals: { ...t, feeBreakdown }, lineCount: lines.length };
}

async function compute(ctx: CallerContext, st: SettlementStatementRow): Promise<Computed & { lines: SettlementLine[] }> {
  const opening = await balancesAt(ctx, st, st.periodStart);
  const lines = await linesOf(ctx, st);
  return { openingBalance: opening, ...summarize(st.currency, opening, lines), lines };
}

function toStored(b: Balances): StoredBalances {
  return {
    pending: b.pending.valueMinor,
    available: b.available.valueMinor,
    reserved: b.reserved.valueMinor,
    payable: b.payable.valueMinor,
  };
}

function fromStored(currency: string, b: StoredBalances): Balances {
  return {
    pending: money(currency, b.pending),
    available: money(currency, b.available),
    reserved: money(currency, b.reserved),
    payable: money(currency, b.payable),
  };
}

function storedTotals(t: Totals): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name of TOTAL_NAMES) out[name] = t[name].valueMinor;
  for (const [k, v] of Object.entries(t.feeBreakdown)) out[`fee.${k}`] = v.valueMinor;
  return out;
}

function totalsFromStored(currency: string, stored: Record<string, number>): Totals {
  const t = Object.fromEntries(TOTAL_NAMES.map((name) => [name, money(currency, stored[name] ?? 0)])) as Record<TotalName, Money>;
  const part = (k: keyof FeeParts) => money(currency, stored[`fee.${k}`] ?? 0);
  return {
    ...t,
    feeBreakdown: {
      providerFee: part('providerFee'),
      tenantFee: part('tenantFee'),
      platformFee: part('platformFee'),
      partnerCommission: part('partnerCommission'),
    },
  };
}

/** The path of a statement's CSV (absolute URLs are made of it with publicUrl). */
export function downloadPath(id: string): string {
  return `/v1/settlements/${id}/download`;
}

function present(ctx: CallerContext, st: SettlementStatementRow, computed: Computed): SettlementStatement {
  return {
    id: st.id,
    tenantId: st.tenantId,
    merchantId: st.merchantId,
    livemode: st.livemode,
    currency: st.currency,
    periodStart: new Date(st.periodStart).toISOString(),
    periodEnd: new Date(st.periodEnd).toISOString(),
    status: st.status,
    openingBalance: computed.openingBalance,
    closingBalance: computed.closingBalance,
    totals: computed.totals,
    lineCount: computed.lineCount,
    finalizedAt: st.finalizedAt ? new Date(st.finalizedAt).toISOString() : null,
    downloadUrl: publicUrl(ctx, downloadPath(st.id)),
    createdAt: new Date(st.createdAt).toISOString(),
    updatedAt: new Date(st.updatedAt).toISOString(),
  };
}

/** A statement as the API shows it: what was stored when finalized, computed from the entries while open. */
async function toStatement(ctx: CallerContext, st: SettlementStatementRow): Promise<SettlementStatement> {
  if (st.status === 'finalized' && st.openingBalance && st.closingBalance && st.totals) {
    return present(ctx, st, {
      openingBalance: fromStored(st.currency, st.openingBalance),
      closingBalance: fromStored(st.currency, st.closingBalance),
      totals: totalsFromStored(st.currency, st.totals),
      lineCount: st.lineCount ?? 0,
    });
  }
  return present(ctx, st, await compute(ctx, st));
}

export interface SettlementFilters {
  merchantId?: string;
  currency?: string;
  status?: SettlementStatus;
  /** statements whose day starts on or after */
  periodFrom?: Date;
  /** statements whose day starts on or before */
  periodTo?: Date;
}

export async function listSettlements(
  ctx: CallerContext,
  filters: SettlementFilters,
  params: ListParams,
): Promise<Page<SettlementStatement>> {
  const where: Record<string, unknown> = filterWhere(filters, ['merchantId', 'currency', 'status']);
  if (filters.periodFrom || filters.periodTo) {
    const range: Record<symbol, Date> = {};
    if (filters.periodFrom) range[Op.gte] = dayStart(filters.periodFrom);
    if (filters.periodTo) range[Op.lte] = dayStart(filters.periodTo);
    where.periodStart = range;
  }
  const page = await scoped(ctx, ctx.db.models.SettlementStatement).list(where, params);
  const data: SettlementStatement[] = [];
  for (const row of page.data) data.push(await toStatement(ctx, row));
  return { data, pagination: page.pagination };
}

export async function getSettlement(ctx: CallerContext, id: string): Promise<SettlementStatement> {
  return toStatement(ctx, await scoped(ctx, ctx.db.models.SettlementStatement).get(id));
}

/** A page of a statement's lines in the order they happened; the cursor is the id of the first line of the page. */
export async function listSettlementLines(ctx: CallerContext, id: string, params: ListParams): Promise<Page<SettlementLine>> {
  const st = await scoped(ctx, ctx.db.models.SettlementStatement).get(id);
  const all = await linesOf(ctx, st);
  if (params.sortOrder === 'desc') all.reverse();
  let start = 0;
  if (params.cursor !== undefined) {
    start = all.findIndex((line) => line.id === params.cursor);
    if (start < 0) throw ValidationError.field('query.cursor', 'is not a cursor of this list', 'INVALID_CURSOR');
  }
  const next = all[start + params.limit];
  const prev = start > 0 ? all[Math.max(0, start - params.limit)] : undefined;
  return {
    data: all.slice(start, start + params.limit),
    pagination: { nextCursor: next?.id ?? null, prevCursor: prev?.id ?? null, hasMore: next !== undefined, totalCount: all.length },
  };
}

/** A statement with all its lines (the CSV download). */
export async function statementWithLines(
  ctx: CallerContext,
  id: string,
): Promise<{ statement: SettlementStatement; lines: SettlementLine[] }> {
  const st = await scoped(ctx, ctx.db.models.SettlementStatement).get(id);
  const computed = await compute(ctx, st);
  const statement = st.status === 'finalized' ? await toStatement(ctx, st) : present(ctx, st, computed);
  return { statement, lines: computed.lines };
}

// ---------------------------------------------------------------------------------------------------------------
// Finalizing

/**
 * How long after its day ends a statement waits before it is finalized: a posting's entries carry the instant its
 * transaction took, so a transaction begun before midnight may commit just after it.
 */
export const FINALIZE_GRACE_MS = 5 * 60_000;

/** Statement data of settlement.finalized: the statement without its lines, with the absolute URL of its CSV. */
export function finalizedEventData(statement: SettlementStatement): Record<string, unknown> {
  return { object: 'settlement', ...statement };
}

/**
 * Finalizes every open statement whose day ended (FINALIZE_GRACE_MS before `now`): its totals, balances and line
 * count computed from the entries and stored, status finalized by a compare-and-set (two processes never finalize it
 * twice), settlement.finalized raised through the outbox in the same transaction. Returns how many it finalized.
 */
export function finalizeDue(source: Runtime | CallerContext, options: DueOptions = {}): Promise<number> {
  return forEachDue<SettlementStatementRow>(
    source,
    {
      model: (ctx) => ctx.db.models.SettlementStatement,
      where: (now) => ({ status: 'open', periodEnd: { [Op.lte]: new Date(now.getTime() - FINALIZE_GRACE_MS) } }),
      order: [
        ['periodEnd', 'ASC'],
        ['id', 'ASC'],
      ],
    },
    finalizeOne,
    options,
  );
}

/** What a statement's audit entries show of it: its status, and once finalized what finalizing stored. */
function auditView(row: SettlementStatementRow, computed?: Computed): Record<string, unknown> {
  if (row.status !== 'finalized' || !computed) return { status: row.status };
  return {
    status: row.status,
    finalizedAt: row.finalizedAt ? new Date(row.finalizedAt).toISOString() : null,
    lineCount: computed.lineCount,
    net: computed.totals.net,
    closingBalance: computed.closingBalance,
  };
}

const STATEMENT = auditedRecord<SettlementStatementRow>({
  model: (ctx) => ctx.db.models.SettlementStatement,
  targetType: 'settlement_statement',
  owner: (row) => ({ tenantId: row.tenantId, merchantId: row.merchantId, livemode: row.livemode }),
  render: (row) => auditView(row),
});

/** A statement is opened in status open (./open.ts) and finalized once, by the settlements job. */
const STATEMENT_STATUS = statusMachine({
  record: STATEMENT,
  moves: { finalize: { from: ['open'], to: 'finalized', action: 'settlement_statement.finalized' } },
  refused: refusedMove('settlement statement'),
});

async function finalizeOne(ctx: CallerContext, row: SettlementStatementRow, now: Date): Promise<boolean> {
  return inTransaction(ctx, async (tctx) => {
    const w = elevate(tctx, 'platform', 'the settlements job finalizes a statement', { livemode: row.livemode });
    const computed = await compute(w, row);
    const finalized = await transitionIf(w, STATEMENT_STATUS, row, 'finalize', {
      changes: {
        openingBalance: toStored(computed.openingBalance),
        closingBalance: toStored(computed.closingBalance),
        totals: storedTotals(computed.totals),
        lineCount: computed.lineCount,
        finalizedAt: now,
      },
      render: (r) => auditView(r, computed),
      event: (moved) => ({
        type: 'settlement.finalized',
        tenantId: row.tenantId,
        merchantId: row.merchantId,
        livemode: row.livemode,
        data: finalizedEventData(present(w, moved, computed)),
      }),
    });
    return finalized !== null;
  });
}

/** The day (00:00 UTC) of an instant, and the next: what a statement's period is. */
export { dayStart, dayEnd };
