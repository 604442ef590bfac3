import { Flags } from '@oclif/core';
import { renderRecord, renderTable, type TableOptions } from '../output';
import { formatMinor } from '../../domain/money';
import type { BalanceThreshold } from '../../services/ledger/thresholds';

// The balances thresholds commands' pieces.

export const balanceTypeFlag = Flags.string({ description: 'The balance watched', options: ['available', 'pending'] });
export const directionFlag = Flags.string({
  description: 'above: reached at or over the amount; below: at or under it',
  options: ['above', 'below'],
});

/** What a person knows a threshold by: "available above 1,000.00 EUR". */
export function thresholdName(t: BalanceThreshold): string {
  return `${t.balanceType} ${t.direction} ${formatMinor(t.amount)}`;
}

export function renderThresholds(rows: BalanceThreshold[], options: TableOptions = {}): string {
  if (rows.length === 0 && !options.csv && !options.columns) return 'No balance thresholds.';
  return renderTable(
    rows,
    [
      { header: 'ID', get: (t) => t.id },
      { header: 'Merchant', get: (t) => t.merchantId },
      { header: 'Currency', get: (t) => t.currency },
      { header: 'Balance', get: (t) => t.balanceType },
      { header: 'Direction', get: (t) => t.direction },
      { header: 'Amount', get: (t) => formatMinor(t.amount) },
      { header: 'Crossed', get: (t) => (t.crossed ? 'yes' : 'no') },
      { header: 'Last reached', get: (t) => t.crossedAt ?? '' },
    ],
    options,
  );
}

export function renderThreshold(t: BalanceThreshold): string {
  return renderRecord({
    id: t.id,
    tenant: t.tenantId,
    merchant: t.merchantId,
    mode: t.livemode ? 'live' : 'test',
    currency: t.currency,
    balance: t.balanceType,
    direction: t.direction,
    amount: formatMinor(t.amount),
    crossed: t.crossed ? 'yes' : 'no',
    lastReached: t.crossedAt ?? '',
    created: t.createdAt,
    deleted: t.deletedAt ?? '',
  });
}
