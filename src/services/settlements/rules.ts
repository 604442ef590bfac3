import type { LedgerSourceType } from '../../db/models/ledger';

// The names of settlement statements' lines and totals, and THE table from the ledger's postings to lines: read by the
// statements (./statements.ts) and the API's schemas (src/api/settlements/schemas.ts).

export const LINE_TYPES = [
  'payment',
  'fee',
  'refund',
  'dispute',
  'dispute_fee',
  'dispute_reversal',
  'reserve_hold',
  'reserve_release',
  'withdrawal',
  'withdrawal_fee',
  'payout',
  'payout_reversal',
  'adjustment',
] as const;
export type LineType = (typeof LINE_TYPES)[number];

export const LINE_SOURCE_TYPES = ['payment', 'refund', 'dispute', 'withdrawal', 'payout', 'adjustment'] as const;
export type LineSourceType = (typeof LINE_SOURCE_TYPES)[number];

/** The total of a statement a line's principal adds to (releases move money between balances: none). */
export type TotalBucket = 'gross' | 'refunds' | 'disputes' | 'withdrawals' | 'payouts' | 'adjustments' | null;

interface LineRule {
  /** what the line's sourceId names */
  source: LineSourceType;
  /** the line of a movement of a merchant balance */
  line: LineType;
  /** the line of a movement of the reserve, where it differs */
  onReserve?: LineType;
  /** the line of the posting's fee (what its revenue accounts earned), split off the merchant's movement */
  fee: LineType;
  total: TotalBucket;
}

/**
 * THE mapping from the ledger's postings to statement lines, one row per ledger sourceType (and account where it
 * matters). A release's entries name the release; its line names the payment it releases (ledger_releases).
 */
export const LINE_RULES: Record<LedgerSourceType, LineRule> = {
  payment: { source: 'payment', line: 'payment', onReserve: 'reserve_hold', fee: 'fee', total: 'gross' },
  release: { source: 'payment', line: 'payment', fee: 'fee', total: null },
  reserve_release: { source: 'payment', line: 'reserve_release', fee: 'fee', total: null },
  refund: { source: 'refund', line: 'refund', fee: 'fee', total: 'refunds' },
  // the refund undone: the refund's lines, the other way
  refund_reversal: { source: 'refund', line: 'refund', fee: 'fee', total: 'refunds' },
  dispute: { source: 'dispute', line: 'dispute', fee: 'dispute_fee', total: 'disputes' },
  dispute_reversal: { source: 'dispute', line: 'dispute_reversal', fee: 'dispute_fee', total: 'disputes' },
  withdrawal: { source: 'withdrawal', line: 'withdrawal', fee: 'withdrawal_fee', total: 'withdrawals' },
  payout: { source: 'payout', line: 'payout', fee: 'fee', total: 'payouts' },
  payout_paid: { source: 'payout', line: 'payout', fee: 'fee', total: 'payouts' },
  payout_reversal: { source: 'payout', line: 'payout_reversal', fee: 'fee', total: 'payouts' },
  adjustment: { source: 'adjustment', line: 'adjustment', fee: 'fee', total: 'adjustments' },
};

export const TOTAL_NAMES = [
  'gross',
  'fees',
  'refunds',
  'disputes',
  'withdrawals',
  'payouts',
  'adjustments',
  'reserveHeld',
  'reserveReleased',
  'net',
] as const;
export type TotalName = (typeof TOTAL_NAMES)[number];
