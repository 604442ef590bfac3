import { Op } from 'sequelize';
import type { CallerContext } from '../domain/context';
import { elevate } from '../domain/authority';
import { inTransaction } from '../domain/context';
import { InternalError, ValidationError } from '../domain/errors';
import { scoped, type ListParams, type Page } from '../db/scoped';
import {
  MERCHANT_ACCOUNTS, type LedgerAccount, type LedgerEntryRow, type LedgerReleaseRow, type LedgerSourceType,
} from '../db/models/ledger';
import type { FeeBreakdown } from './fees/engine';
import { PLATFORM_ID } from './tenants/platform';
import { emitEvent } from './webhooks/events';
import { recordAudit } from './audit/entries';
import { newId } from '../util/ids';
import type { Runtime } from '../runtime';
import { forEachDue, type DueOptions } from './due-work';
import type { Money } from '../domain/money';
import { checkThresholds } from './balances/thresholds';
import { ACCOUNT_OF, BALANCE_TYPE, balancesOf, type Balance, type BalanceType } from './balances/balances';
import { openStatements } from './settlements/open';

/**
 * The double-entry ledger. Every posting is a set of entries (signed, credit positive) that sum to zero per
 * currency, written in the caller's transaction; entries are never updated or deleted. A balance is the sum of
 * its account's entries: nothing is stored besides the entries.
 *
 * Accounts: per merchant and currency merchant_pending, merchant_available, merchant_reserve, merchant_payable
 * (owner: the merchant; entries carry merchantId, the scope column); tenant_revenue (owner tenantId),
 * platform_revenue (owner PLATFORM_ID), partner_revenue (owner partnerId), provider_fees and provider_clearing
 * (owner providerIntegrationId), payout_clearing (owner: the withdrawal channel the money left through).
 */

export interface PostingLine {
  account: LedgerAccount;
  /** the account's owner: merchant, tenant, platform, partner or provider integration id */
  ownerId: string;
  currency: string;
  /** signed integer minor units, credit positive */
  amountMinor: number;
  description?: string | null;
}

export interface Posting {
  tenantId: string;
  livemode: boolean;
  sourceType: LedgerSourceType;
  sourceId: string;
  description?: string | null;
  lines: PostingLine[];
}

export interface PostingResult {
  postingId: string;
  entries: LedgerEntryRow[];
}

const CURRENCY_RE = /^[A-Z]{3}$/;

export function isMerchantAccount(account: LedgerAccount): boolean {
  return MERCHANT_ACCOUNTS.includes(account);
}

/** Checks that a posting balances: ≥ 2 lines, integer amounts, every currency summing to zero. */
export function assertBalanced(lines: PostingLine[]): void {
  if (lines.length < 2) throw new InternalError('a ledger posting needs at least two lines', 'LEDGER_POSTING_INVALID');
  const sums = new Map<string, bigint>();
  for (const line of lines) {
    if (!Number.isSafeInteger(line.amountMinor)) throw new InternalError(`ledger amount ${line.amountMinor} is not an integer in minor units`, 'LEDGER_POSTING_INVALID');
    if (!CURRENCY_RE.test(line.currency)) throw new InternalError(`ledger currency ${line.currency} is invalid`, 'LEDGER_POSTING_INVALID');
    if (!line.ownerId) throw new InternalError(`ledger line on ${line.account} without an owner`, 'LEDGER_POSTING_INVALID');
    sums.set(line.currency, (sums.get(line.currency) ?? 0n) + BigInt(line.amountMinor));
  }
  for (const [currency, sum] of sums) {
    if (sum !== 0n) throw new InternalError(`ledger posting does not balance in ${currency} (off by ${sum})`, 'LEDGER_UNBALANCED');
  }
}

/** The context the ledger writes with: the platform's own authority, in the caller's transaction and mode. */
function writer(ctx: CallerContext, livemode: boolean): CallerContext {
  return elevate(ctx, 'platform', 'the ledger writes with the platform authority', { livemode });
}

/**
 * Writes one balanced posting (in ctx's transaction, or a new one). Zero lines are kept out. Balance thresholds the
 * posting crosses raise their events in the same transaction (services/balances/thresholds.ts).
 */
export async function post(ctx: CallerContext, posting: Posting): Promise<PostingResult> {
  assertBalanced(posting.lines);
  return inTransaction(ctx, async (tctx) => {
    const w = writer(tctx, posting.livemode);
    const table = scoped(w, tctx.db.models.LedgerEntry);
    const postingId = newId();
    // one instant for the entries and the day of the statements they open
    const now = tctx.clock.now();
    const moved = posting.lines.filter((line) => line.amountMinor !== 0);
    // the posting's lines in one statement, written with the transaction's other deferred rows before its COMMIT (a
    // read of the ledger in the transaction writes them first)
    const entries: LedgerEntryRow[] = await table.createManyLater(
      moved.map((line) => ({
        tenantId: posting.tenantId,
        livemode: posting.livemode,
        merchantId: isMerchantAccount(line.account) ? line.ownerId : null,
        postingId,
        account: line.account,
        ownerId: line.ownerId,
        currency: line.currency,
        amountMinor: line.amountMinor,
        sourceType: posting.sourceType,
        sourceId: posting.sourceId,
        description: line.description ?? posting.description ?? null,
        createdAt: now,
      })),
    );
    // the day's settlement statement of each merchant and currency it moves, opened by the first movement
    await openStatements(w, posting, moved, now);
    // balance thresholds crossed by the posting: their state and events in the posting's transaction (no statement
    // while the merchant has no threshold in the currency and mode: the lookup is kept configuration)
    await checkThresholds(w, posting, posting.lines);
    return { postingId, entries };
  });
}

/** Whether a source (a payment's capture, a refund) was already booked: postCapture and postRefund post once. */
async function alreadyPosted(ctx: CallerContext, livemode: boolean, sourceType: LedgerSourceType, sourceId: string): Promise<boolean> {
  const found = await scoped(writer(ctx, livemode), ctx.db.models.LedgerEntry).findOne({ sourceType, sourceId });
  return found !== null;
}

/** The lines booking each fee of a breakdown to its owner (partner commission without a partner goes to the tenant). */
function feeLines(
  fee: Pick<FeeBreakdown, 'currency' | 'providerFee' | 'tenantFee' | 'platformFee' | 'partnerCommission'>,
  /** the provider's share goes to `provider` (default: provider_fees of the provider integration) */
  owners: { tenantId: string; providerIntegrationId: string; partnerId: string | null; provider?: { account: LedgerAccount; ownerId: string } },
  what: string,
): PostingLine[] {
  const currency = fee.currency;
  const provider = owners.provider ?? { account: 'provider_fees', ownerId: owners.providerIntegrationId };
  return [
    { ...provider, currency, amountMinor: fee.providerFee, description: `provider fee of ${what}` },
    { account: 'tenant_revenue', ownerId: owners.tenantId, currency, amountMinor: fee.tenantFee, description: `tenant fee of ${what}` },
    { account: 'platform_revenue', ownerId: PLATFORM_ID, currency, amountMinor: fee.platformFee, description: `platform fee of ${what}` },
    owners.partnerId
      ? { account: 'partner_revenue', ownerId: owners.partnerId, currency, amountMinor: fee.partnerCommission, description: `partner commission of ${what}` }
      : { account: 'tenant_revenue', ownerId: owners.tenantId, currency, amountMinor: fee.partnerCommission, description: `partner commission of ${what} (no partner)` },
  ];
}

function assertBreakdown(b: FeeBreakdown): void {
  const parts = b.providerFee + b.tenantFee + b.platformFee + b.partnerCommission;
  if (parts !== b.merchantFee || b.amount - b.merchantFee !== b.net || b.reserve < 0) {
    throw new InternalError('inconsistent fee breakdown handed to the ledger', 'LEDGER_POSTING_INVALID');
  }
}

/** A fee charged on a movement (refund, dispute, withdrawal, payout): a consistent breakdown in the movement's currency. */
function assertFeeOf(fee: FeeBreakdown | null, currency: string, what: string): void {
  if (!fee) return;
  assertBreakdown(fee);
  if (fee.currency !== currency) throw new InternalError(`${what} fee in another currency than the ${what}`, 'LEDGER_POSTING_INVALID');
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export interface CapturePosting {
  tenantId: string;
  livemode: boolean;
  merchantId: string;
  paymentId: string;
  providerIntegrationId: string;
  partnerId: string | null;
  /** amount = the captured amount */
  breakdown: FeeBreakdown;
  availableImmediately: boolean;
}

/**
 * Books a capture: provider clearing −amount; merchant pending (available when availableImmediately)
 * +(net − reserve); merchant reserve +reserve; each fee to its owner's revenue account. Schedules the release
 * of pending to available after the holding period, and of the reserve after holdDays when autoRelease.
 * Posts once per payment: a second call for the same payment books nothing.
 */
export async function postCapture(ctx: CallerContext, p: CapturePosting): Promise<void> {
  const b = p.breakdown;
  assertBreakdown(b);
  if (b.amount === 0) return;
  await inTransaction(ctx, async (tctx) => {
    if (await alreadyPosted(tctx, p.livemode, 'payment', p.paymentId)) return;
    const currency = b.currency;
    const toMerchant = b.net - b.reserve;
    const merchantAccount: LedgerAccount = p.availableImmediately ? 'merchant_available' : 'merchant_pending';
    const what = `payment ${p.paymentId}`;
    await post(tctx, {
      tenantId: p.tenantId,
      livemode: p.livemode,
      sourceType: 'payment',
      sourceId: p.paymentId,
      lines: [
        { account: 'provider_clearing', ownerId: p.providerIntegrationId, currency, amountMinor: -b.amount, description: `capture of ${what}` },
        { account: merchantAccount, ownerId: p.merchantId, currency, amountMinor: toMerchant, description: `net of ${what}` },
        { account: 'merchant_reserve', ownerId: p.merchantId, currency, amountMinor: b.reserve, description: `rolling reserve of ${what}` },
        ...feeLines(b, p, what),
      ],
    });
    const now = tctx.clock.now();
    const releases = scoped(writer(tctx, p.livemode), tctx.db.models.LedgerRelease);
    const base = { tenantId: p.tenantId, livemode: p.livemode, merchantId: p.merchantId, currency, releasedAt: null, postingId: null, sourceType: 'payment' as const, sourceId: p.paymentId };
    if (!p.availableImmediately && toMerchant !== 0) {
      await releases.createLater({ ...base, kind: 'pending', amountMinor: toMerchant, releaseAt: new Date(now.getTime() + tctx.config.holdingPeriodHours * HOUR_MS) });
    }
    if (b.reserve > 0 && b.reserveFrom?.autoRelease) {
      await releases.createLater({ ...base, kind: 'reserve', amountMinor: b.reserve, releaseAt: new Date(now.getTime() + b.reserveFrom.holdDays * DAY_MS) });
    }
  });
}

export interface RefundPosting {
  tenantId: string;
  livemode: boolean;
  merchantId: string;
  paymentId: string;
  refundId: string;
  providerIntegrationId: string;
  partnerId: string | null;
  amount: Money;
  /** refund fees charged to the merchant, when a schedule has refund rules */
  fee: FeeBreakdown | null;
}

/**
 * Books a succeeded refund: merchant available −(amount + refund fee), provider clearing +amount, each refund
 * fee to its owner. Emits `balance.negative` (tenant level) when the merchant's available balance is left below
 * zero. Posts once per refund.
 */
export async function postRefund(ctx: CallerContext, p: RefundPosting): Promise<void> {
  const currency = p.amount.currency;
  const fee = p.fee;
  assertFeeOf(fee, currency, 'refund');
  const feeTotal = fee?.merchantFee ?? 0;
  if (p.amount.valueMinor === 0 && feeTotal === 0) return;
  await inTransaction(ctx, async (tctx) => {
    if (await alreadyPosted(tctx, p.livemode, 'refund', p.refundId)) return;
    const what = `refund ${p.refundId} of payment ${p.paymentId}`;
    await post(tctx, {
      tenantId: p.tenantId,
      livemode: p.livemode,
      sourceType: 'refund',
      sourceId: p.refundId,
      lines: [
        { account: 'merchant_available', ownerId: p.merchantId, currency, amountMinor: -(p.amount.valueMinor + feeTotal), description: what },
        { account: 'provider_clearing', ownerId: p.providerIntegrationId, currency, amountMinor: p.amount.valueMinor, description: what },
        ...(fee ? feeLines(fee, p, what) : []),
      ],
    });
    await raiseIfNegative(tctx, p, currency, { reason: 'refund', refundId: p.refundId, paymentId: p.paymentId });
  });
}

/**
 * After a posting that debits a merchant's available balance: `balance.negative` (a tenant-level event) when the
 * balance is left below zero, with what debited it.
 */
async function raiseIfNegative(
  ctx: CallerContext, p: { tenantId: string; livemode: boolean; merchantId: string }, currency: string, source: Record<string, unknown>,
): Promise<void> {
  const w = writer(ctx, p.livemode);
  const [balance] = await balancesOf(elevate(w, 'tenant', 'the debited merchant balance', { tenantId: p.tenantId }), { merchantId: p.merchantId, currency });
  if (!balance || balance.available.valueMinor >= 0) return;
  await emitEvent(w, {
    type: 'balance.negative',
    tenantId: p.tenantId,
    merchantId: p.merchantId,
    livemode: p.livemode,
    data: { object: 'balance', merchantId: p.merchantId, currency, available: balance.available, pending: balance.pending, ...source },
  });
}

export interface DisputePosting {
  tenantId: string;
  livemode: boolean;
  merchantId: string;
  paymentId: string;
  disputeId: string;
  /** the acquirer that took the money back (its clearing account gets the amount, as for a refund) */
  providerIntegrationId: string;
  partnerId: string | null;
  amount: Money;
  /** the dispute fee charged to the merchant (fee engine, transactionType dispute) */
  fee: FeeBreakdown | null;
}

/**
 * The postings of a dispute. `open` (sourceType dispute): merchant available −(amount + fee), provider clearing
 * +amount (the acquirer took it back, as for a refund), each fee to its owner's revenue account; raises
 * `balance.negative` when it leaves the available balance below zero. `won` (dispute_reversal): the amount back,
 * provider clearing −amount, merchant available +amount (the fee stays). A lost dispute posts nothing more. Each posts
 * once per dispute.
 */
export async function postDispute(ctx: CallerContext, move: 'open' | 'won', p: DisputePosting): Promise<void> {
  const currency = p.amount.currency;
  const fee = move === 'open' ? p.fee : null;
  assertFeeOf(fee, currency, 'dispute');
  const feeTotal = fee?.merchantFee ?? 0;
  if (p.amount.valueMinor === 0 && feeTotal === 0) return;
  const sourceType: LedgerSourceType = move === 'open' ? 'dispute' : 'dispute_reversal';
  await inTransaction(ctx, async (tctx) => {
    if (await alreadyPosted(tctx, p.livemode, sourceType, p.disputeId)) return;
    const what = `dispute ${p.disputeId} of payment ${p.paymentId}`;
    const sign = move === 'open' ? 1 : -1;
    await post(tctx, {
      tenantId: p.tenantId,
      livemode: p.livemode,
      sourceType,
      sourceId: p.disputeId,
      lines: [
        { account: 'merchant_available', ownerId: p.merchantId, currency, amountMinor: -sign * p.amount.valueMinor - feeTotal, description: move === 'open' ? what : `won ${what}` },
        { account: 'provider_clearing', ownerId: p.providerIntegrationId, currency, amountMinor: sign * p.amount.valueMinor, description: move === 'open' ? what : `won ${what}` },
        ...(fee ? feeLines(fee, p, `the fee of ${what}`) : []),
      ],
    });
    if (move === 'open') await raiseIfNegative(tctx, p, currency, { reason: 'dispute', disputeId: p.disputeId, paymentId: p.paymentId });
  });
}

export interface WithdrawalPosting {
  tenantId: string;
  livemode: boolean;
  merchantId: string;
  withdrawalId: string;
  /** what leaves: the amount paid out */
  amount: Money;
  /** the withdrawal fee charged to the merchant on top of the amount */
  fee: FeeBreakdown | null;
}

/** amount + fee: what a withdrawal holds from the merchant's available balance. */
export function withdrawalTotal(p: Pick<WithdrawalPosting, 'amount' | 'fee'>): number {
  return p.amount.valueMinor + (p.fee?.merchantFee ?? 0);
}

/**
 * The postings of a withdrawal's life. `hold` (requested): available −(amount + fee), payable +(amount + fee).
 * `release` (rejected, canceled or failed): the reverse, so the merchant may try again. `complete` (paid out):
 * payable −(amount + fee), payout_clearing of the channel +amount, each fee to its owner's revenue account.
 * The withdrawal's state machine guarantees each happens once (its moves are compare-and-set).
 */
export async function postWithdrawal(
  ctx: CallerContext,
  move: 'hold' | 'release' | 'complete',
  p: WithdrawalPosting & {
    /** complete: the channel the money left through; its provider integration earns provider fees (paid out through the channel when it has none) */
    channelId?: string;
    providerIntegrationId?: string | null;
    partnerId?: string | null;
  },
): Promise<void> {
  const currency = p.amount.currency;
  assertFeeOf(p.fee, currency, 'withdrawal');
  const total = withdrawalTotal(p);
  const what = `withdrawal ${p.withdrawalId}`;
  let lines: PostingLine[];
  if (move === 'hold' || move === 'release') {
    const sign = move === 'hold' ? 1 : -1;
    lines = [
      { account: 'merchant_available', ownerId: p.merchantId, currency, amountMinor: -sign * total, description: `${move} of ${what}` },
      { account: 'merchant_payable', ownerId: p.merchantId, currency, amountMinor: sign * total, description: `${move} of ${what}` },
    ];
  } else {
    if (!p.channelId) throw new InternalError('a completed withdrawal needs its channel', 'LEDGER_POSTING_INVALID');
    lines = [
      { account: 'merchant_payable', ownerId: p.merchantId, currency, amountMinor: -total, description: `payout of ${what}` },
      { account: 'payout_clearing', ownerId: p.channelId, currency, amountMinor: p.amount.valueMinor, description: `payout of ${what}` },
      // without a provider integration (paid out by hand) the provider's share leaves with the payout, to the bank
      ...(p.fee
        ? feeLines(p.fee, {
            tenantId: p.tenantId, providerIntegrationId: p.providerIntegrationId ?? p.channelId, partnerId: p.partnerId ?? null,
            provider: p.providerIntegrationId ? undefined : { account: 'payout_clearing', ownerId: p.channelId },
          }, what)
        : []),
    ];
  }
  if (total === 0) return;
  await post(ctx, { tenantId: p.tenantId, livemode: p.livemode, sourceType: 'withdrawal', sourceId: p.withdrawalId, lines });
}

export interface PayoutPosting {
  tenantId: string;
  livemode: boolean;
  merchantId: string;
  payoutId: string;
  /** what reaches the destination */
  amount: Money;
  /** the payout fee (fee engine, transactionType payout), held with the amount */
  fee: FeeBreakdown | null;
  /** paid: the payout channel the money left through and its provider integration (earns the provider's share) */
  channelId?: string;
  providerIntegrationId?: string | null;
  partnerId?: string | null;
}

/**
 * The postings of a payout's life, one each per payout (a second call books nothing). `payout` (created): available
 * −(amount + fee), payable +(amount + fee). `payout_paid`: payable −(amount + fee), payout_clearing of the channel
 * +amount, each fee to its owner's revenue account. `payout_reversal` (failed or canceled): payable → available.
 */
export async function postPayout(ctx: CallerContext, sourceType: 'payout' | 'payout_paid' | 'payout_reversal', p: PayoutPosting): Promise<void> {
  const currency = p.amount.currency;
  assertFeeOf(p.fee, currency, 'payout');
  const total = withdrawalTotal(p);
  if (total === 0) return;
  const what = `payout ${p.payoutId}`;
  let lines: PostingLine[];
  if (sourceType === 'payout' || sourceType === 'payout_reversal') {
    const sign = sourceType === 'payout' ? 1 : -1;
    const move = sourceType === 'payout' ? 'hold' : 'reversal';
    lines = [
      { account: 'merchant_available', ownerId: p.merchantId, currency, amountMinor: -sign * total, description: `${move} of ${what}` },
      { account: 'merchant_payable', ownerId: p.merchantId, currency, amountMinor: sign * total, description: `${move} of ${what}` },
    ];
  } else {
    if (!p.channelId) throw new InternalError('a paid payout needs its channel', 'LEDGER_POSTING_INVALID');
    lines = [
      { account: 'merchant_payable', ownerId: p.merchantId, currency, amountMinor: -total, description: `${what} paid` },
      { account: 'payout_clearing', ownerId: p.channelId, currency, amountMinor: p.amount.valueMinor, description: `${what} paid` },
      ...(p.fee
        ? feeLines(p.fee, {
            tenantId: p.tenantId, providerIntegrationId: p.providerIntegrationId ?? p.channelId, partnerId: p.partnerId ?? null,
            provider: p.providerIntegrationId ? undefined : { account: 'payout_clearing', ownerId: p.channelId },
          }, what)
        : []),
    ];
  }
  await inTransaction(ctx, async (tctx) => {
    if (await alreadyPosted(tctx, p.livemode, sourceType, p.payoutId)) return;
    await post(tctx, { tenantId: p.tenantId, livemode: p.livemode, sourceType, sourceId: p.payoutId, lines });
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Balances and balance transactions

// the balances themselves are read in src/services/balances/balances.ts (the thresholds read them in a posting)
export { balancesOf, type Balance, type BalanceType } from './balances/balances';

/** A page of balances: the cursor is `<merchantId>.<currency>` of the first balance of the page. */
export async function listBalances(
  ctx: CallerContext,
  filters: { merchantId?: string; currency?: string },
  params: { cursor?: string; limit: number },
): Promise<Page<Balance>> {
  const all = await balancesOf(ctx, filters);
  let start = 0;
  if (params.cursor !== undefined) {
    start = all.findIndex((b) => `${b.merchantId}.${b.currency}` === params.cursor);
    if (start < 0) throw ValidationError.field('query.cursor', 'is not a cursor of this list', 'INVALID_CURSOR');
  }
  const data = all.slice(start, start + params.limit);
  const next = all[start + params.limit];
  const prev = start > 0 ? all[Math.max(0, start - params.limit)] : undefined;
  return {
    data,
    pagination: {
      nextCursor: next ? `${next.merchantId}.${next.currency}` : null,
      prevCursor: prev ? `${prev.merchantId}.${prev.currency}` : null,
      hasMore: next !== undefined,
      totalCount: all.length,
    },
  };
}

export interface BalanceTransaction {
  id: string;
  merchantId: string;
  currency: string;
  balanceType: BalanceType;
  amount: Money;
  type: LedgerSourceType;
  sourceId: string;
  postingId: string;
  description: string | null;
  createdAt: string;
}

export function presentBalanceTransaction(row: LedgerEntryRow): BalanceTransaction {
  return {
    id: row.id,
    merchantId: row.merchantId!,
    currency: row.currency,
    balanceType: BALANCE_TYPE[row.account],
    amount: { currency: row.currency, valueMinor: row.amountMinor },
    type: row.sourceType,
    sourceId: row.sourceId,
    postingId: row.postingId,
    description: row.description,
    createdAt: new Date(row.createdAt).toISOString(),
  };
}

export interface BalanceTransactionFilters {
  merchantId?: string;
  currency?: string;
  type?: LedgerSourceType;
  sourceId?: string;
  balanceType?: BalanceType;
}

/** The entries of merchant accounts the caller sees, newest first by default. */
export async function listBalanceTransactions(ctx: CallerContext, filters: BalanceTransactionFilters, params: ListParams): Promise<Page<BalanceTransaction>> {
  const where: Record<string | symbol, unknown> = {
    account: filters.balanceType ? ACCOUNT_OF[filters.balanceType] : { [Op.in]: [...MERCHANT_ACCOUNTS] },
  };
  if (filters.merchantId) where.merchantId = filters.merchantId;
  if (filters.currency) where.currency = filters.currency;
  if (filters.type) where.sourceType = filters.type;
  if (filters.sourceId) where.sourceId = filters.sourceId;
  const page = await scoped(ctx, ctx.db.models.LedgerEntry).list(where, params);
  return { data: page.data.map(presentBalanceTransaction), pagination: page.pagination };
}

// ---------------------------------------------------------------------------------------------------------------
// Releases

export type ReleaseOptions = DueOptions;

/**
 * Moves every due release (pending → available after the holding period, reserve → available after holdDays):
 * one posting each, claimed by a compare-and-set on releasedAt in the posting's transaction, so two processes
 * never move the same release twice. Emits `balance.available`. With a Runtime it runs over every tenant in both
 * modes; with a caller context, over what that caller sees. Returns how many releases it moved.
 */
export function releaseDue(source: Runtime | CallerContext, options: ReleaseOptions = {}): Promise<number> {
  return forEachDue<LedgerReleaseRow>(
    source,
    {
      model: (ctx) => ctx.db.models.LedgerRelease,
      where: (now) => ({ releasedAt: null, releaseAt: { [Op.lte]: now } }),
      order: [['releaseAt', 'ASC'], ['id', 'ASC']],
    },
    releaseOne,
    options,
  );
}

/** Moves one release; false when another run moved it first. */
async function releaseOne(ctx: CallerContext, row: LedgerReleaseRow, now: Date): Promise<boolean> {
  return inTransaction(ctx, async (tctx) => {
    const w = writer(tctx, row.livemode);
    const postingId = newId();
    const claimed = await scoped(w, tctx.db.models.LedgerRelease).updateIf(row, { releasedAt: null }, { releasedAt: now, postingId });
    if (!claimed) return false;
    const amount = row.amountMinor;
    const from: LedgerAccount = row.kind === 'reserve' ? 'merchant_reserve' : 'merchant_pending';
    const sourceType: LedgerSourceType = row.kind === 'reserve' ? 'reserve_release' : 'release';
    const description = row.kind === 'reserve' ? `reserve release of payment ${row.sourceId}` : `release of payment ${row.sourceId}`;
    await post(w, {
      tenantId: row.tenantId,
      livemode: row.livemode,
      sourceType,
      sourceId: row.id,
      description,
      lines: [
        { account: from, ownerId: row.merchantId, currency: row.currency, amountMinor: -amount },
        { account: 'merchant_available', ownerId: row.merchantId, currency: row.currency, amountMinor: amount },
      ],
    });
    await recordAudit(w, {
      action: row.kind === 'reserve' ? 'balance.reserve_released' : 'balance.released',
      targetType: 'balance_release',
      targetId: row.id,
      tenantId: row.tenantId,
      merchantId: row.merchantId,
      livemode: row.livemode,
      before: { releasedAt: null },
      after: { releasedAt: now.toISOString(), amount: { currency: row.currency, valueMinor: amount }, kind: row.kind },
    });
    if (amount > 0) {
      const [balance] = await balancesOf(elevate(w, 'tenant', 'the released merchant balance', { tenantId: row.tenantId }), { merchantId: row.merchantId, currency: row.currency });
      await emitEvent(w, {
        type: 'balance.available',
        tenantId: row.tenantId,
        merchantId: row.merchantId,
        livemode: row.livemode,
        data: {
          object: 'balance',
          entityType: 'merchant',
          entityId: row.merchantId,
          merchantId: row.merchantId,
          currency: row.currency,
          amount: { currency: row.currency, valueMinor: amount },
          kind: row.kind,
          available: balance?.available ?? { currency: row.currency, valueMinor: 0 },
          pending: balance?.pending ?? { currency: row.currency, valueMinor: 0 },
          sourceType: row.sourceType,
          sourceId: row.sourceId,
        },
      });
    }
    return true;
  });
}
