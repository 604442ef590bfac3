import type { Sequelize } from 'sequelize';
import { define, pk, stamps, UUID, STRING, INTEGER, BIGINT, type RowModel, type Timestamps } from '../model-kit';

// Limit records, shared by merchants, channels and terminals.

export type LimitEntityType = 'merchant' | 'channel' | 'terminal';

export type LimitPeriodUnit = 'minute' | 'hour' | 'day' | 'week' | 'month';

export type LimitMetric = 'volume' | 'count';

export type LimitTransactionType = 'payment' | 'refund' | 'payout' | 'withdrawal';

export interface LimitRow extends Timestamps {
  id: string;
  tenantId: string;
  entityType: LimitEntityType;
  entityId: string;
  /** the owning merchant for merchant limits (the scope column), null otherwise; not part of the record */
  merchantId: string | null;
  periodValue: number;
  periodUnit: LimitPeriodUnit;
  metric: LimitMetric;
  threshold: number;
  currency: string | null;
  paymentMethod: string | null;
  brand: string | null;
  transactionType: LimitTransactionType;
  status: 'active' | 'disabled';
}

export interface LimitModels {
  Limit: RowModel<LimitRow>;
}

export function defineLimitModels(sequelize: Sequelize): LimitModels {
  return {
    Limit: define<LimitRow>(
      sequelize,
      'Limit',
      'limits',
      {
        id: pk,
        tenantId: UUID,
        entityType: STRING,
        entityId: UUID,
        merchantId: UUID,
        periodValue: INTEGER,
        periodUnit: STRING,
        metric: STRING,
        threshold: BIGINT,
        currency: STRING,
        paymentMethod: STRING,
        brand: STRING,
        transactionType: STRING,
        status: STRING,
        ...stamps,
      },
      // merchantId is set for merchant limits only: a merchant caller sees its own merchant's limits and never a
      // channel's or terminal's (their merchantId is null, so the scope condition excludes them)
      { resource: 'limit', tenant: 'tenantId', merchant: 'merchantId', mode: null },
    ),
  };
}
