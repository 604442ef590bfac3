import type { Sequelize } from 'sequelize';
import { define, pk, stamps, UUID, STRING, BOOLEAN, BIGINT, DATE, type RowModel, type Timestamps } from '../model-kit';

// Balance thresholds: balance.threshold_reached when a merchant's balance crosses one.

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

export interface BalanceThresholdModels {
  BalanceThreshold: RowModel<BalanceThresholdRow>;
}

export function defineBalanceThresholdModels(sequelize: Sequelize): BalanceThresholdModels {
  return {
    BalanceThreshold: define<BalanceThresholdRow>(
      sequelize,
      'BalanceThreshold',
      'balance_thresholds',
      {
        id: pk, tenantId: UUID, merchantId: UUID, livemode: BOOLEAN, currency: STRING, balanceType: STRING, direction: STRING,
        amountMinor: BIGINT, crossed: BOOLEAN, crossedAt: DATE, createdBy: STRING, ...stamps,
      },
      { resource: 'balance threshold', tenant: 'tenantId', merchant: 'merchantId', mode: 'livemode' },
    ),
  };
}
