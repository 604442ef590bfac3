import { levelOfCode, type Level, type LevelCode } from '../../domain/level';
import { allows } from '../../domain/permissions';
import type { ResourceKind } from '../../api/views';
import { apiViews } from '../../api/lazy-views';

/**
 * Who may read an audit entry, and what of it: an entry is about one record (its targetType and targetId), and a
 * caller sees it only if it may read that kind of record, at its level (operations.md's levels and view permission
 * of the operations that read it), with before and after rendered as that level's view of the record: through the
 * schema its reading operations answer with (RESOURCES of src/api/views.ts, one per kind declared here). Every
 * targetType that recordAudit writes is declared here (recordAudit refuses any other), and GET /v1/audit-entries
 * selects, in its query, only the kinds the caller may read (src/services/audit/entries.ts).
 */

/** One operation that reads records of the kind: its operationId, levels and permission, as the registry declares them. */
export interface AuditReader {
  /** operationId of the reading operation in src/api (test/security/audit-visibility.test.ts holds the two together) */
  operation: string;
  levels: readonly Level[];
  permission: string;
}

export interface AuditTarget {
  /** the operations that read the record; a caller that may call one of them may see the record's entries */
  readBy: readonly AuditReader[];
}

/** A reading operation: `levels` as operations.md writes them ('MTP', 'TP', …). */
function op(operation: string, levels: string, permission: string): AuditReader {
  return { operation, levels: ([...levels] as LevelCode[]).map(levelOfCode), permission };
}

export const AUDIT_TARGETS = {
  antifraud_plan: { readBy: [op('getAntifraudPlan', 'TP', 'risk:antifraud:view')] },
  api_key: { readBy: [op('getApiKey', 'MT', 'api-keys:keys:view')] },
  /** a release of held funds is read as the balance transactions it posts */
  balance_threshold: { readBy: [op('listBalanceThresholds', 'MT', 'payouts:balances:view')] },
  balance_release: { readBy: [op('listBalanceTransactions', 'MT', 'payouts:balances:view')] },
  settlement_statement: { readBy: [op('getSettlement', 'MTP', 'payouts:settlements:view')] },
  channel: { readBy: [op('getChannel', 'TP', 'organization:channels:view')] },
  channel_limit: { readBy: [op('listChannelLimits', 'TP', 'organization:channels:view')] },
  checkout_session: { readBy: [op('getCheckoutSession', 'MT', 'payment-experience:checkout:view')] },
  company: { readBy: [op('getCompany', 'TP', 'organization:companies:view')] },
  dispute: { readBy: [op('getDispute', 'MTP', 'payments:disputes:view')] },
  fee_assignment: { readBy: [op('getFeeAssignment', 'TP', 'fees:assignments:view')] },
  fee_schedule: { readBy: [op('getFeeSchedule', 'TP', 'fees:schedules:view')] },
  integration_profile: { readBy: [op('getIntegrationProfile', 'TP', 'processing:integration-profiles:view')] },
  invitation: { readBy: [op('listInvitations', 'MTP', 'access:users:view')] },
  kyb_document: { readBy: [op('downloadKybDocument', 'MTP', 'compliance:kyb:view'), op('reviewerGetKybSubmission', 'TP', 'compliance:kyb:review')] },
  kyb_submission: { readBy: [op('getKybSubmission', 'M', 'compliance:kyb:view'), op('reviewerGetKybSubmission', 'TP', 'compliance:kyb:review')] },
  list_entry: { readBy: [op('listListEntries', 'TP', 'risk:antifraud:view')] },
  list_group: { readBy: [op('getListGroup', 'TP', 'risk:antifraud:view')] },
  merchant: { readBy: [op('getMerchant', 'MTP', 'organization:merchants:view')] },
  merchant_limit: { readBy: [op('listMerchantLimits', 'MTP', 'organization:merchants:view')] },
  partner: { readBy: [op('getPartner', 'TP', 'organization:partners:view')] },
  partner_assignment: { readBy: [op('getPartnerAssignment', 'TP', 'organization:partners:view')] },
  payment: { readBy: [op('getPayment', 'MTP', 'payments:payments:view')] },
  provider_integration: { readBy: [op('getProviderIntegration', 'TP', 'processing:providers:view')] },
  refund: { readBy: [op('getRefund', 'MTP', 'payments:refunds:view')] },
  risk_configuration: { readBy: [op('getRiskConfiguration', 'T', 'risk:antifraud:view')] },
  role: { readBy: [op('getRole', 'MTP', 'access:roles:view')] },
  routing_rule: { readBy: [op('getRoutingRule', 'TP', 'processing:routing:view')] },
  scoring_rule: { readBy: [op('getScoringRule', 'TP', 'risk:antifraud:view')] },
  tenant: { readBy: [op('getTenant', 'TP', 'organization:tenants:view')] },
  terminal: { readBy: [op('getTerminal', 'TP', 'processing:terminals:view')] },
  terminal_limit: { readBy: [op('listTerminalLimits', 'TP', 'processing:terminals:view')] },
  terminal_restriction: { readBy: [op('listTerminalRestrictions', 'TP', 'processing:terminals:view')] },
  user: { readBy: [op('getUser', 'MTP', 'access:users:view')] },
  webhook_delivery: { readBy: [op('getWebhookDelivery', 'TP', 'developers:webhooks:view'), op('listMerchantWebhookDeliveries', 'M', 'developers:webhooks:view')] },
  webhook_endpoint: { readBy: [op('getMerchantWebhookEndpoint', 'M', 'developers:webhooks:view'), op('getAdminWebhookEndpoint', 'TP', 'developers:webhooks:view')] },
  payout: { readBy: [op('getPayout', 'MTP', 'payouts:payouts:view')] },
  payout_schedule: { readBy: [op('getPayoutSchedule', 'MT', 'payouts:payouts:view')] },
  withdrawal: { readBy: [op('getWithdrawal', 'MT', 'payouts:withdrawals:view')] },
  withdrawal_method: { readBy: [op('getMerchantWithdrawalMethod', 'MT', 'payouts:withdrawal-methods:view')] },
} as const satisfies Record<ResourceKind, AuditTarget>;

/** Every kind of record an audit entry may be about. */
export type AuditTargetType = keyof typeof AUDIT_TARGETS;

export function isAuditTargetType(value: string): value is AuditTargetType {
  return Object.prototype.hasOwnProperty.call(AUDIT_TARGETS, value);
}

/** The kinds of record whose entries a caller of the level holding the permissions may see. */
export function readableTargetTypes(level: Level, permissions: ReadonlySet<string>): AuditTargetType[] {
  return (Object.keys(AUDIT_TARGETS) as AuditTargetType[]).filter((type) =>
    (AUDIT_TARGETS[type] as AuditTarget).readBy.some((reader) => reader.levels.includes(level) && allows(permissions, reader.permission)),
  );
}

/** An entry's before or after as a caller of the level sees it. */
export function auditValueAt(type: string, value: unknown, level: Level): unknown {
  if (value === null || value === undefined) return null;
  const { RESOURCES, viewAt } = apiViews();
  return viewAt(isAuditTargetType(type) ? RESOURCES[type] : undefined, value, level);
}
