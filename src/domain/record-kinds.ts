import type { Models } from '../db/models';
import { levelOfCode, type Level, type LevelCode } from './level';

/**
 * Every kind of record, once, by the name the API and the audit trail give it (an audit entry's targetType, the kind
 * whose schema answers for it in src/api/views.ts), with its other names and facts:
 * - `model`: its table's model (null: a catalog defined in code, which no caller owns);
 * - `read`: the operations that read it (their operationId, levels and permission, as src/api declares them): a
 *   caller that may call one of them may see the record's audit entries (src/services/audit/targets.ts);
 * - `reference`: how a request's id field declares it names one (refersTo, x-payplane-refers-to: src/api/references.ts,
 *   looked up by src/services/references.ts);
 * - `command`: the kind a command names by id (ownedArg, recordArg: src/cli/context.ts) and whether --merchant applies
 *   (a merchant can own one: the table has a merchant column, or a company's merchants);
 * - `eventGroup`: the group of fixtures/events.json whose events carry the record (src/services/webhooks/catalog.ts).
 */

/** One operation that reads records of a kind. */
export interface RecordReader {
  /** operationId of the reading operation in src/api (test/security/audit-visibility.test.ts holds the two together) */
  operation: string;
  levels: readonly Level[];
  permission: string;
}

interface RecordKindSpec {
  model: keyof Models | null;
  read: readonly RecordReader[];
  reference?: string;
  command?: { kind: string; merchant: boolean };
  eventGroup?: string;
}

/** A reading operation: `levels` as operations.md writes them ('MTP', 'TP', …). */
function read(operation: string, levels: string, permission: string): RecordReader {
  return { operation, levels: ([...levels] as LevelCode[]).map(levelOfCode), permission };
}

export const RECORD_KINDS = {
  antifraud_plan: {
    model: 'AntifraudPlan',
    read: [read('getAntifraudPlan', 'TP', 'risk:antifraud:view')],
    reference: 'antifraudPlan',
    /** tenant configuration: the merchant a plan applies to is a field of the plan (risk plans update --merchant) */
    command: { kind: 'riskPlan', merchant: false },
  },
  api_key: { model: 'ApiKey', read: [read('getApiKey', 'MT', 'api-keys:keys:view')], command: { kind: 'apiKey', merchant: true } },
  balance_threshold: {
    model: 'BalanceThreshold',
    read: [read('listBalanceThresholds', 'MT', 'payouts:balances:view')],
    command: { kind: 'balanceThreshold', merchant: true },
  },
  /** a release of held funds is read as the balance transactions it posts */
  balance_release: { model: 'LedgerRelease', read: [read('listBalanceTransactions', 'MT', 'payouts:balances:view')] },
  settlement_statement: {
    model: 'SettlementStatement',
    read: [read('getSettlement', 'MTP', 'payouts:settlements:view')],
    command: { kind: 'settlement', merchant: true },
    eventGroup: 'Settlement',
  },
  channel: {
    model: 'Channel',
    read: [read('getChannel', 'TP', 'organization:channels:view')],
    reference: 'channel',
    command: { kind: 'channel', merchant: false },
  },
  channel_limit: { model: 'Limit', read: [read('listChannelLimits', 'TP', 'organization:channels:view')] },
  checkout_session: {
    model: 'CheckoutSession',
    read: [read('getCheckoutSession', 'MT', 'payment-experience:checkout:view')],
    reference: 'checkoutSession',
    eventGroup: 'Checkout',
  },
  company: {
    model: 'Company',
    read: [read('getCompany', 'TP', 'organization:companies:view')],
    reference: 'company',
    command: { kind: 'company', merchant: true },
  },
  dispute: {
    model: 'Dispute',
    read: [read('getDispute', 'MTP', 'payments:disputes:view')],
    command: { kind: 'dispute', merchant: true },
    eventGroup: 'Dispute',
  },
  fee_assignment: {
    model: 'FeeAssignment',
    read: [read('getFeeAssignment', 'TP', 'fees:assignments:view')],
    /** a merchant-level assignment is its merchant's; a platform-level one is no tenant's */
    command: { kind: 'feeAssignment', merchant: true },
  },
  fee_schedule: {
    model: 'FeeSchedule',
    read: [read('getFeeSchedule', 'TP', 'fees:schedules:view')],
    reference: 'feeSchedule',
    /** a platform schedule (no tenant) is no tenant's: a tenant caller of the API does not see it either */
    command: { kind: 'feeSchedule', merchant: false },
  },
  integration_profile: {
    model: 'IntegrationProfile',
    read: [read('getIntegrationProfile', 'TP', 'processing:integration-profiles:view')],
    command: { kind: 'integrationProfile', merchant: true },
  },
  invitation: {
    model: 'Invitation',
    read: [read('listInvitations', 'MTP', 'access:users:view')],
    command: { kind: 'invitation', merchant: true },
  },
  kyb_document: {
    model: 'KybDocument',
    read: [read('downloadKybDocument', 'MTP', 'compliance:kyb:view'), read('reviewerGetKybSubmission', 'TP', 'compliance:kyb:review')],
    command: { kind: 'kybDocument', merchant: true },
  },
  kyb_submission: {
    model: 'KybSubmission',
    read: [read('getKybSubmission', 'M', 'compliance:kyb:view'), read('reviewerGetKybSubmission', 'TP', 'compliance:kyb:review')],
    command: { kind: 'kybSubmission', merchant: true },
  },
  list_entry: {
    model: 'ListEntry',
    read: [read('listListEntries', 'TP', 'risk:antifraud:view')],
    command: { kind: 'listEntry', merchant: false },
  },
  list_group: {
    model: 'ListGroup',
    read: [read('getListGroup', 'TP', 'risk:antifraud:view')],
    reference: 'listGroup',
    command: { kind: 'listGroup', merchant: false },
  },
  merchant: {
    model: 'Merchant',
    read: [read('getMerchant', 'MTP', 'organization:merchants:view')],
    reference: 'merchant',
    command: { kind: 'merchant', merchant: true },
    eventGroup: 'Merchant',
  },
  merchant_limit: {
    model: 'Limit',
    read: [read('listMerchantLimits', 'MTP', 'organization:merchants:view')],
    /** commands name every limit (a merchant's, a channel's, a terminal's) `limit`: a merchant's is its merchant's, the
     * others no merchant's */
    command: { kind: 'limit', merchant: true },
  },
  partner: {
    model: 'Partner',
    read: [read('getPartner', 'TP', 'organization:partners:view')],
    reference: 'partner',
    command: { kind: 'partner', merchant: false },
  },
  partner_assignment: {
    model: 'PartnerAssignment',
    read: [read('getPartnerAssignment', 'TP', 'organization:partners:view')],
    command: { kind: 'partnerAssignment', merchant: true },
  },
  payment: {
    model: 'Payment',
    read: [read('getPayment', 'MTP', 'payments:payments:view')],
    reference: 'payment',
    command: { kind: 'payment', merchant: true },
    eventGroup: 'Payment',
  },
  provider_integration: {
    model: null,
    read: [read('getProviderIntegration', 'TP', 'processing:providers:view')],
    reference: 'providerIntegration',
  },
  refund: {
    model: 'Refund',
    read: [read('getRefund', 'MTP', 'payments:refunds:view')],
    command: { kind: 'refund', merchant: true },
    eventGroup: 'Refund',
  },
  risk_configuration: { model: 'RiskConfiguration', read: [read('getRiskConfiguration', 'T', 'risk:antifraud:view')] },
  role: {
    model: 'Role',
    read: [read('getRole', 'MTP', 'access:roles:view')],
    reference: 'role',
    command: { kind: 'role', merchant: true },
  },
  routing_rule: {
    model: 'RoutingRule',
    read: [read('getRoutingRule', 'TP', 'processing:routing:view')],
    reference: 'routingRule',
    command: { kind: 'routingRule', merchant: false },
  },
  scoring_rule: {
    model: 'ScoringRule',
    read: [read('getScoringRule', 'TP', 'risk:antifraud:view')],
    reference: 'scoringRule',
    command: { kind: 'scoringRule', merchant: false },
  },
  tenant: {
    model: 'Tenant',
    read: [read('getTenant', 'TP', 'organization:tenants:view')],
    reference: 'tenant',
    command: { kind: 'tenant', merchant: false },
  },
  terminal: {
    model: 'Terminal',
    read: [read('getTerminal', 'TP', 'processing:terminals:view')],
    reference: 'terminal',
    command: { kind: 'terminal', merchant: false },
  },
  terminal_limit: { model: 'Limit', read: [read('listTerminalLimits', 'TP', 'processing:terminals:view')] },
  terminal_restriction: {
    model: 'TerminalRestriction',
    read: [read('listTerminalRestrictions', 'TP', 'processing:terminals:view')],
    command: { kind: 'restriction', merchant: false },
  },
  user: {
    model: 'User',
    read: [read('getUser', 'MTP', 'access:users:view')],
    reference: 'user',
    command: { kind: 'user', merchant: true },
  },
  webhook_delivery: {
    model: 'WebhookDelivery',
    read: [
      read('getWebhookDelivery', 'TP', 'developers:webhooks:view'),
      read('listMerchantWebhookDeliveries', 'M', 'developers:webhooks:view'),
    ],
    command: { kind: 'webhookDelivery', merchant: true },
  },
  webhook_endpoint: {
    model: 'WebhookEndpoint',
    read: [
      read('getMerchantWebhookEndpoint', 'M', 'developers:webhooks:view'),
      read('getAdminWebhookEndpoint', 'TP', 'developers:webhooks:view'),
    ],
    reference: 'webhookEndpoint',
    command: { kind: 'webhookEndpoint', merchant: true },
  },
  payout: {
    model: 'Payout',
    read: [read('getPayout', 'MTP', 'payouts:payouts:view')],
    command: { kind: 'payout', merchant: true },
    eventGroup: 'Payout',
  },
  payout_schedule: { model: 'PayoutSchedule', read: [read('getPayoutSchedule', 'MT', 'payouts:payouts:view')] },
  withdrawal: {
    model: 'Withdrawal',
    read: [read('getWithdrawal', 'MT', 'payouts:withdrawals:view')],
    command: { kind: 'withdrawal', merchant: true },
    eventGroup: 'Withdrawal',
  },
  withdrawal_method: {
    model: 'MerchantWithdrawalMethod',
    read: [read('getMerchantWithdrawalMethod', 'MT', 'payouts:withdrawal-methods:view')],
    reference: 'withdrawalMethod',
    command: { kind: 'withdrawalMethod', merchant: true },
  },
} as const satisfies Record<string, RecordKindSpec>;

type Kinds = typeof RECORD_KINDS;

/** A kind of record, by its API and audit name. */
export type RecordKindName = keyof Kinds;

export const RECORD_KIND_NAMES = Object.keys(RECORD_KINDS) as RecordKindName[];

export function isRecordKindName(value: string): value is RecordKindName {
  return Object.prototype.hasOwnProperty.call(RECORD_KINDS, value);
}

const spec = (kind: RecordKindName): RecordKindSpec => RECORD_KINDS[kind];

// ------------------------------------------------------------------------------------------ ids named in requests

/** A kind of record an id of a request can name (refersTo). */
export type ReferenceKind = { [K in RecordKindName]: Kinds[K] extends { reference: infer R extends string } ? R : never }[RecordKindName];

export const REFERENCE_KINDS = RECORD_KIND_NAMES.flatMap((kind) => spec(kind).reference ?? []) as readonly ReferenceKind[];

/** Where each kind a request can name is looked up: its model (null: a catalog defined in code). */
export const REFERENCE_MODELS = Object.fromEntries(
  RECORD_KIND_NAMES.flatMap((kind) => {
    const { reference, model } = spec(kind);
    return reference ? [[reference, model]] : [];
  }),
) as Record<ReferenceKind, keyof Models | null>;

// ------------------------------------------------------------------------------------------ records named by commands

/** A kind of record a command names by id. */
export type CommandKind = {
  [K in RecordKindName]: Kinds[K] extends { command: { kind: infer C extends string } } ? C : never;
}[RecordKindName];

type CommandRecord<C extends CommandKind> = {
  [K in RecordKindName]: Kinds[K] extends { model: infer M; command: { kind: C; merchant: infer B } } ? { model: M; merchant: B } : never;
}[RecordKindName];

/** The records commands name by id, by their command kind: the table, and whether a merchant can own one. */
export const COMMAND_RECORDS = Object.fromEntries(
  RECORD_KIND_NAMES.flatMap((kind) => {
    const { command, model } = spec(kind);
    return command ? [[command.kind, { model, merchant: command.merchant }]] : [];
  }),
) as { [C in CommandKind]: CommandRecord<C> };

// ------------------------------------------------------------------------------------------ events

/** The kind of record each event group's events carry. */
export const EVENT_GROUP_KINDS = Object.fromEntries(
  RECORD_KIND_NAMES.flatMap((kind) => {
    const group = spec(kind).eventGroup;
    return group ? [[group, kind]] : [];
  }),
) as Record<string, RecordKindName>;
