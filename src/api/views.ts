import type { Level } from '../domain/context';
import type { RecordKindName } from '../domain/record-kinds';
import { z } from './zod';
import { markedNames, platformOnly, render, tenantOnly } from './visibility';
import { RoleSchema, UserSchema, InvitationSchema } from './access/schemas';
import { ApiKeySchema } from './api-keys/schemas';
import { ChannelSchema } from './channels/schemas';
import { CheckoutSessionSchema } from './checkout/schemas';
import { FeeAssignmentSchema, FeeScheduleSchema } from './fees/schemas';
import { KybDocumentSchema, KybSubmissionSchema } from './kyb/schemas';
import { BalanceThresholdSchema, BalanceTransactionSchema } from './ledger/schemas';
import { DisputeSchema } from './disputes/schemas';
import { SettlementStatementSchema } from './settlements/schemas';
import { LimitSchema } from './limits/schemas';
import { CompanySchema, MerchantSchema } from './organization/schemas';
import { PartnerAssignmentSchema, PartnerSchema } from './partners/schemas';
import { PaymentSchema, RefundSchema } from './payments/schemas';
import { ProviderIntegrationSchema, RestrictionSchema, TerminalSchema } from './processing/schemas';
import { IntegrationProfileSchema } from './profiles/schemas';
import { AntifraudPlanSchema, ListEntrySchema, ListGroupSchema, RiskConfigurationSchema, ScoringRuleSchema } from './risk/schemas';
import { RoutingRuleSchema } from './routing/schemas';
import { TenantSchema } from './tenants/schemas';
import { DeliverySchema, WebhookEndpointSchema } from './webhooks/schemas';
import { WithdrawalMethodSchema } from './withdrawal-methods/schemas';
import { WithdrawalSchema } from './withdrawals/schemas';
import { PayoutScheduleSchema, PayoutSchema } from './payouts/schemas';

/**
 * Every kind of record the API reads (src/domain/record-kinds.ts), with the schema its reading operations answer with
 * (the kinds audit entries are about: src/services/audit/targets.ts; the records event data carries:
 * src/services/webhooks/catalog.ts).
 * What each level sees of one is that schema's declaration (src/api/visibility.ts), wherever the record is shown.
 */
export const RESOURCES = {
  antifraud_plan: AntifraudPlanSchema,
  api_key: ApiKeySchema,
  /** a release of held funds is read as the balance transactions it posts */
  balance_release: BalanceTransactionSchema,
  balance_threshold: BalanceThresholdSchema,
  channel: ChannelSchema,
  channel_limit: LimitSchema,
  checkout_session: CheckoutSessionSchema,
  company: CompanySchema,
  dispute: DisputeSchema,
  fee_assignment: FeeAssignmentSchema,
  fee_schedule: FeeScheduleSchema,
  integration_profile: IntegrationProfileSchema,
  invitation: InvitationSchema,
  kyb_document: KybDocumentSchema,
  kyb_submission: KybSubmissionSchema,
  list_entry: ListEntrySchema,
  list_group: ListGroupSchema,
  merchant: MerchantSchema,
  merchant_limit: LimitSchema,
  partner: PartnerSchema,
  partner_assignment: PartnerAssignmentSchema,
  payment: PaymentSchema,
  payout: PayoutSchema,
  payout_schedule: PayoutScheduleSchema,
  provider_integration: ProviderIntegrationSchema,
  refund: RefundSchema,
  risk_configuration: RiskConfigurationSchema,
  role: RoleSchema,
  routing_rule: RoutingRuleSchema,
  scoring_rule: ScoringRuleSchema,
  settlement_statement: SettlementStatementSchema,
  tenant: TenantSchema,
  terminal: TerminalSchema,
  terminal_limit: LimitSchema,
  terminal_restriction: RestrictionSchema,
  user: UserSchema,
  webhook_delivery: DeliverySchema,
  webhook_endpoint: WebhookEndpointSchema,
  withdrawal: WithdrawalSchema,
  withdrawal_method: WithdrawalMethodSchema,
} as const satisfies Record<RecordKindName, z.ZodType>;

/**
 * Fields that only data with no schema of its own carries (the data of sample events, of alerts, the extras of an
 * audit entry): how the routing and risk evaluation, the provider's raw status and platform bookkeeping are shown.
 */
const FreeFormFields = z.object({
  routing: tenantOnly(z.unknown(), 'How the payment was routed: provider, rule, attempt.'),
  risk: tenantOnly(z.unknown(), 'The risk evaluation.'),
  rawProviderStatus: tenantOnly(z.string(), "The provider's status as it sent it."),
  internal: platformOnly(z.unknown(), 'Platform bookkeeping.'),
});

/**
 * A key that no schema declares (data with no schema, a record's entries, extra keys) is shown as the schemas show
 * a field of its name: the most restricted of the marks of RESOURCES and FreeFormFields.
 */
let byName: Map<string, Level> | undefined;
const undeclared = (name: string): Level | undefined => (byName ??= markedNames([...Object.values(RESOURCES), FreeFormFields])).get(name);

/** Views already made: a value a service rendered for the level is not rendered again by the pipeline. */
const made = new WeakMap<object, { schema: z.ZodType | undefined; level: Level }>();

/** The value as a caller of `level` sees it, by `schema` (undefined: data with no schema, shown by field name). */
export function viewAt(schema: z.ZodType | undefined, value: unknown, level: Level): unknown {
  if (value === null || typeof value !== 'object' || level === 'platform') return value;
  const known = made.get(value);
  if (known && known.schema === schema && known.level === level) return value;
  const view = render(schema, value, level, undeclared);
  if (view !== null && typeof view === 'object') made.set(view, { schema, level });
  return view;
}

/** A record of the kind as a caller of `level` sees it. */
export function viewOf<T>(kind: RecordKindName, value: T, level: Level): T {
  return viewAt(RESOURCES[kind], value, level) as T;
}
