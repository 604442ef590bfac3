import type { CallerContext } from '../../domain/context';
import { elevate } from '../../domain/authority';
import { inTransaction } from '../../domain/context';
import { InternalError } from '../../domain/errors';
import { scoped } from '../../db/scoped';
import { MERCHANT_ACCOUNTS, type LedgerAccount, type LedgerEntryRow, type LedgerSourceType } from '../../db/models/ledger';
import { newId } from '../../util/ids';
import { checkThresholds } from './thresholds';
import { openStatements } from '../settlements/open';

/**
 * The double-entry ledger. Every posting is a set of entries (signed, credit positive) that sum to zero per
 * currency, written in the caller's transaction; entries are never updated or deleted. A balance is the sum of
 * its account's entries: nothing is stored besides the entries (balances.ts reads them).
 *
 * Accounts: per merchant and currency merchant_pending, merchant_available, merchant_reserve, merchant_payable
 * (owner: the merchant; entries carry merchantId, the scope column); tenant_revenue (owner tenantId),
 * platform_revenue (owner PLATFORM_ID), partner_revenue (owner partnerId), provider_fees and provider_clearing
 * (owner providerIntegrationId), payout_clearing (owner: the withdrawal channel the money left through).
 *
 * What each movement books is in postings/ (capture, refund, dispute, withdrawal, payout); the releases of pending
 * funds and reserves in releases.ts.
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
    if (!Number.isSafeInteger(line.amountMinor))
      throw new InternalError(`ledger amount ${line.amountMinor} is not an integer in minor units`, 'LEDGER_POSTING_INVALID');
    if (!CURRENCY_RE.test(line.currency)) throw new InternalError(`ledger currency ${line.currency} is invalid`, 'LEDGER_POSTING_INVALID');
    if (!line.ownerId) throw new InternalError(`ledger line on ${line.account} without an owner`, 'LEDGER_POSTING_INVALID');
    sums.set(line.currency, (sums.get(line.currency) ?? 0n) + BigInt(line.amountMinor));
  }
  for (const [currency, sum] of sums) {
    if (sum !== 0n) throw new InternalError(`ledger posting does not balance in ${currency} (off by ${sum})`, 'LEDGER_UNBALANCED');
  }
}

/** The context the ledger writes with: the platform's own authority, in the caller's transaction and mode. */
export function ledgerWriter(ctx: CallerContext, livemode: boolean): CallerContext {
  return elevate(ctx, 'platform', 'the ledger writes with the platform authority', { livemode });
}

/**
 * Writes one balanced posting (in ctx's transaction, or a new one). Zero lines are kept out. Balance thresholds the
 * posting crosses raise their events in the same transaction (thresholds.ts).
 */
export async function post(ctx: CallerContext, posting: Posting): Promise<PostingResult> {
  assertBalanced(posting.lines);
  return inTransaction(ctx, async (tctx) => {
    const w = ledgerWriter(tctx, posting.livemode);
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
