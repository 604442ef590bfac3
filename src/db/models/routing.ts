import type { Sequelize } from 'sequelize';
import { define, pk, stamps, UUID, STRING, TEXT, JSONT, DATE, INTEGER, BOOLEAN, type RowModel, type Timestamps } from '../model-kit';

// Routing rules (versioned): every version is a row with its own id; the versions of one rule share ruleId (the
// first version's id) and count 1, 2, 3… Tenant configuration without a mode (like terminals).

export type RoutingRuleStatus = 'draft' | 'active' | 'archived';

/** What a payment must match for the rule to apply; a null condition matches anything. */
export interface RoutingConditions {
  /** the payment's currency must be `currency` and its amount (minor units) within min..max (inclusive, each optional) */
  amount: { currency: string; min: number | null; max: number | null } | null;
  currencies: string[] | null;
  paymentMethods: string[] | null;
  brands: string[] | null;
  cardCountries: string[] | null;
  merchantIds: string[] | null;
  channelIds: string[] | null;
}

export type RoutingOutcome =
  { type: 'priority'; terminals: string[] } | { type: 'split'; splits: Array<{ terminalId: string; weight: number }> };

export interface RoutingRuleRow extends Timestamps {
  id: string;
  /** the id of the rule's first version, shared by all its versions */
  ruleId: string;
  version: number;
  tenantId: string;
  name: string;
  description: string | null;
  status: RoutingRuleStatus;
  /** lower is evaluated first across the tenant's active rules */
  priority: number;
  conditions: RoutingConditions;
  outcome: RoutingOutcome;
  createdBy: string | null;
  activatedAt: Date | null;
  archivedAt: Date | null;
}

/**
 * When routing.alert was last raised for a cause of a tenant and mode: the claim that keeps it to
 * once per cause per window across processes (services/routing/alerts.ts). Written by one atomic statement only.
 */
export interface RoutingAlertRow extends Timestamps {
  id: string;
  tenantId: string;
  livemode: boolean;
  /** `no_eligible_terminal:<merchantId>` or `terminal_declines:<terminalId>` */
  cause: string;
  lastRaisedAt: Date;
}

export interface RoutingModels {
  RoutingRule: RowModel<RoutingRuleRow>;
  RoutingAlert: RowModel<RoutingAlertRow>;
}

export function defineRoutingModels(sequelize: Sequelize): RoutingModels {
  return {
    RoutingRule: define<RoutingRuleRow>(
      sequelize,
      'RoutingRule',
      'routing_rules',
      {
        id: pk,
        ruleId: UUID,
        version: INTEGER,
        tenantId: UUID,
        name: STRING,
        description: TEXT,
        status: STRING,
        priority: INTEGER,
        conditions: JSONT,
        outcome: JSONT,
        createdBy: STRING,
        activatedAt: DATE,
        archivedAt: DATE,
        ...stamps,
      },
      { resource: 'routing rule', tenant: 'tenantId', merchant: null, mode: null },
    ),
    RoutingAlert: define<RoutingAlertRow>(
      sequelize,
      'RoutingAlert',
      'routing_alerts',
      { id: pk, tenantId: UUID, livemode: BOOLEAN, cause: STRING, lastRaisedAt: DATE, ...stamps },
      { resource: 'routing alert', tenant: 'tenantId', merchant: null, mode: 'livemode' },
    ),
  };
}
