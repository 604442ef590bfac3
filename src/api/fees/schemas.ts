import { z } from '../zod';
import { refersTo, notChecked } from '../references';
import {
  Currency,
  FutureDateInput,
  Money,
  NullableTimestamp,
  Timestamp,
  listQuery,
  queryBoolean,
  Uuid,
  RecordName as Name,
} from '../common';

// Fee schedules and fee assignments.

/** `dispute`: the dispute fee of a disputed payment; `chargeback`: its older name, kept for schedules that use it (no fee is looked up by it) */
export const TRANSACTION_TYPES = ['payment', 'refund', 'payout', 'withdrawal', 'dispute', 'chargeback'] as const;
export const TRANSACTION_OUTCOMES = ['successful', 'failed', 'any'] as const;
export const FEE_METHODS = ['fixed', 'percentage', 'fixed_plus_percentage'] as const;
export const FEE_PARTIES = ['provider', 'tenant', 'platform', 'partner'] as const;
export const ROUNDING_MODES = ['floor', 'ceil', 'half_up', 'half_even'] as const;
export const FEE_LEVELS = ['terminal', 'platform', 'merchant', 'tenant', 'channel', 'partner'] as const;
export const PAYMENT_METHODS = [
  'card',
  'bank_transfer',
  'wallet',
  'bnpl',
  'cash',
  'qr',
  'local',
  'google_pay',
  'agent_token',
  'hosted_page',
] as const;

const Rate = z
  .number()
  .int('must be an integer number of millionths')
  .min(0)
  .max(1_000_000)
  .openapi({ description: 'A rate in millionths: 10000 is 1%, 1000000 is 100%.', example: 10000 });
/** Rule amounts: not negative, and at most 10^12 minor units, so sums of rules stay exact integers. */
const NonNegativeMoney = Money.refine((m) => m.valueMinor >= 0, { message: 'must not be negative', path: ['valueMinor'] })
  .refine((m) => m.valueMinor <= 1_000_000_000_000, { message: 'must be at most 1000000000000 minor units', path: ['valueMinor'] })
  .openapi('FeeRuleMoney'); // a component of its own: a refined Money keeps Money's name, and a .nullable() use would make the shared Money nullable

const RULE_DESCRIPTION =
  "A fee rule applies to transactions of its transactionType, transactionOutcome (or any) and currency. method fixed charges fixedAmount; percentage charges amount x percentageRate / 1,000,000 (millionths: 10000 = 1%) rounded with the schedule's rollingReserve.roundingMode; fixed_plus_percentage charges both. The result is clamped to minAmount and maxAmount when set. fixedAmount, minAmount and maxAmount must be in the rule's currency. party names who earns the fee (provider, tenant, platform or partner; default tenant): the engine reports it as providerFee, tenantFee, platformFee or partnerCommission, and the merchant is charged their sum.";

const RuleMoneySchema = z.object({ currency: z.string(), valueMinor: z.number().int() }).strict();

export const FeeRuleSchema = z
  .object({
    transactionType: z.enum(TRANSACTION_TYPES),
    transactionOutcome: z.enum(TRANSACTION_OUTCOMES),
    method: z.enum(FEE_METHODS),
    party: z.enum(FEE_PARTIES),
    currency: z.string(),
    fixedAmount: RuleMoneySchema.nullable(),
    percentageRate: z.number().int().nullable(),
    minAmount: RuleMoneySchema.nullable(),
    maxAmount: RuleMoneySchema.nullable(),
  })
  .strict()
  .openapi('FeeRule', { description: RULE_DESCRIPTION });

export const FeeRuleInput = z
  .strictObject({
    transactionType: z.enum(TRANSACTION_TYPES),
    transactionOutcome: z.enum(TRANSACTION_OUTCOMES).default('successful').openapi({ description: 'Default successful.' }),
    method: z.enum(FEE_METHODS),
    party: z.enum(FEE_PARTIES).default('tenant').openapi({ description: 'Who earns the fee; default tenant.' }),
    currency: Currency,
    fixedAmount: NonNegativeMoney.nullable().optional(),
    percentageRate: Rate.nullable().optional(),
    minAmount: NonNegativeMoney.nullable().optional(),
    maxAmount: NonNegativeMoney.nullable().optional(),
  })
  .superRefine((rule, ctx) => {
    const needsFixed = rule.method === 'fixed' || rule.method === 'fixed_plus_percentage';
    const needsRate = rule.method === 'percentage' || rule.method === 'fixed_plus_percentage';
    if (needsFixed && !rule.fixedAmount)
      ctx.addIssue({ code: 'custom', path: ['fixedAmount'], message: `is required for method ${rule.method}` });
    if (!needsFixed && rule.fixedAmount)
      ctx.addIssue({ code: 'custom', path: ['fixedAmount'], message: `is not used by method ${rule.method}` });
    if (needsRate && (rule.percentageRate === undefined || rule.percentageRate === null))
      ctx.addIssue({ code: 'custom', path: ['percentageRate'], message: `is required for method ${rule.method}` });
    if (!needsRate && rule.percentageRate != null)
      ctx.addIssue({ code: 'custom', path: ['percentageRate'], message: `is not used by method ${rule.method}` });
    for (const field of ['fixedAmount', 'minAmount', 'maxAmount'] as const) {
      const money = rule[field];
      if (money && money.currency !== rule.currency)
        ctx.addIssue({ code: 'custom', path: [field, 'currency'], message: `must be the rule's currency (${rule.currency})` });
    }
    if (rule.minAmount && rule.maxAmount && rule.minAmount.valueMinor > rule.maxAmount.valueMinor) {
      ctx.addIssue({ code: 'custom', path: ['maxAmount', 'valueMinor'], message: 'must be at least minAmount' });
    }
  })
  .openapi('FeeRuleInput', { description: RULE_DESCRIPTION });

const RESERVE_DESCRIPTION =
  'rate: millionths of the net of each successful payment held back (10000 = 1%); holdDays: how long it is held; autoRelease: released automatically after holdDays; roundingMode: how every percentage of this schedule (fees and reserve) is rounded to minor units: floor, ceil, half_up (ties away from zero) or half_even (ties to even).';

export const RollingReserveSchema = z
  .object({ rate: z.number().int(), holdDays: z.number().int(), autoRelease: z.boolean(), roundingMode: z.enum(ROUNDING_MODES) })
  .strict()
  .openapi('RollingReserve', { description: RESERVE_DESCRIPTION });

export const RollingReserveInput = z
  .strictObject({
    rate: Rate.default(0),
    holdDays: z.number().int('must be an integer number of days').min(0).max(3650).default(0),
    autoRelease: z.boolean().default(true),
    roundingMode: z.enum(ROUNDING_MODES).default('half_up'),
  })
  .openapi('RollingReserveInput', {
    description: `${RESERVE_DESCRIPTION} Defaults: rate 0, holdDays 0, autoRelease true, roundingMode half_up.`,
  });

const ScheduleStatus = z.enum(['draft', 'active', 'archived']);

export const FeeScheduleSchema = z
  .object({
    id: Uuid,
    tenantId: Uuid.nullable().openapi({ description: 'null for a platform schedule (created by the platform without a tenant).' }),
    createdBy: z.string().nullable(),
    name: z.string(),
    description: z.string().nullable(),
    status: ScheduleStatus,
    rules: z.array(FeeRuleSchema),
    rollingReserve: RollingReserveSchema,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    deletedAt: NullableTimestamp,
    activatedAt: NullableTimestamp,
    archivedAt: NullableTimestamp,
  })
  .strict()
  .openapi('FeeSchedule', { description: 'Fee rules and a rolling reserve. draft -> active -> archived; only a draft can be updated.' });

const Description = z.string().max(1000).nullable();
const Rules = z.array(FeeRuleInput).max(100);

export const CreateFeeScheduleBody = z
  .strictObject({
    name: Name,
    description: Description.optional(),
    rules: Rules.default([]),
    rollingReserve: RollingReserveInput.optional().openapi({
      description:
        'A schedule that states rollingReserve.rate (even 0, which waives) decides the reserve at its level; one that does not inherits it from less specific levels.',
    }),
    tenantId: refersTo('tenant', Uuid).optional().openapi({
      description:
        'Platform callers: the tenant the schedule belongs to; omitted, it is a platform schedule (for platform-level assignments).',
    }),
  })
  .openapi('CreateFeeScheduleRequest');

export const UpdateFeeScheduleBody = z
  .strictObject({
    name: Name.optional(),
    description: Description.optional(),
    rules: Rules.optional().openapi({ description: 'Replaces the whole list.' }),
    rollingReserve: RollingReserveInput.optional().openapi({
      description: 'Replaces the whole object (omitted fields take their defaults).',
    }),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'provide at least one of name, description, rules, rollingReserve' })
  .openapi('UpdateFeeScheduleRequest');

export const ListFeeSchedulesQuery = listQuery({
  status: ScheduleStatus.optional(),
  tenantId: refersTo('tenant', Uuid).optional().openapi({ description: "Platform callers: only this tenant's schedules." }),
});

// Fee assignments

const ASSIGNMENT_DESCRIPTION =
  'Assigns an active fee schedule to a level and target for one currency and payment method from effectiveFrom (default now) to effectiveTo (null: open-ended). status is derived: closed once effectiveTo has passed, open otherwise. Two assignments of the same level, target, currency and payment method may not overlap in time (409 FEE_ASSIGNMENT_OVERLAP): close the current one first, or start the next one at its effectiveTo. Levels by precedence, most specific first: terminal, merchant, channel, partner, tenant, platform; for each party the fee comes from the most specific level whose schedule has rules for it.';

export const FeeAssignmentSchema = z
  .object({
    id: Uuid,
    tenantId: Uuid.nullable().openapi({ description: 'null for platform-level assignments.' }),
    targetEntityId: Uuid,
    feeScheduleId: Uuid,
    createdBy: z.string().nullable(),
    level: z.enum(FEE_LEVELS),
    currency: z.string(),
    paymentMethod: z.enum(PAYMENT_METHODS),
    effectiveFrom: Timestamp,
    effectiveTo: NullableTimestamp,
    status: z.enum(['open', 'closed']),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    deletedAt: NullableTimestamp,
  })
  .strict()
  .openapi('FeeAssignment', { description: ASSIGNMENT_DESCRIPTION });

export const CreateFeeAssignmentBody = z
  .strictObject({
    level: z.enum(FEE_LEVELS),
    targetEntityId: refersTo(
      { by: 'level', kinds: { terminal: 'terminal', merchant: 'merchant', tenant: 'tenant', channel: 'channel', partner: 'partner' } },
      Uuid,
    )
      .optional()
      .openapi({
        description: 'The terminal, merchant, channel, partner or tenant; for level platform the platform (default).',
      }),
    feeScheduleId: refersTo('feeSchedule', Uuid),
    currency: Currency,
    paymentMethod: z.enum(PAYMENT_METHODS),
    effectiveFrom: FutureDateInput.optional().openapi({ description: 'Default now.' }),
    effectiveTo: FutureDateInput.nullable().optional().openapi({ description: 'After effectiveFrom; null or omitted: open-ended.' }),
    tenantId: refersTo('tenant', Uuid)
      .optional()
      .openapi({ description: "Platform callers assigning at terminal level while terminals are not yet known: the terminal's tenant." }),
  })
  .openapi('CreateFeeAssignmentRequest', { description: ASSIGNMENT_DESCRIPTION });

export const ListFeeAssignmentsQuery = listQuery({
  level: z.enum(FEE_LEVELS).optional(),
  targetEntityId: notChecked(
    "the record an assignment targets, of any level (no level given): a filter over the caller's own assignments",
    Uuid,
  ).optional(),
  feeScheduleId: refersTo('feeSchedule', Uuid).optional(),
  currency: Currency.optional(),
  paymentMethod: z.enum(PAYMENT_METHODS).optional(),
  status: z.enum(['open', 'closed']).optional(),
  activeOnly: queryBoolean
    .optional()
    .openapi({ description: 'true: only assignments in effect now (effectiveFrom passed, effectiveTo not).' }),
  tenantId: refersTo('tenant', Uuid).optional().openapi({ description: "Platform callers: only this tenant's assignments." }),
});
