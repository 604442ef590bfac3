import { Op } from 'sequelize';
import { inTransaction, type CallerContext } from '../../domain/context';
import { ValidationError, type FieldIssue } from '../../domain/errors';
import { isUuid, scoped, type ListParams, type Page } from '../../db/scoped';
import type { RiskAggregation, RiskCondition, RiskSignal, ScoringRuleRow } from '../../db/models/risk';
import { auditRecord, auditedDelete, auditedRecord, givenFields, lockedRecord, updateRecord } from '../audit/changes';
import { UNIT_MS } from '../limits/usage';
import { tenantForCreate } from '../partners';
import { mapPage, presentRow, type Presented } from '../present';
import { FIELDS, conditionIssues, normalizeCondition } from './conditions';
import { parseJson } from '../../util/json';
import { removeRuleFromPlans } from './plans';

/**
 * Scoring rules: conditions on the payment context (all must hold), an optional aggregation over the tenant's recent
 * payments per condition, a signal and a score impact, evaluated in priority order by the risk engine (./engine.ts).
 * A rule takes effect through the enabled antifraud plans that list it. Tenant configuration per mode.
 */

const RULE_FIELDS = [
  'id',
  'tenantId',
  'livemode',
  'name',
  'description',
  'isActive',
  'signal',
  'scoreImpact',
  'priority',
  'createdBy',
  'createdAt',
  'updatedAt',
  'deletedAt',
] as const;

export type ScoringRule = Presented<Pick<ScoringRuleRow, (typeof RULE_FIELDS)[number]>> & { conditions: RiskCondition[] };

export const ruleConditions = (row: Pick<ScoringRuleRow, 'conditions'>): RiskCondition[] => parseJson(row.conditions);

export function toScoringRule(row: ScoringRuleRow): ScoringRule {
  return {
    ...presentRow(row, RULE_FIELDS),
    scoreImpact: Number(row.scoreImpact),
    priority: Number(row.priority),
    conditions: ruleConditions(row),
  };
}

const RULE = auditedRecord<ScoringRuleRow>({
  model: (ctx) => ctx.db.models.ScoringRule,
  targetType: 'scoring_rule',
  owner: (row) => ({ tenantId: row.tenantId, livemode: row.livemode }),
  render: toScoringRule,
});

/** A condition as clients write it: aggregation and statisticWindow optional. */
export interface RiskConditionInput {
  field: RiskCondition['field'];
  operator: RiskCondition['operator'];
  value: string;
  aggregation?:
    | (Omit<RiskAggregation, 'period' | 'scope' | 'currency'> & {
        period?: RiskAggregation['period'];
        scope?: RiskAggregation['scope'];
        currency?: string | null;
      })
    | null;
  statisticWindow?: string | null;
}

const WINDOW_UNITS = { m: 'minute', h: 'hour', d: 'day', w: 'week' } as const;
const MAX_PERIOD_MS = 90 * UNIT_MS.day;

/** 10m, 1h, 1d or 7d as a period. */
export function windowPeriod(window: string): RiskAggregation['period'] | null {
  const match = /^(\d{1,4})([mhdw])$/.exec(window.trim());
  if (!match || Number(match[1]) < 1) return null;
  return { value: Number(match[1]), unit: WINDOW_UNITS[match[2] as keyof typeof WINDOW_UNITS] };
}

/** Fills the defaults of a condition (aggregation period from statisticWindow, scope tenant) and normalizes its value. */
function completeCondition(input: RiskConditionInput, path: string, issues: FieldIssue[]): RiskCondition {
  let aggregation: RiskAggregation | null = null;
  if (input.aggregation) {
    const period = input.aggregation.period ?? (input.statisticWindow ? windowPeriod(input.statisticWindow) : null);
    if (!period) {
      issues.push({
        path: `${path}.aggregation.period`,
        message: input.statisticWindow
          ? 'is missing and statisticWindow is not a window such as 10m, 1h, 1d or 7d'
          : 'is required (or give statisticWindow such as 10m, 1h, 1d)',
      });
    }
    if (period && period.value * UNIT_MS[period.unit] > MAX_PERIOD_MS) {
      issues.push({ path: `${path}.aggregation.period`, message: 'must be at most 90 days (risk looks at recent payments)' });
    }
    aggregation = {
      metric: input.aggregation.metric,
      period: period ?? { value: 1, unit: 'day' },
      scope: input.aggregation.scope?.length ? [...new Set(input.aggregation.scope)] : ['tenant'],
      identifier: input.aggregation.identifier,
      currency: input.aggregation.currency ?? null,
    };
  } else if (input.statisticWindow && !windowPeriod(input.statisticWindow)) {
    issues.push({ path: `${path}.statisticWindow`, message: 'must be a window such as 10m, 1h, 1d or 7d' });
  }
  const condition: RiskCondition = {
    field: input.field,
    operator: input.operator,
    value: String(input.value),
    aggregation,
    statisticWindow: input.statisticWindow ?? null,
  };
  const found = conditionIssues(condition, path);
  issues.push(...found);
  return found.length ? condition : normalizeCondition(condition);
}

/**
 * Checks and completes a rule's conditions: operators suit their fields, values parse, in_list names a list group of
 * the rule's tenant and mode whose entry type is the field's. 400 naming every offending path.
 */
async function checkConditions(
  ctx: CallerContext,
  tenantId: string,
  livemode: boolean,
  inputs: RiskConditionInput[],
  stored: RiskCondition[] = [],
): Promise<RiskCondition[]> {
  // a list group the rule already looks into and that was deleted since: the condition sent back as read is kept (it
  // matches nothing: the group holds no entry any more), not refused
  const storedGroups = new Set(stored.filter((c) => c.operator === 'in_list' && !c.aggregation).map((c) => `${c.field}:${c.value}`));
  const issues: FieldIssue[] = [];
  // only a condition without issues of its own has its list group looked up (in_list on a field that takes no list
  // is already refused on its operator)
  const valid = new Set<number>();
  const conditions = inputs.map((c, i) => {
    const before = issues.length;
    const condition = completeCondition(c, `body.conditions[${i}]`, issues);
    if (issues.length === before) valid.add(i);
    return condition;
  });
  const looksIntoList = (c: RiskCondition, i: number) => valid.has(i) && c.operator === 'in_list' && !c.aggregation;
  const listIds = conditions.filter(looksIntoList).map((c) => c.value);
  const groups = listIds.length
    ? new Map(
        (await scoped(ctx, ctx.db.models.ListGroup).findAll({ tenantId, livemode, id: { [Op.in]: listIds.filter(isUuid) } })).map((g) => [
          g.id,
          g,
        ]),
      )
    : new Map();
  conditions.forEach((c, i) => {
    if (!looksIntoList(c, i)) return;
    const group = groups.get(c.value);
    const expected = FIELDS[c.field].listType;
    if (!group && storedGroups.has(`${c.field}:${c.value}`)) return;
    if (!group) issues.push({ path: `body.conditions[${i}].value`, message: "is not a list group of the rule's tenant and mode" });
    else if (group.entryType !== expected)
      issues.push({
        path: `body.conditions[${i}].value`,
        message: `is a list group of ${group.entryType} entries; field ${c.field} needs one of ${expected} entries`,
      });
  });
  if (issues.length) throw new ValidationError(`Invalid scoring rule: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues);
  return conditions;
}

export interface ScoringRuleFilters {
  isActive?: boolean;
  signal?: RiskSignal;
  tenantId?: string;
}

export async function listScoringRules(ctx: CallerContext, filters: ScoringRuleFilters, page: ListParams): Promise<Page<ScoringRule>> {
  const where: Record<string, unknown> = {};
  if (filters.isActive !== undefined) where.isActive = filters.isActive;
  if (filters.signal) where.signal = filters.signal;
  if (filters.tenantId) where.tenantId = filters.tenantId;
  return mapPage(await scoped(ctx, ctx.db.models.ScoringRule).list(where, page), toScoringRule);
}

export async function getScoringRule(ctx: CallerContext, id: string): Promise<ScoringRule> {
  return toScoringRule(await scoped(ctx, ctx.db.models.ScoringRule).get(id));
}

export interface ScoringRuleInput {
  name?: string;
  description?: string | null;
  isActive?: boolean;
  conditions?: RiskConditionInput[];
  signal?: RiskSignal;
  scoreImpact?: number;
  priority?: number;
}

export async function createScoringRule(
  ctx: CallerContext,
  input: ScoringRuleInput & { name: string; conditions: RiskConditionInput[]; scoreImpact: number; priority: number; tenantId?: string },
): Promise<ScoringRule> {
  return inTransaction(ctx, async (tx) => {
    const tenantId = await tenantForCreate(tx, input.tenantId);
    const conditions = await checkConditions(tx, tenantId, tx.livemode, input.conditions);
    const row = await scoped(tx, tx.db.models.ScoringRule).create({
      tenantId,
      name: input.name,
      description: input.description ?? null,
      isActive: input.isActive ?? true,
      conditions,
      signal: input.signal ?? 'allow',
      scoreImpact: input.scoreImpact,
      priority: input.priority,
      createdBy: tx.actor.id,
    });
    const rule = toScoringRule(row);
    await auditRecord(tx, RULE, row, 'scoring_rule.created', { after: rule });
    return rule;
  });
}

/** Fields given replace the stored ones (conditions as a whole). */
export async function updateScoringRule(ctx: CallerContext, id: string, input: ScoringRuleInput): Promise<ScoringRule> {
  return toScoringRule(
    await updateRecord(
      ctx,
      RULE,
      id,
      async (row, tx) => {
        const changes: Partial<ScoringRuleRow> = givenFields(input, [
          'name',
          'description',
          'isActive',
          'signal',
          'scoreImpact',
          'priority',
        ]);
        if (input.conditions !== undefined)
          changes.conditions = await checkConditions(tx, row.tenantId, row.livemode, input.conditions, ruleConditions(row));
        return changes;
      },
      { action: 'scoring_rule.updated' },
    ),
  );
}

/** Soft delete; the rule leaves the plans that list it. */
export async function deleteScoringRule(ctx: CallerContext, id: string): Promise<ScoringRule> {
  return inTransaction(ctx, async (tx) => {
    const row = await lockedRecord(tx, RULE, id);
    await removeRuleFromPlans(tx, row);
    return toScoringRule(await auditedDelete(tx, RULE, row, { action: 'scoring_rule.deleted' }));
  });
}
