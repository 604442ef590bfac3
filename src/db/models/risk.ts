import type { Sequelize } from 'sequelize';
import { define, pk, stamps, UUID, STRING, TEXT, JSONT, BOOLEAN, INTEGER, type RowModel, type Timestamps } from '../model-kit';

// Risk: list groups and entries, scoring rules, antifraud plans (tenant configuration per mode) and the tenant's risk
// configuration (score thresholds; one per tenant, both modes).

export const LIST_ENTRY_TYPES = ['card_fingerprint', 'email', 'email_domain', 'ip', 'bin', 'country', 'customer_reference'] as const;
export type ListEntryType = (typeof LIST_ENTRY_TYPES)[number];

export interface ListGroupRow extends Timestamps {
  id: string;
  tenantId: string;
  livemode: boolean;
  name: string;
  description: string | null;
  entryType: ListEntryType;
  createdBy: string | null;
}

export interface ListEntryRow extends Timestamps {
  id: string;
  tenantId: string;
  livemode: boolean;
  listGroupId: string;
  entryType: ListEntryType;
  /** normalized: lower-case email and domain, upper-case country, canonical CIDR for ip */
  value: string;
  /** ip entries: first and last address of the range as 32 hex digits (IPv4 as IPv4-mapped IPv6) */
  rangeStart: string | null;
  rangeEnd: string | null;
  note: string | null;
  createdBy: string | null;
}

export const RISK_SIGNALS = ['allow', 'review', 'challenge', 'block'] as const;
export type RiskSignal = (typeof RISK_SIGNALS)[number];

export const CONDITION_FIELDS = [
  'amount',
  'currency',
  'country',
  'bin',
  'brand',
  'card_fingerprint',
  'email',
  'email_domain',
  'ip',
  'customer_reference',
  'three_ds_result',
  'merchant_id',
] as const;
export type ConditionField = (typeof CONDITION_FIELDS)[number];

export const CONDITION_OPERATORS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'not_in', 'contains', 'in_list'] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

export const AGGREGATION_IDENTIFIERS = ['card_fingerprint', 'email', 'ip', 'customer_reference', 'merchant'] as const;
export type AggregationIdentifier = (typeof AGGREGATION_IDENTIFIERS)[number];

export const AGGREGATION_SCOPES = ['tenant', 'merchant', 'channel', 'terminal'] as const;
export type AggregationScope = (typeof AGGREGATION_SCOPES)[number];

export type RiskPeriodUnit = 'minute' | 'hour' | 'day' | 'week';

export interface RiskAggregation {
  metric: 'count' | 'sum';
  period: { value: number; unit: RiskPeriodUnit };
  /** narrows the payments counted to the payment's own merchant, channel or terminal (routed to); tenant (all of them) by default */
  scope: AggregationScope[];
  /** the payments counted share this identifier with the payment evaluated */
  identifier: AggregationIdentifier;
  /** sum: the currency summed (default the payment's own) */
  currency: string | null;
}

export interface RiskCondition {
  field: ConditionField;
  operator: ConditionOperator;
  /** a number for amount comparisons, a comma-separated list for in/not_in, a list group id for in_list */
  value: string;
  aggregation: RiskAggregation | null;
  /** the aggregation's window written as 10m, 1h, 1d or 7d (kept as given; the period is what counts) */
  statisticWindow: string | null;
}

export interface ScoringRuleRow extends Timestamps {
  id: string;
  tenantId: string;
  livemode: boolean;
  name: string;
  description: string | null;
  isActive: boolean;
  conditions: RiskCondition[];
  signal: RiskSignal;
  scoreImpact: number;
  /** lower is evaluated first */
  priority: number;
  createdBy: string | null;
}

export interface RiskThresholds {
  challenge?: number | null;
  review?: number | null;
  decline?: number | null;
}

export type AntifraudPlanStatus = 'enabled' | 'disabled';

export interface AntifraudPlanRow extends Timestamps {
  id: string;
  tenantId: string;
  livemode: boolean;
  /** null: applies to every merchant of the tenant */
  merchantId: string | null;
  name: string;
  description: string | null;
  status: AntifraudPlanStatus;
  ruleIds: string[];
  thresholds: RiskThresholds | null;
  ownerLevel: 'tenant' | 'platform';
  createdBy: string | null;
}

export interface RiskConfigurationRow extends Timestamps {
  id: string;
  tenantId: string;
  challengeScore: number;
  reviewScore: number | null;
  declineScore: number;
  enforcement: 'enforce' | 'monitor';
  updatedBy: string | null;
}

export interface RiskModels {
  ListGroup: RowModel<ListGroupRow>;
  ListEntry: RowModel<ListEntryRow>;
  ScoringRule: RowModel<ScoringRuleRow>;
  AntifraudPlan: RowModel<AntifraudPlanRow>;
  RiskConfiguration: RowModel<RiskConfigurationRow>;
}

export function defineRiskModels(sequelize: Sequelize): RiskModels {
  return {
    ListGroup: define<ListGroupRow>(
      sequelize,
      'ListGroup',
      'list_groups',
      { id: pk, tenantId: UUID, livemode: BOOLEAN, name: STRING, description: TEXT, entryType: STRING, createdBy: STRING, ...stamps },
      { resource: 'list group', tenant: 'tenantId', merchant: null, mode: 'livemode' },
    ),
    ListEntry: define<ListEntryRow>(
      sequelize,
      'ListEntry',
      'list_entries',
      {
        id: pk,
        tenantId: UUID,
        livemode: BOOLEAN,
        listGroupId: UUID,
        entryType: STRING,
        value: STRING,
        rangeStart: STRING,
        rangeEnd: STRING,
        note: TEXT,
        createdBy: STRING,
        ...stamps,
      },
      { resource: 'list entry', tenant: 'tenantId', merchant: null, mode: 'livemode' },
    ),
    ScoringRule: define<ScoringRuleRow>(
      sequelize,
      'ScoringRule',
      'scoring_rules',
      {
        id: pk,
        tenantId: UUID,
        livemode: BOOLEAN,
        name: STRING,
        description: TEXT,
        isActive: BOOLEAN,
        conditions: JSONT,
        signal: STRING,
        scoreImpact: INTEGER,
        priority: INTEGER,
        createdBy: STRING,
        ...stamps,
      },
      { resource: 'scoring rule', tenant: 'tenantId', merchant: null, mode: 'livemode' },
    ),
    AntifraudPlan: define<AntifraudPlanRow>(
      sequelize,
      'AntifraudPlan',
      'antifraud_plans',
      {
        id: pk,
        tenantId: UUID,
        livemode: BOOLEAN,
        merchantId: UUID,
        name: STRING,
        description: TEXT,
        status: STRING,
        ruleIds: JSONT,
        thresholds: JSONT,
        ownerLevel: STRING,
        createdBy: STRING,
        ...stamps,
      },
      { resource: 'antifraud plan', tenant: 'tenantId', merchant: null, mode: 'livemode', merchantOrTenantWide: 'merchantId' },
    ),
    RiskConfiguration: define<RiskConfigurationRow>(
      sequelize,
      'RiskConfiguration',
      'risk_configurations',
      {
        id: pk,
        tenantId: UUID,
        challengeScore: INTEGER,
        reviewScore: INTEGER,
        declineScore: INTEGER,
        enforcement: STRING,
        updatedBy: STRING,
        ...stamps,
      },
      { resource: 'risk configuration', tenant: 'tenantId', merchant: null, mode: null },
    ),
  };
}
