import { Flags } from '@oclif/core';
import { renderRecord, renderTable, type TableOptions } from './output';
import { recordOwnerFlags } from './context';
import { formatMinor } from '../domain/money';
import type { Payout } from '../services/payouts/payouts';
import type { PayoutSchedule } from '../services/payouts/schedule';
import { PAYOUT_INTERVALS, PAYOUT_STATUSES, WEEKLY_ANCHORS } from '../api/payouts/schemas';

// The payouts and payout-schedule commands' pieces.

export const payoutStatusFlag = Flags.string({ description: 'Only payouts in this status', options: [...PAYOUT_STATUSES] });
export const intervalFlag = Flags.string({ description: 'manual (no payouts), daily or weekly', options: [...PAYOUT_INTERVALS] });
export const weeklyAnchorFlag = Flags.string({
  description: 'Weekly only: the weekday (UTC) a period starts',
  options: [...WEEKLY_ANCHORS],
});

export const payoutOwnerFlags = {
  tenant: Flags.string({ description: "The payout's tenant (404 when the payout is another tenant's)" }),
  merchant: recordOwnerFlags.merchant,
};

function destination(p: Payout): string {
  return `${p.destination.type} ${Object.values(p.destination.details).join(' ')}`.trim();
}

export function renderPayouts(rows: Payout[], options: TableOptions = {}): string {
  if (rows.length === 0 && !options.csv && !options.columns) return 'No payouts.';
  return renderTable(
    rows,
    [
      { header: 'ID', get: (p) => p.id },
      { header: 'Merchant', get: (p) => p.merchantId },
      { header: 'Amount', get: (p) => formatMinor(p.amount) },
      { header: 'Fee', get: (p) => formatMinor(p.fee) },
      { header: 'Status', get: (p) => p.status },
      { header: 'Period', get: (p) => p.period },
      { header: 'Destination', get: destination },
      { header: 'Created', get: (p) => p.createdAt },
    ],
    options,
  );
}

export function renderPayout(p: Payout): string {
  return renderRecord({
    id: p.id,
    tenant: p.tenantId,
    merchant: p.merchantId,
    mode: p.livemode ? 'live' : 'test',
    amount: formatMinor(p.amount),
    fee: formatMinor(p.fee),
    status: p.status,
    period: p.period,
    destination: destination(p),
    withdrawalMethod: p.withdrawalMethodId,
    arrivalDate: p.arrivalDate ?? '',
    providerReference: p.providerReference ?? '',
    failureReason: p.failureReason ?? '',
    created: p.createdAt,
    paid: p.paidAt ?? '',
    failed: p.failedAt ?? '',
    canceled: p.canceledAt ?? '',
  });
}

export function renderPayoutSchedule(s: PayoutSchedule): string {
  return renderRecord({
    merchant: s.merchantId,
    mode: s.livemode ? 'live' : 'test',
    interval: s.interval,
    weeklyAnchor: s.weeklyAnchor ?? '',
    withdrawalMethod: s.withdrawalMethodId ?? '',
    minimums: s.minimumAmounts.map((m) => formatMinor(m)).join(', '),
    effectiveFrom: s.effectiveFrom ?? '',
    updated: s.updatedAt ?? 'never (the default: manual)',
  });
}
