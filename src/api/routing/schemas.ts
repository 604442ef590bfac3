import { z } from '../zod';
import { refersTo } from '../references';
import { Country, Currency, NullableTimestamp, Timestamp, listQuery, Uuid, RecordName as Name } from '../common';
import { PAYMENT_METHODS } from '../fees/schemas';

// Routing rules: versioned (draft -> active -> archived), conditions on the payment, an outcome naming terminals.

const Description = z.string().max(1000).nullable();
const Code = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,49}$/, 'must be a lower-case identifier such as visa (letters, digits, _ and -; at most 50)');
const Priority = z
  .number()
  .int('must be an integer')
  .min(0)
  .max(1_000_000)
  .openapi({ description: "Lower is evaluated first across the tenant's active rules (ties: earlier activation first).", example: 100 });
const MinorUnits = z.number().int('must be an integer amount in minor units').min(0, 'must not be negative').max(1_000_000_000_000_000);

export const RULE_STATUSES = ['draft', 'active', 'archived'] as const;
const RuleStatus = z.enum(RULE_STATUSES);

/** A non-empty list of distinct values (an empty list would match nothing: leave the condition out instead). */
function distinctList<T extends z.ZodType>(item: T, max = 100) {
  return z
    .array(item)
    .min(1, 'must have at least 1 item (leave the condition out to match any)')
    .max(max)
    .superRefine((values, ctx) => {
      const seen = new Set<unknown>();
      values.forEach((v, i) => {
        if (seen.has(v)) ctx.addIssue({ code: 'custom', path: [i], message: 'is listed twice' });
        seen.add(v);
      });
    });
}

const CONDITIONS_DESCRIPTION =
  "Every condition given must match (absent or null: any). amount: the payment's currency must be amount.currency and its value in minor units within min..max (both inclusive, each optional). brands and cardCountries only match payments whose card brand or country is known. merchantIds and channelIds only match payments of those merchants or channels.";

const AmountCondition = z
  .strictObject({
    currency: Currency,
    min: MinorUnits.nullable().optional(),
    max: MinorUnits.nullable().optional(),
  })
  .superRefine((a, ctx) => {
    if ((a.min ?? null) === null && (a.max ?? null) === null)
      ctx.addIssue({ code: 'custom', path: ['min'], message: 'give min, max or both' });
    if (a.min != null && a.max != null && a.min > a.max) ctx.addIssue({ code: 'custom', path: ['max'], message: 'must be at least min' });
  });

export const RoutingConditionsInput = z
  .strictObject({
    amount: AmountCondition.nullable().optional(),
    currencies: distinctList(Currency).nullable().optional(),
    paymentMethods: distinctList(z.enum(PAYMENT_METHODS)).nullable().optional(),
    brands: distinctList(Code).nullable().optional(),
    cardCountries: distinctList(Country, 250).nullable().optional(),
    merchantIds: distinctList(refersTo('merchant', Uuid, 400), 1000)
      .nullable()
      .optional()
      .openapi({ description: "Merchants of the rule's tenant." }),
    channelIds: distinctList(refersTo('channel', Uuid, 400))
      .nullable()
      .optional()
      .openapi({ description: "Channels of the rule's tenant." }),
  })
  .openapi('RoutingConditionsInput', { description: CONDITIONS_DESCRIPTION });

export const RoutingConditionsSchema = z
  .object({
    amount: z.object({ currency: z.string(), min: z.number().int().nullable(), max: z.number().int().nullable() }).strict().nullable(),
    currencies: z.array(z.string()).nullable(),
    paymentMethods: z.array(z.string()).nullable(),
    brands: z.array(z.string()).nullable(),
    cardCountries: z.array(z.string()).nullable(),
    merchantIds: z.array(Uuid).nullable(),
    channelIds: z.array(Uuid).nullable(),
  })
  .strict()
  .openapi('RoutingConditions', { description: CONDITIONS_DESCRIPTION });

const OUTCOME_DESCRIPTION =
  "priority: the terminals in this order (the first eligible one is tried first, the others are cascade fallbacks). split: one terminal picked at random in proportion to its weight (positive integers), then the other split terminals by weight, heaviest first, as fallbacks. Terminals must be payin terminals of the rule's tenant.";

const PriorityOutcomeInput = z.strictObject({
  type: z.literal('priority'),
  terminals: distinctList(refersTo('terminal', Uuid, 400), 50),
});
const SplitOutcomeInput = z.strictObject({
  type: z.literal('split'),
  splits: z
    .array(
      z.strictObject({
        terminalId: refersTo('terminal', Uuid, 400),
        weight: z.number().int('must be an integer').min(1, 'must be a positive integer').max(1_000_000),
      }),
    )
    .min(1)
    .max(50)
    .superRefine((splits, ctx) => {
      const seen = new Set<string>();
      splits.forEach((s, i) => {
        if (seen.has(s.terminalId)) ctx.addIssue({ code: 'custom', path: [i, 'terminalId'], message: 'is listed twice' });
        seen.add(s.terminalId);
      });
    }),
});

export const RoutingOutcomeInput = z
  .discriminatedUnion('type', [PriorityOutcomeInput, SplitOutcomeInput])
  .openapi('RoutingOutcomeInput', { description: OUTCOME_DESCRIPTION });

export const RoutingOutcomeSchema = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('priority'), terminals: z.array(Uuid) }).strict(),
    z.object({ type: z.literal('split'), splits: z.array(z.object({ terminalId: Uuid, weight: z.number().int() }).strict()) }).strict(),
  ])
  .openapi('RoutingOutcome', { description: OUTCOME_DESCRIPTION });

export const RoutingRuleSchema = z
  .object({
    id: Uuid.openapi({ description: "This version's id." }),
    ruleId: Uuid.openapi({ description: 'The rule: the id of its first version, shared by all its versions.' }),
    version: z.number().int().openapi({ description: '1, 2, 3… within the rule.' }),
    tenantId: Uuid,
    name: z.string(),
    description: z.string().nullable(),
    status: RuleStatus,
    priority: z.number().int(),
    conditions: RoutingConditionsSchema,
    outcome: RoutingOutcomeSchema,
    createdBy: z.string().nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    activatedAt: NullableTimestamp,
    archivedAt: NullableTimestamp,
    deletedAt: NullableTimestamp,
  })
  .strict()
  .openapi('RoutingRule', {
    description:
      "One version of a routing rule. draft -> active -> archived: only drafts are updated or deleted; activating a version archives the rule's previously active version; clone makes a new draft version of the same rule from any version. The engine evaluates the tenant's active versions by priority; the first whose conditions match gives the terminals.",
  });

export const CreateRoutingRuleBody = z
  .strictObject({
    name: Name,
    description: Description.optional(),
    priority: Priority.default(100).openapi({ description: 'Default 100; lower is evaluated first.' }),
    conditions: RoutingConditionsInput.default({}).openapi({ description: 'Default: no condition (matches every payment).' }),
    outcome: RoutingOutcomeInput,
    tenantId: refersTo('tenant', Uuid)
      .optional()
      .openapi({ description: 'Required for platform callers; a tenant caller creates in its own tenant.' }),
  })
  .openapi('CreateRoutingRuleRequest');

export const UpdateRoutingRuleBody = z
  .strictObject({
    name: Name.optional(),
    description: Description.optional(),
    priority: Priority.optional(),
    conditions: RoutingConditionsInput.optional().openapi({ description: 'Replaces the whole value.' }),
    outcome: RoutingOutcomeInput.optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'provide at least one of name, description, priority, conditions, outcome' })
  .openapi('UpdateRoutingRuleRequest');

export const ListRoutingRulesQuery = listQuery({
  status: RuleStatus.optional(),
  ruleId: refersTo('routingRule', Uuid).optional().openapi({ description: 'Only the versions of this rule.' }),
  name: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .openapi({ description: 'Only rules whose name contains this text (case-insensitive).' }),
  tenantId: refersTo('tenant', Uuid).optional().openapi({ description: "Platform callers: only this tenant's rules." }),
});

export const ListRoutingRuleVersionsQuery = listQuery({});
