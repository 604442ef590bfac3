import type { Sequelize } from 'sequelize';
import { BOOLEAN, define, pk, stamps, UUID, STRING, TEXT, JSONT, DATE, type RowModel, type Timestamps } from '../model-kit';
import type { Money } from '../../domain/money';

// Fee schedules and fee assignments.

/** `dispute`: the dispute fee (operations.md); `chargeback` is the older name, kept for schedules that use it */
export type FeeTransactionType = 'payment' | 'refund' | 'payout' | 'withdrawal' | 'dispute' | 'chargeback';
export type FeeTransactionOutcome = 'successful' | 'failed' | 'any';
export type FeeMethod = 'fixed' | 'percentage' | 'fixed_plus_percentage';
/** who earns the fee of a rule: the merchant is charged the sum of every party's fees */
export type FeeParty = 'provider' | 'tenant' | 'platform' | 'partner';
export type RoundingMode = 'floor' | 'ceil' | 'half_up' | 'half_even';

export interface FeeRule {
  transactionType: FeeTransactionType;
  transactionOutcome: FeeTransactionOutcome;
  method: FeeMethod;
  party: FeeParty;
  currency: string;
  fixedAmount: Money | null;
  /** millionths of the amount: 10000 is 1% */
  percentageRate: number | null;
  minAmount: Money | null;
  maxAmount: Money | null;
}

export interface RollingReserve {
  /** millionths of the net amount held: 10000 is 1% */
  rate: number;
  holdDays: number;
  autoRelease: boolean;
  roundingMode: RoundingMode;
}

export interface FeeScheduleRow extends Timestamps {
  id: string;
  /** null for a platform schedule (created by the platform without a tenant) */
  tenantId: string | null;
  createdBy: string | null;
  name: string;
  description: string | null;
  status: 'draft' | 'active' | 'archived';
  rules: FeeRule[];
  rollingReserve: RollingReserve;
  /** the schedule states its reserve rate (even 0): it then decides the reserve at its level instead of inheriting */
  reserveSpecified: boolean;
  activatedAt: Date | null;
  archivedAt: Date | null;
}

export type FeePaymentMethod =
  'card' | 'bank_transfer' | 'wallet' | 'bnpl' | 'cash' | 'qr' | 'local' | 'google_pay' | 'agent_token' | 'hosted_page';

export type FeeLevel = 'terminal' | 'platform' | 'merchant' | 'tenant' | 'channel' | 'partner';

export interface FeeAssignmentRow extends Timestamps {
  id: string;
  /** null for platform-level assignments */
  tenantId: string | null;
  /** the merchant of a merchant-level assignment (the scope column), null for every other level */
  merchantId: string | null;
  targetEntityId: string;
  feeScheduleId: string;
  createdBy: string | null;
  level: FeeLevel;
  currency: string;
  paymentMethod: FeePaymentMethod;
  effectiveFrom: Date;
  effectiveTo: Date | null;
}

export interface FeeModels {
  FeeSchedule: RowModel<FeeScheduleRow>;
  FeeAssignment: RowModel<FeeAssignmentRow>;
}

export function defineFeeModels(sequelize: Sequelize): FeeModels {
  return {
    FeeSchedule: define<FeeScheduleRow>(
      sequelize,
      'FeeSchedule',
      'fee_schedules',
      {
        id: pk,
        tenantId: UUID,
        createdBy: STRING,
        name: STRING,
        description: TEXT,
        status: STRING,
        rules: JSONT,
        rollingReserve: JSONT,
        reserveSpecified: BOOLEAN,
        activatedAt: DATE,
        archivedAt: DATE,
        ...stamps,
      },
      // a platform schedule (tenantId null) is visible to platform callers only
      { resource: 'fee schedule', tenant: 'tenantId', merchant: null, mode: null, tenantNullable: true },
    ),
    FeeAssignment: define<FeeAssignmentRow>(
      sequelize,
      'FeeAssignment',
      'fee_assignments',
      {
        id: pk,
        tenantId: UUID,
        merchantId: UUID,
        targetEntityId: UUID,
        feeScheduleId: UUID,
        createdBy: STRING,
        level: STRING,
        currency: STRING,
        paymentMethod: STRING,
        effectiveFrom: DATE,
        effectiveTo: DATE,
        ...stamps,
      },
      // merchantId is set for merchant-level assignments only: an operator limited to some merchants sees those
      { resource: 'fee assignment', tenant: 'tenantId', merchant: 'merchantId', mode: null, tenantNullable: true },
    ),
  };
}
