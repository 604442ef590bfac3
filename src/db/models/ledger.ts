import type { Sequelize } from 'sequelize';
import { BOOLEAN, define, pk, stamps, UUID, STRING, TEXT, DATE, BIGINT, type RowModel, type Timestamps } from '../model-kit';

// The double-entry ledger: entries (append-only, never updated or deleted), scheduled releases, and the balance
// thresholds watched by postings (balance.threshold_reached when a merchant's balance crosses one).

/** Per merchant and currency: merchant_*; the others per owner (tenant, platform, partner, provider integration). */
export type LedgerAccount =
  | 'merchant_pending'
  | 'merchant_available'
  | 'merchant_reserve'
  | 'merchant_payable'
  | 'tenant_revenue'
  | 'platform_revenue'
  | 'partner_revenue'
  | 'provider_fees'
  | 'provider_clearing'
  /** money sent out through a payout channel (owner: the withdrawal channel) */
  | 'payout_clearing';

export const MERCHANT_ACCOUNTS: readonly LedgerAccount[] = [
  'merchant_pending',
  'merchant_available',
  'merchant_reserve',
  'merchant_payable',
];

export type LedgerSourceType =
  | 'payment'
  | 'refund'
  /** a succeeded refund the acquirer failed afterwards (Adyen's REFUND_FAILED): the refund's posting reversed */
  | 'refund_reversal'
  | 'release'
  | 'reserve_release'
  | 'withdrawal'
  | 'adjustment'
  /** a dispute opened: merchant_available −(amount + fee) */
  | 'dispute'
  /** a dispute won: merchant_available +amount */
  | 'dispute_reversal'
  /** a payout created: merchant_available → merchant_payable (amount + fee) */
  | 'payout'
  /** a payout paid: merchant_payable out, the fee to its owners */
  | 'payout_paid'
  /** a payout failed or canceled: merchant_payable → merchant_available */
  | 'payout_reversal';

export interface LedgerEntryRow {
  id: string;
  tenantId: string;
  livemode: boolean;
  /** set for merchant accounts (the scope column), null for tenant, platform, partner and provider accounts */
  merchantId: string | null;
  /** the entries of one posting sum to zero per currency */
  postingId: string;
  account: LedgerAccount;
  /** the merchant, tenant, platform, partner or provider integration whose account this is */
  ownerId: string;
  currency: string;
  /** signed, credit positive */
  amountMinor: number;
  sourceType: LedgerSourceType;
  sourceId: string;
  description: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface LedgerReleaseRow {
  id: string;
  tenantId: string;
  livemode: boolean;
  merchantId: string;
  currency: string;
  /** pending: merchant_pending to available after the holding period; reserve: merchant_reserve to available after holdDays */
  kind: 'pending' | 'reserve';
  amountMinor: number;
  releaseAt: Date;
  /** set (compare-and-set from null) by the run that moved it */
  releasedAt: Date | null;
  /** the posting that moved it */
  postingId: string | null;
  sourceType: LedgerSourceType;
  sourceId: string;
  createdAt: Date;
  updatedAt: Date;
}

export type ThresholdBalanceType = 'available' | 'pending';
export type ThresholdDirection = 'above' | 'below';

export interface BalanceThresholdRow extends Timestamps {
  id: string;
  tenantId: string;
  merchantId: string;
  livemode: boolean;
  currency: string;
  balanceType: ThresholdBalanceType;
  direction: ThresholdDirection;
  /** the threshold, in minor units of currency */
  amountMinor: number;
  /** the balance is at or beyond the threshold in its direction: a posting that brings it there while false raises the event */
  crossed: boolean;
  /** when the balance last went beyond it */
  crossedAt: Date | null;
  createdBy: string | null;
}

export interface LedgerModels {
  LedgerEntry: RowModel<LedgerEntryRow>;
  LedgerRelease: RowModel<LedgerReleaseRow>;
  BalanceThreshold: RowModel<BalanceThresholdRow>;
}

export function defineLedgerModels(sequelize: Sequelize): LedgerModels {
  return {
    LedgerEntry: define<LedgerEntryRow>(
      sequelize,
      'LedgerEntry',
      'ledger_entries',
      {
        id: pk,
        tenantId: UUID,
        livemode: BOOLEAN,
        merchantId: UUID,
        postingId: UUID,
        account: STRING,
        ownerId: STRING,
        currency: STRING,
        amountMinor: BIGINT,
        sourceType: STRING,
        sourceId: STRING,
        description: TEXT,
        createdAt: DATE,
        updatedAt: DATE,
      },
      {
        resource: 'balance transaction',
        tenant: 'tenantId',
        merchant: 'merchantId',
        mode: 'livemode',
        softDelete: false,
        writtenBySystem: true,
      },
    ),
    LedgerRelease: define<LedgerReleaseRow>(
      sequelize,
      'LedgerRelease',
      'ledger_releases',
      {
        id: pk,
        tenantId: UUID,
        livemode: BOOLEAN,
        merchantId: UUID,
        currency: STRING,
        kind: STRING,
        amountMinor: BIGINT,
        releaseAt: DATE,
        releasedAt: DATE,
        postingId: UUID,
        sourceType: STRING,
        sourceId: STRING,
        createdAt: DATE,
        updatedAt: DATE,
      },
      {
        resource: 'balance release',
        tenant: 'tenantId',
        merchant: 'merchantId',
        mode: 'livemode',
        softDelete: false,
        writtenBySystem: true,
      },
    ),
    BalanceThreshold: define<BalanceThresholdRow>(
      sequelize,
      'BalanceThreshold',
      'balance_thresholds',
      {
        id: pk,
        tenantId: UUID,
        merchantId: UUID,
        livemode: BOOLEAN,
        currency: STRING,
        balanceType: STRING,
        direction: STRING,
        amountMinor: BIGINT,
        crossed: BOOLEAN,
        crossedAt: DATE,
        createdBy: STRING,
        ...stamps,
      },
      { resource: 'balance threshold', tenant: 'tenantId', merchant: 'merchantId', mode: 'livemode' },
    ),
  };
}
