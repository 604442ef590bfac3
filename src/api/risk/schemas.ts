import { z } from '../zod';
import { refersTo } from '../references';
import { Currency, NullableTimestamp, Timestamp, listQuery, queryBoolean, Uuid, RecordName as Name } from '../common';
import {
  AGGREGATION_IDENTIFIERS,
  AGGREGATION_SCOPES,
  CONDITION_FIELDS,
  CONDITION_OPERATORS,
  LIST_ENTRY_TYPES,
  RISK_SIGNALS,
} from '../../db/models/risk';

// Risk: list groups and entries, scoring rules, antifraud plans, risk configuration.

const Description = z.string().max(1000).nullable();
const TenantIdInput = refersTo('tenant', Uuid)
  .optional()
  .openapi({ description: 'Required for platform callers; a tenant caller creates in its own tenant.' });
const TenantFilter = refersTo('tenant', Uuid).optional().openapi({ description: "Platform callers: only this tenant's records." });
const Score = z.number().int('must be an integer').min(1, 'must be at least 1').max(1_000_000);
const ScoreImpact = z
  .number()
  .int('must be an integer')
  .min(-1_000_000)
  .max(1_000_000)
  .openapi({ description: "Added to the payment's score when the rule matches (negative lowers it).", example: 40 });
const Priority = z
  .number()
  .int('must be an integer')
  .min(0)
  .max(1_000_000)
  .openapi({ description: 'Lower is evaluated first (ties: older rule first). A matched block rule ends the evaluation.', example: 100 });

export const ListEntryType = z.enum(LIST_ENTRY_TYPES);
export const RiskSignal = z.enum(RISK_SIGNALS).openapi({
  description:
    'What a match decides by itself: allow (nothing: only the score counts), challenge (force 3DS), review (hold the authorization as requires_capture for a manual decision), block (decline, RISK_DECLINED).',
});

// ------------------------------------------------------------------------------------------------ list groups

export const ListGroupSchema = z
  .object({
    id: Uuid,
    tenantId: Uuid,
    livemode: z.boolean(),
    name: z.string(),
    description: z.string().nullable(),
    entryType: ListEntryType,
    entryCount: z.number().int(),
    createdBy: z.string().nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    deletedAt: NullableTimestamp,
  })
  .strict()
  .openapi('ListGroup', { description: 'A named list of one entry type that scoring rules look into with the in_list operator.' });

export const CreateListGroupBody = z
  .strictObject({ name: Name, description: Description.optional(), entryType: ListEntryType, tenantId: TenantIdInput })
  .openapi('CreateListGroupRequest');

export const UpdateListGroupBody = z
  .strictObject({ name: Name.optional(), description: Description.optional() })
  .refine((b) => Object.keys(b).length > 0, { message: 'provide at least one of name, description' })
  .openapi('UpdateListGroupRequest', { description: 'The entry type does not change (the entries were normalized for it).' });

export const ListListGroupsQuery = listQuery({ entryType: ListEntryType.optional(), tenantId: TenantFilter });

export const ListEntrySchema = z
  .object({
    id: Uuid,
    listGroupId: Uuid,
    tenantId: Uuid,
    livemode: z.boolean(),
    entryType: ListEntryType,
    value: z
      .string()
      .openapi({ description: 'Normalized: lower-case email and domain, upper-case country, canonical address or CIDR for ip.' }),
    note: z.string().nullable(),
    createdBy: z.string().nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    deletedAt: NullableTimestamp,
  })
  .strict()
  .openapi('ListEntry');

export const CreateListEntryBody = z
  .strictObject({
    value: z.string().trim().min(1).max(255).openapi({
      description:
        "Of the group's entry type: a card fingerprint, an email, a domain, an IPv4/IPv6 address or CIDR range, a BIN (the 6 first digits), a country (ISO 3166-1 alpha-2) or a customer reference.",
      example: '203.0.113.0/24',
    }),
    note: z.string().max(1000).nullable().optional(),
  })
  .openapi('CreateListEntryRequest');

export const ListEntriesQuery = listQuery({
  value: z.string().trim().min(1).max(255).optional().openapi({ description: 'Only the entry with this value (normalized like entries).' }),
});

export const ListGroupParams = z.object({ id: z.string().min(1).openapi({ description: 'List group id (uuid).' }) });
export const ListEntryParams = z.object({
  id: z.string().min(1).openapi({ description: 'List group id (uuid).' }),
  entryId: z.string().min(1).openapi({ description: 'Entry id (uuid).' }),
});

// ------------------------------------------------------------------------------------------------ scoring rules

const PeriodSchema = z.strictObject({
  value: z.number().int('must be an integer').min(1).max(10_000),
  unit: z.enum(['minute', 'hour', 'day', 'week']),
});

const AggregationInput = z
  .strictObject({
    metric: z.enum(['count', 'sum']),
    period: PeriodSchema.optional().openapi({ description: "The window ending now; or give the condition's statisticWindow." }),
    scope: z.array(z.enum(AGGREGATION_SCOPES)).max(AGGREGATION_SCOPES.length).optional().openapi({
      description:
        "Counts only payments of the payment's own merchant, channel and/or terminal (the terminal its route starts with); tenant (default): every payment of the tenant and mode.",
    }),
    identifier: z.enum(AGGREGATION_IDENTIFIERS).openapi({ description: 'The payments counted share this with the payment evaluated.' }),
    currency: Currency.nullable().optional().openapi({ description: "sum: the currency summed (default the payment's own)." }),
  })
  .openapi('RiskAggregationInput');

const CONDITION_DESCRIPTION =
  "field operator value. Fields: amount (minor units), currency, country (the card's), bin, brand, card_fingerprint, email, email_domain, ip, customer_reference, three_ds_result, merchant_id. Operators: eq, neq, gt, gte, lt, lte (amount), in and not_in (comma-separated values), contains, in_list (value: a list group id of the field's type). A value the payment lacks matches only neq and not_in. With an aggregation, the count of the tenant's payments of the period sharing the identifier (or the sum of their amounts), the payment itself included, is compared with value (eq, neq, gt, gte, lt, lte).";

export const RiskConditionInput = z
  .strictObject({
    field: z.enum(CONDITION_FIELDS),
    operator: z.enum(CONDITION_OPERATORS),
    value: z
      .union([z.string().trim().min(1).max(2000), z.number().int().safe().transform(String)])
      .openapi({ type: ['string', 'integer'], example: '3' }),
    aggregation: AggregationInput.nullable().optional(),
    statisticWindow: z
      .string()
      .max(10)
      .nullable()
      .optional()
      .openapi({ description: "The aggregation's window as 10m, 1h, 1d or 7d (when period is not given).", example: '1d' }),
  })
  .openapi('RiskConditionInput', { description: CONDITION_DESCRIPTION });

export const RiskConditionSchema = z
  .object({
    field: z.enum(CONDITION_FIELDS),
    operator: z.enum(CONDITION_OPERATORS),
    value: z.string(),
    aggregation: z
      .object({
        metric: z.enum(['count', 'sum']),
        period: z.object({ value: z.number().int(), unit: z.string() }).strict(),
        scope: z.array(z.string()),
        identifier: z.string(),
        currency: z.string().nullable(),
      })
      .strict()
      .nullable(),
    statisticWindow: z.string().nullable(),
  })
  .strict()
  .openapi('RiskCondition', { description: CONDITION_DESCRIPTION });

export const ScoringRuleSchema = z
  .object({
    id: Uuid,
    tenantId: Uuid,
    livemode: z.boolean(),
    name: z.string(),
    description: z.string().nullable(),
    isActive: z.boolean(),
    conditions: z.array(RiskConditionSchema),
    signal: RiskSignal,
    scoreImpact: z.number().int(),
    priority: z.number().int(),
    createdBy: z.string().nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    deletedAt: NullableTimestamp,
  })
  .strict()
  .openapi('ScoringRule', {
    description: 'Matches when all its conditions hold; takes effect through the enabled antifraud plans that list it.',
  });

const Conditions = z.array(RiskConditionInput).min(1, 'must have at least 1 condition').max(20);

export const CreateScoringRuleBody = z
  .strictObject({
    name: Name,
    description: Description.optional(),
    conditions: Conditions,
    scoreImpact: ScoreImpact,
    priority: Priority,
    signal: RiskSignal.default('allow'),
    isActive: z.boolean().default(true),
    tenantId: TenantIdInput,
  })
  .openapi('CreateScoringRuleRequest');

export const UpdateScoringRuleBody = z
  .strictObject({
    name: Name.optional(),
    description: Description.optional(),
    conditions: Conditions.optional().openapi({ description: 'Replaces the whole list.' }),
    scoreImpact: ScoreImpact.optional(),
    priority: Priority.optional(),
    signal: RiskSignal.optional(),
    isActive: z.boolean().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'provide at least one field to change' })
  .openapi('UpdateScoringRuleRequest');

export const ListScoringRulesQuery = listQuery({
  isActive: queryBoolean.optional(),
  signal: RiskSignal.optional(),
  tenantId: TenantFilter,
});

// ------------------------------------------------------------------------------------------------ antifraud plans

const ThresholdsInput = z
  .strictObject({ challenge: Score.nullable().optional(), review: Score.nullable().optional(), decline: Score.nullable().optional() })
  .openapi('RiskThresholdsInput', {
    description:
      "Scores at or above which the decision is challenge, review, decline; each optional (the risk configuration's otherwise). With several plans, the lowest of each applies.",
  });

export const AntifraudPlanSchema = z
  .object({
    id: Uuid,
    tenantId: Uuid,
    livemode: z.boolean(),
    merchantId: Uuid.nullable().openapi({ description: 'null: every merchant of the tenant.' }),
    name: z.string(),
    description: z.string().nullable(),
    status: z.enum(['enabled', 'disabled']),
    ruleIds: z.array(Uuid),
    thresholds: z
      .object({ challenge: z.number().int().nullable(), review: z.number().int().nullable(), decline: z.number().int().nullable() })
      .strict(),
    ownerLevel: z.enum(['tenant', 'platform']).openapi({ description: 'The level that created the plan; only it deletes the plan.' }),
    createdBy: z.string().nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    deletedAt: NullableTimestamp,
  })
  .strict()
  .openapi('AntifraudPlan', { description: 'Scoring rules and thresholds, enabled for the whole tenant or one merchant.' });

const RuleIds = z
  .array(refersTo('scoringRule', Uuid, 400))
  .max(200)
  .openapi({ description: "Scoring rules of the plan's tenant and mode." });

export const CreateAntifraudPlanBody = z
  .strictObject({
    name: Name,
    description: Description.optional(),
    merchantId: refersTo('merchant', Uuid, 400).nullable().optional(),
    ruleIds: RuleIds.default([]),
    thresholds: ThresholdsInput.nullable().optional(),
    enabled: z.boolean().default(false).openapi({ description: 'Enable at once (default: created disabled).' }),
    tenantId: TenantIdInput,
  })
  .openapi('CreateAntifraudPlanRequest');

export const UpdateAntifraudPlanBody = z
  .strictObject({
    name: Name.optional(),
    description: Description.optional(),
    merchantId: refersTo('merchant', Uuid, 400).nullable().optional(),
    ruleIds: RuleIds.optional(),
    thresholds: ThresholdsInput.nullable().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'provide at least one field to change' })
  .openapi('UpdateAntifraudPlanRequest');

export const ListAntifraudPlansQuery = listQuery({
  status: z.enum(['enabled', 'disabled']).optional(),
  merchantId: refersTo('merchant', Uuid).optional(),
  tenantId: TenantFilter,
});

// ------------------------------------------------------------------------------------------------ risk configuration

export const RiskConfigurationSchema = z
  .object({
    tenantId: Uuid,
    challengeScore: z.number().int(),
    reviewScore: z.number().int().nullable(),
    declineScore: z.number().int(),
    enforcement: z.enum(['enforce', 'monitor']),
    isDefault: z.boolean(),
    updatedBy: z.string().nullable(),
    createdAt: NullableTimestamp,
    updatedAt: NullableTimestamp,
  })
  .strict()
  .openapi('RiskConfiguration', {
    description:
      'Score thresholds of the tenant (both modes) and whether decisions are enforced or only recorded (monitor). Defaults: challenge 50, review none, decline 100, enforce.',
  });

export const PutRiskConfigurationBody = z
  .strictObject({
    challengeScore: Score.optional(),
    reviewScore: Score.nullable().optional(),
    declineScore: Score.optional(),
    enforcement: z.enum(['enforce', 'monitor']).optional(),
  })
  .openapi('PutRiskConfigurationRequest', { description: 'Replaces the configuration; fields left out take the defaults.' });

// ------------------------------------------------------------------------------------------------ decisions

export const RiskDecisionSchema = z
  .object({
    decision: z.enum(['allow', 'challenge', 'review', 'decline']),
    evaluatedDecision: z.enum(['allow', 'challenge', 'review', 'decline']),
    enforced: z.boolean(),
    score: z.number().int(),
    matchedRules: z.array(
      z.object({ id: Uuid, name: z.string(), signal: RiskSignal, scoreImpact: z.number().int(), priority: z.number().int() }).strict(),
    ),
    thresholds: z.object({ challenge: z.number().int(), review: z.number().int().nullable(), decline: z.number().int() }).strict(),
    planIds: z.array(Uuid),
    reason: z.string().nullable(),
  })
  .strict()
  .openapi('RiskDecision');
