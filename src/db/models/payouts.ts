import type { Sequelize } from 'sequelize';
import type { Money } from '../../domain/money';
import { define, pk, stamps, UUID, STRING, TEXT, JSONT, BOOLEAN, DATE, BIGINT, type RowModel, type Timestamps } from '../model-kit';

// Payouts: a merchant's payout schedule and the payouts its scheduled runs make.

export type PayoutInterval = 'manual' | 'daily' | 'weekly';
export type Weekday = 'monday' | 'tuesday' | 'wednesday' | 'thursday' | 'friday' | 'saturday' | 'sunday';
export type PayoutStatus = 'pending' | 'in_transit' | 'paid' | 'failed' | 'canceled';

export interface PayoutScheduleRow extends Timestamps {
  id: string;
  tenantId: string;
  merchantId: string;
  livemode: boolean;
  interval: PayoutInterval;
  /** weekly only: the day of the week (UTC) a period starts */
  weeklyAnchor: Weekday | null;
  withdrawalMethodId: string | null;
  /** per currency, the least amount paid out: [{ currency, valueMinor }] */
  minimumAmounts: Money[];
  /** when interval or anchor last changed: the first period due is the one starting on that UTC day or later */
  effectiveFrom: Date;
  updatedBy: string | null;
}

export interface PayoutRow extends Timestamps {
  id: string;
  tenantId: string;
  merchantId: string;
  livemode: boolean;
  currency: string;
  amountMinor: number;
  feeMinor: number;
  feeBreakdown: Record<string, unknown> | null;
  status: PayoutStatus;
  withdrawalMethodId: string;
  /** the payout channel the money leaves through (payout_clearing's owner) */
  payoutChannelId: string;
  destinationType: string;
  destinationSealed: string;
  destinationMasked: Record<string, string>;
  /** the schedule period the payout is of: `<interval>:<YYYY-MM-DD of the period's first day>`; unique per merchant, mode and currency */
  periodKey: string;
  /** set while the payout is sent to the provider (the claim of a send); cleared when the provider was not reached */
  submittedAt: Date | null;
  arrivalDate: Date | null;
  failureReason: string | null;
  providerReference: string | null;
  paidAt: Date | null;
  failedAt: Date | null;
  canceledAt: Date | null;
  canceledBy: string | null;
}

export interface PayoutModels {
  PayoutSchedule: RowModel<PayoutScheduleRow>;
  Payout: RowModel<PayoutRow>;
}

export function definePayoutModels(sequelize: Sequelize): PayoutModels {
  return {
    PayoutSchedule: define<PayoutScheduleRow>(
      sequelize,
      'PayoutSchedule',
      'payout_schedules',
      {
        id: pk,
        tenantId: UUID,
        merchantId: UUID,
        livemode: BOOLEAN,
        interval: STRING,
        weeklyAnchor: STRING,
        withdrawalMethodId: UUID,
        minimumAmounts: JSONT,
        effectiveFrom: DATE,
        updatedBy: STRING,
        ...stamps,
      },
      { resource: 'payout schedule', tenant: 'tenantId', merchant: 'merchantId', mode: 'livemode', softDelete: false },
    ),
    Payout: define<PayoutRow>(
      sequelize,
      'Payout',
      'payouts',
      {
        id: pk,
        tenantId: UUID,
        merchantId: UUID,
        livemode: BOOLEAN,
        currency: STRING,
        amountMinor: BIGINT,
        feeMinor: BIGINT,
        feeBreakdown: JSONT,
        status: STRING,
        withdrawalMethodId: UUID,
        payoutChannelId: UUID,
        destinationType: STRING,
        destinationSealed: TEXT,
        destinationMasked: JSONT,
        periodKey: STRING,
        submittedAt: DATE,
        arrivalDate: DATE,
        failureReason: TEXT,
        providerReference: STRING,
        paidAt: DATE,
        failedAt: DATE,
        canceledAt: DATE,
        canceledBy: STRING,
        ...stamps,
      },
      { resource: 'payout', tenant: 'tenantId', merchant: 'merchantId', mode: 'livemode', softDelete: false },
    ),
  };
}
