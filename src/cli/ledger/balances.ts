import { Flags } from '@oclif/core';
import { renderTable, type TableOptions } from '../output';
import { sharedFlags } from '../flags';
import type { Balance } from '../../services/ledger/balances';
import type { BalanceTransaction } from '../../services/ledger/balance-transactions';
import { formatMinor } from '../../domain/money';
import { readAsTenantFlag } from '../context';

// The balances commands' pieces: the ledger's balances and balance transactions of merchants.

export const balanceScopeFlags = {
  tenant: readAsTenantFlag("Only this tenant's merchants (omit to see every tenant, as the platform)"),
  merchant: Flags.string({ description: 'Only this merchant' }),
  currency: Flags.string({ description: 'Only this currency (ISO 4217, e.g. EUR)' }),
  live: sharedFlags.live,
  limit: sharedFlags.limit,
  cursor: sharedFlags.cursor,
};

export function renderBalances(rows: Balance[], options: TableOptions = {}): string {
  if (rows.length === 0 && !options.csv && !options.columns) return 'No balances.';
  return renderTable(
    rows,
    [
      { header: 'Merchant', get: (b) => b.merchantId },
      { header: 'Currency', get: (b) => b.currency },
      { header: 'Pending', get: (b) => formatMinor(b.pending) },
      { header: 'Available', get: (b) => formatMinor(b.available) },
      { header: 'Reserved', get: (b) => formatMinor(b.reserved) },
      { header: 'Payable', get: (b) => formatMinor(b.payable) },
    ],
    options,
  );
}

export function renderBalanceTransactions(rows: BalanceTransaction[], options: TableOptions = {}): string {
  if (rows.length === 0 && !options.csv && !options.columns) return 'No balance transactions.';
  return renderTable(
    rows,
    [
      { header: 'Created', get: (t) => t.createdAt },
      { header: 'Merchant', get: (t) => t.merchantId },
      { header: 'Balance', get: (t) => t.balanceType },
      { header: 'Amount', get: (t) => formatMinor(t.amount) },
      { header: 'Type', get: (t) => t.type },
      { header: 'Source', get: (t) => t.sourceId },
      { header: 'Description', get: (t) => t.description },
    ],
    options,
  );
}
