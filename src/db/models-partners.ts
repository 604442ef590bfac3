import type { Sequelize } from 'sequelize';
import { DataTypes } from 'sequelize';
import { define, pk, stamps, UUID, STRING, TEXT, JSONT, DATE, INTEGER, type RowModel, type Timestamps } from './model-kit';

// Partners, partner assignments, channels and limit records (shared by merchants, channels and later terminals).

export interface PartnerRow extends Timestamps {
  id: string;
  tenantId: string;
  name: string;
  contactEmail: string | null;
  status: 'active' | 'suspended' | 'disabled';
  metadata: Record<string, string>;
}

export interface PartnerAssignmentRow extends Timestamps {
  id: string;
  tenantId: string;
  partnerId: string;
  merchantId: string;
  /** commission as a rate in millionths of the volume: 10000 is 1% */
  commissionRate: number;
  commissionFixed: { currency: string; valueMinor: number } | null;
  status: 'active' | 'suspended';
  effectiveFrom: Date;
  effectiveTo: Date | null;
}

export interface ChannelRow extends Timestamps {
  id: string;
  tenantId: string;
  name: string;
  direction: 'payin' | 'payout';
  currencies: string[];
  providerIntegrationId: string | null;
  status: 'active' | 'disabled';
  description: string | null;
}

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
  /** BIGINT: Postgres hands it back as a string */
  threshold: number | string;
  currency: string | null;
  paymentMethod: string | null;
  brand: string | null;
  transactionType: LimitTransactionType;
  status: 'active' | 'disabled';
}

export interface PartnerModels {
  Partner: RowModel<PartnerRow>;
  PartnerAssignment: RowModel<PartnerAssignmentRow>;
  Channel: RowModel<ChannelRow>;
  Limit: RowModel<LimitRow>;
}

export function definePartnerModels(sequelize: Sequelize): PartnerModels {
  return {
    Partner: define<PartnerRow>(
      sequelize,
      'Partner',
      'partners',
      { id: pk, tenantId: UUID, name: STRING, contactEmail: STRING, status: STRING, metadata: JSONT, ...stamps },
      { resource: 'partner', tenant: 'tenantId', merchant: null, mode: null },
    ),
    PartnerAssignment: define<PartnerAssignmentRow>(
      sequelize,
      'PartnerAssignment',
      'partner_assignments',
      {
        id: pk, tenantId: UUID, partnerId: UUID, merchantId: UUID, commissionRate: INTEGER, commissionFixed: JSONT,
        status: STRING, effectiveFrom: DATE, effectiveTo: DATE, ...stamps,
      },
      // an assignment belongs to its merchant: a merchant caller could only ever see its own
      { resource: 'partner assignment', tenant: 'tenantId', merchant: 'merchantId', mode: null },
    ),
    Channel: define<ChannelRow>(
      sequelize,
      'Channel',
      'channels',
      {
        id: pk, tenantId: UUID, name: STRING, direction: STRING, currencies: JSONT, providerIntegrationId: UUID,
        status: STRING, description: TEXT, ...stamps,
      },
      { resource: 'channel', tenant: 'tenantId', merchant: null, mode: null },
    ),
    Limit: define<LimitRow>(
      sequelize,
      'Limit',
      'limits',
      {
        id: pk, tenantId: UUID, entityType: STRING, entityId: UUID, merchantId: UUID, periodValue: INTEGER,
        periodUnit: STRING, metric: STRING, threshold: DataTypes.BIGINT, currency: STRING, paymentMethod: STRING,
        brand: STRING, transactionType: STRING, status: STRING, ...stamps,
      },
      // merchantId is set for merchant limits only: a merchant caller sees its own merchant's limits and never a
      // channel's or terminal's (their merchantId is null, so the scope condition excludes them)
      { resource: 'limit', tenant: 'tenantId', merchant: 'merchantId', mode: null },
    ),
  };
}
