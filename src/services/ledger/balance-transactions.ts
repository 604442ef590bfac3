import { Op } from 'sequelize';
import type { CallerContext } from '../../domain/context';
import type { Money } from '../../domain/money';
import { scoped, type ListParams, type Page } from '../../db/scoped';
import { MERCHANT_ACCOUNTS, type LedgerEntryRow, type LedgerSourceType } from '../../db/models/ledger';
import { ACCOUNT_OF, BALANCE_TYPE, type BalanceType } from './balances';

// Balance transactions: the ledger's entries on merchant accounts, one record each.

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
export async function listBalanceTransactions(
  ctx: CallerContext,
  filters: BalanceTransactionFilters,
  params: ListParams,
): Promise<Page<BalanceTransaction>> {
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
