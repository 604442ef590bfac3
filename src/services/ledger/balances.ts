import { Op, fn, col } from 'sequelize';
import type { CallerContext } from '../../domain/context';
import type { Money } from '../../domain/money';
import { ValidationError } from '../../domain/errors';
import { scoped, type Page } from '../../db/scoped';
import { sumNumber } from '../../db/model-kit';
import { MERCHANT_ACCOUNTS, type LedgerAccount } from '../../db/models/ledger';

// A merchant's balances, derived from the ledger's entries (post.ts writes them): read by the API, the withdrawals,
// the payouts, and the balance thresholds inside a posting.

export interface Balance {
  merchantId: string;
  currency: string;
  pending: Money;
  available: Money;
  reserved: Money;
  payable: Money;
}

export type BalanceType = 'pending' | 'available' | 'reserved' | 'payable';

export const BALANCE_TYPE: Record<string, BalanceType> = {
  merchant_pending: 'pending',
  merchant_available: 'available',
  merchant_reserve: 'reserved',
  merchant_payable: 'payable',
};
export const ACCOUNT_OF: Record<BalanceType, LedgerAccount> = {
  pending: 'merchant_pending',
  available: 'merchant_available',
  reserved: 'merchant_reserve',
  payable: 'merchant_payable',
};

/**
 * The merchant balances the caller sees, per merchant and currency, summed from the entries (never stored),
 * ordered by merchantId then currency. Only merchants and currencies with entries appear.
 */
export async function balancesOf(ctx: CallerContext, filters: { merchantId?: string; currency?: string } = {}): Promise<Balance[]> {
  const { LedgerEntry } = ctx.db.models;
  const where: Record<string | symbol, unknown> = { account: { [Op.in]: [...MERCHANT_ACCOUNTS] } };
  if (filters.merchantId) where.merchantId = filters.merchantId;
  if (filters.currency) where.currency = filters.currency;
  const rows = (await LedgerEntry.findAll({
    attributes: ['merchantId', 'currency', 'account', [fn('SUM', col('amountMinor')), 'total']],
    where: { [Op.and]: [where, scoped(ctx, LedgerEntry).scopeWhere()] },
    group: ['merchantId', 'currency', 'account'],
    raw: true,
    transaction: ctx.transaction,
  })) as unknown as { merchantId: string; currency: string; account: string; total: string | number }[];
  const byKey = new Map<string, Balance>();
  for (const row of rows) {
    const key = `${row.merchantId}.${row.currency}`;
    let balance = byKey.get(key);
    if (!balance) {
      const zero = () => ({ currency: row.currency, valueMinor: 0 });
      balance = {
        merchantId: row.merchantId,
        currency: row.currency,
        pending: zero(),
        available: zero(),
        reserved: zero(),
        payable: zero(),
      };
      byKey.set(key, balance);
    }
    balance[BALANCE_TYPE[row.account]].valueMinor = sumNumber(row.total);
  }
  return [...byKey.values()].sort((a, b) =>
    a.merchantId === b.merchantId ? cmp(a.currency, b.currency) : cmp(a.merchantId, b.merchantId),
  );
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

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
