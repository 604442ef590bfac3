import { Flags } from '@oclif/core';
import { renderRecord, renderTable, type TableOptions } from './output';
import { formatMinor } from '../domain/money';
import type { SettlementLine, SettlementStatement } from '../services/settlements/statements';
import { recordOwnerFlags } from './context';

// The settlements commands' pieces.

export const settlementFlags = {
  tenant: recordOwnerFlags.tenant,
  merchant: recordOwnerFlags.merchant,
};

export const statusFlag = Flags.string({ description: 'Only statements in this status', options: ['open', 'finalized'] });

const day = (st: SettlementStatement) => st.periodStart.slice(0, 10);

export function renderStatements(rows: SettlementStatement[], options: TableOptions = {}): string {
  if (rows.length === 0 && !options.csv && !options.columns) return 'No settlement statements.';
  return renderTable(
    rows,
    [
      { header: 'ID', get: (s) => s.id },
      { header: 'Merchant', get: (s) => s.merchantId },
      { header: 'Day', get: day },
      { header: 'Currency', get: (s) => s.currency },
      { header: 'Status', get: (s) => s.status },
      { header: 'Lines', get: (s) => s.lineCount },
      { header: 'Gross', get: (s) => formatMinor(s.totals.gross) },
      { header: 'Fees', get: (s) => formatMinor(s.totals.fees) },
      { header: 'Net', get: (s) => formatMinor(s.totals.net) },
      { header: 'Closing available', get: (s) => formatMinor(s.closingBalance.available) },
    ],
    options,
  );
}

export function renderStatement(s: SettlementStatement): string {
  const balances = (b: SettlementStatement['openingBalance']) =>
    `pending ${formatMinor(b.pending)}, available ${formatMinor(b.available)}, reserved ${formatMinor(b.reserved)}, payable ${formatMinor(b.payable)}`;
  const t = s.totals;
  return renderRecord({
    id: s.id,
    tenant: s.tenantId,
    merchant: s.merchantId,
    mode: s.livemode ? 'live' : 'test',
    currency: s.currency,
    period: `${s.periodStart} – ${s.periodEnd}`,
    status: s.status,
    finalized: s.finalizedAt ?? '',
    lines: s.lineCount,
    opening: balances(s.openingBalance),
    closing: balances(s.closingBalance),
    gross: formatMinor(t.gross),
    fees: formatMinor(t.fees),
    refunds: formatMinor(t.refunds),
    disputes: formatMinor(t.disputes),
    withdrawals: formatMinor(t.withdrawals),
    payouts: formatMinor(t.payouts),
    adjustments: formatMinor(t.adjustments),
    reserveHeld: formatMinor(t.reserveHeld),
    reserveReleased: formatMinor(t.reserveReleased),
    net: formatMinor(t.net),
    download: s.downloadUrl,
  });
}

export function renderLines(rows: SettlementLine[], options: TableOptions = {}): string {
  if (rows.length === 0 && !options.csv && !options.columns) return 'No lines.';
  return renderTable(
    rows,
    [
      { header: 'ID', get: (l) => l.id },
      { header: 'Occurred', get: (l) => l.occurredAt },
      { header: 'Type', get: (l) => l.type },
      { header: 'Source', get: (l) => `${l.sourceType} ${l.sourceId}` },
      { header: 'Balance', get: (l) => l.balanceType },
      { header: 'Amount', get: (l) => formatMinor(l.amount) },
      { header: 'Fee', get: (l) => formatMinor(l.fee) },
      { header: 'Net', get: (l) => formatMinor(l.net) },
      { header: 'Description', get: (l) => l.description ?? '' },
    ],
    options,
  );
}
