import type { Sequelize } from 'sequelize';
import { BOOLEAN, define, pk, UUID, STRING, TEXT, DATE, BIGINT, type RowModel } from '../model-kit';

// The double-entry ledger: entries (append-only, never updated or deleted) and scheduled releases.

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

export const MERCHANT_ACCOUNTS: readonly LedgerAccount[] = ['merchant_pending', 'merchant_available', 'merchant_reserve', 'merchant_payable'];

export type LedgerSourceType =
  | 'payment' | 'refund' | 'release' | 'reserve_release' | 'withdrawal' | 'adjustment'
  /** payouts: created (available → payable), paid (payable → out, fee to revenue), failed or canceled (payable → available) */
  | 'payout' | 'payout_paid' | 'payout_reversal';

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

export interface LedgerModels {
  LedgerEntry: RowModel<LedgerEntryRow>;
  LedgerRelease: RowModel<LedgerReleaseRow>;
}

export function defineLedgerModels(sequelize: Sequelize): LedgerModels {
  return {
    LedgerEntry: define<LedgerEntryRow>(
      sequelize,
      'LedgerEntry',
      'ledger_entries',
      {
        id: pk, tenantId: UUID, livemode: BOOLEAN, merchantId: UUID, postingId: UUID, account: STRING, ownerId: STRING, currency: STRING,
        amountMinor: BIGINT, sourceType: STRING, sourceId: STRING, description: TEXT, createdAt: DATE, updatedAt: DATE,
      },
      { resource: 'balance transaction', tenant: 'tenantId', merchant: 'merchantId', mode: 'livemode', softDelete: false, writtenBySystem: true },
    ),
    LedgerRelease: define<LedgerReleaseRow>(
      sequelize,
      'LedgerRelease',
      'ledger_releases',
      {
        id: pk, tenantId: UUID, livemode: BOOLEAN, merchantId: UUID, currency: STRING, kind: STRING, amountMinor: BIGINT,
        releaseAt: DATE, releasedAt: DATE, postingId: UUID, sourceType: STRING, sourceId: STRING, createdAt: DATE, updatedAt: DATE,
      },
      { resource: 'balance release', tenant: 'tenantId', merchant: 'merchantId', mode: 'livemode', softDelete: false, writtenBySystem: true },
    ),
  };
}
