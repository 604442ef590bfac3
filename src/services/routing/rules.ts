import { Op, UniqueConstraintError, literal } from 'sequelize';
import { inTransaction, type CallerContext } from '../../domain/context';
import { ConflictError, ValidationError, type FieldIssue } from '../../domain/errors';
import { scoped, type ListParams, type Page } from '../../db/scoped';
import type { RoutingConditions, RoutingOutcome, RoutingRuleRow, RoutingRuleStatus } from '../../db/models';
import { auditRecord, auditedRecord, givenFields, updateRecord } from '../audit/changes';
import { moveRecord, refusedMove, statusMachine, transition, transitionIf } from '../status';
import { mapPage, presentRow, type Presented } from '../present';
import { tenantForCreate } from '../partners';
import { newId } from '../../util/ids';
import { parseJson } from '../../util/json';

/**
 * Routing rules, versioned. Each version is a record with its own id; the versions of one rule share ruleId (the
 * first version's id) and number 1, 2, 3… draft -> active -> archived: only drafts are updated or deleted;
 * activating a draft archives the rule's active version in the same transaction (a partial unique index keeps one
 * active version per rule whatever the race); clone makes a new draft version (max + 1) from any version.
 * Rules are tenant configuration without a mode; the engine that evaluates them is in ./routing.ts.
 */

const RULE_FIELDS = [
  'id',
  'ruleId',
  'version',
  'tenantId',
  'name',
  'description',
  'status',
  'priority',
  'createdBy',
  'createdAt',
  'updatedAt',
  'activatedAt',
  'archivedAt',
  'deletedAt',
] as const satisfies readonly (keyof RoutingRuleRow)[];

export type RoutingRule = Presented<Pick<RoutingRuleRow, (typeof RULE_FIELDS)[number]>> & {
  conditions: RoutingConditions;
  outcome: RoutingOutcome;
};

export function ruleConditions(row: Pick<RoutingRuleRow, 'conditions'>): RoutingConditions {
  return normalizeConditions(parseJson(row.conditions) as RoutingConditionsInput);
}

export function ruleOutcome(row: Pick<RoutingRuleRow, 'outcome'>): RoutingOutcome {
  return parseJson(row.outcome);
}

export function toRoutingRule(row: RoutingRuleRow): RoutingRule {
  return {
    ...presentRow(row, RULE_FIELDS),
    version: Number(row.version),
    priority: Number(row.priority),
    conditions: ruleConditions(row),
    outcome: ruleOutcome(row),
  };
}

const ROUTING_RULE = auditedRecord<RoutingRuleRow>({
  model: (ctx) => ctx.db.models.RoutingRule,
  targetType: 'routing_rule',
  owner: (row) => ({ tenantId: row.tenantId }),
  render: toRoutingRule,
});

export interface RoutingConditionsInput {
  amount?: { currency: string; min?: number | null; max?: number | null } | null;
  currencies?: string[] | null;
  paymentMethods?: string[] | null;
  brands?: string[] | null;
  cardCountries?: string[] | null;
  merchantIds?: string[] | null;
  channelIds?: string[] | null;
}

export function normalizeConditions(c: RoutingConditionsInput | undefined): RoutingConditions {
  const list = (v: string[] | null | undefined) => (v && v.length ? [...v] : null);
  return {
    amount: c?.amount ? { currency: c.amount.currency, min: c.amount.min ?? null, max: c.amount.max ?? null } : null,
    currencies: list(c?.currencies),
    paymentMethods: list(c?.paymentMethods),
    brands: list(c?.brands),
    cardCountries: list(c?.cardCountries),
    merchantIds: list(c?.merchantIds),
    channelIds: list(c?.channelIds),
  };
}

export interface RoutingRuleFields {
  name?: string;
  description?: string | null;
  priority?: number;
  conditions?: RoutingConditionsInput;
  outcome?: RoutingOutcome;
}

/** Terminals of an outcome in their written order. */
export function outcomeTerminals(outcome: RoutingOutcome): string[] {
  return outcome.type === 'priority' ? [...outcome.terminals] : outcome.splits.map((s) => s.terminalId);
}

/**
 * The merchants, channels and terminals a rule names must be the tenant's (terminals: payin ones); 400 naming each
 * offending field otherwise. Looked up in the caller's scope, narrowed to the rule's tenant.
 */
async function checkReferences(
  ctx: CallerContext,
  tenantId: string,
  conditions: RoutingConditions | undefined,
  outcome: RoutingOutcome | undefined,
): Promise<void> {
  const issues: FieldIssue[] = [];
  const { models } = ctx.db;
  if (conditions?.merchantIds) {
    const found = new Set(
      (await scoped(ctx, models.Merchant).findAll({ tenantId, id: { [Op.in]: conditions.merchantIds } })).map((m) => m.id),
    );
    conditions.merchantIds.forEach((id, i) => {
      if (!found.has(id)) issues.push({ path: `body.conditions.merchantIds[${i}]`, message: "is not a merchant of the rule's tenant" });
    });
  }
  if (conditions?.channelIds) {
    const found = new Set(
      (await scoped(ctx, models.Channel).findAll({ tenantId, id: { [Op.in]: conditions.channelIds } })).map((c) => c.id),
    );
    conditions.channelIds.forEach((id, i) => {
      if (!found.has(id)) issues.push({ path: `body.conditions.channelIds[${i}]`, message: "is not a channel of the rule's tenant" });
    });
  }
  if (outcome) {
    const ids = outcomeTerminals(outcome);
    const terminals = new Map((await scoped(ctx, models.Terminal).findAll({ tenantId, id: { [Op.in]: ids } })).map((t) => [t.id, t]));
    ids.forEach((id, i) => {
      const path = outcome.type === 'priority' ? `body.outcome.terminals[${i}]` : `body.outcome.splits[${i}].terminalId`;
      const terminal = terminals.get(id);
      if (!terminal) issues.push({ path, message: "is not a terminal of the rule's tenant" });
      else if (terminal.direction !== 'payin')
        issues.push({ path, message: 'is a payout terminal: routing rules route payments to payin terminals' });
    });
  }
  if (issues.length) throw new ValidationError(`Invalid routing rule: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues);
}

export interface RoutingRuleFilters {
  status?: RoutingRuleStatus;
  ruleId?: string;
  name?: string;
  tenantId?: string;
}

export async function listRoutingRules(ctx: CallerContext, filters: RoutingRuleFilters, page: ListParams): Promise<Page<RoutingRule>> {
  const conditions: Record<string | symbol, unknown>[] = [];
  if (filters.status) conditions.push({ status: filters.status });
  if (filters.ruleId) conditions.push({ ruleId: filters.ruleId });
  if (filters.tenantId) conditions.push({ tenantId: filters.tenantId });
  if (filters.name) {
    const pattern = `%${filters.name.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    conditions.push(literal(`lower("name") LIKE ${ctx.db.sequelize.escape(pattern)} ESCAPE '\\'`) as unknown as Record<string, unknown>);
  }
  const where = conditions.length ? { [Op.and]: conditions } : {};
  return mapPage(await scoped(ctx, ctx.db.models.RoutingRule).list(where, page), toRoutingRule);
}

export async function getRoutingRule(ctx: CallerContext, id: string): Promise<RoutingRule> {
  return toRoutingRule(await scoped(ctx, ctx.db.models.RoutingRule).get(id));
}

/** Every version of the rule of `id` (404 when `id` is not visible), paged like every list. */
export async function listRoutingRuleVersions(ctx: CallerContext, id: string, page: ListParams): Promise<Page<RoutingRule>> {
  const access = scoped(ctx, ctx.db.models.RoutingRule);
  const row = await access.get(id);
  return mapPage(await access.list({ ruleId: row.ruleId }, page), toRoutingRule);
}

export async function createRoutingRule(
  ctx: CallerContext,
  input: RoutingRuleFields & { name: string; outcome: RoutingOutcome; tenantId?: string },
): Promise<RoutingRule> {
  return inTransaction(ctx, async (tx) => {
    const tenantId = await tenantForCreate(tx, input.tenantId);
    const conditions = normalizeConditions(input.conditions);
    await checkReferences(tx, tenantId, conditions, input.outcome);
    const access = scoped(tx, tx.db.models.RoutingRule);
    const id = newId();
    const row = await access.create({
      id,
      ruleId: id,
      version: 1,
      tenantId,
      name: input.name,
      description: input.description ?? null,
      status: 'draft',
      priority: input.priority ?? 100,
      conditions,
      outcome: input.outcome,
      createdBy: tx.actor.id,
      activatedAt: null,
      archivedAt: null,
    });
    const rule = toRoutingRule(row);
    await auditRecord(tx, ROUTING_RULE, row, 'routing_rule.created', { after: rule });
    return rule;
  });
}

const notDraft = (row: RoutingRuleRow, what: 'updated' | 'deleted') =>
  new ConflictError('ROUTING_RULE_NOT_DRAFT', `A ${row.status} routing rule version cannot be ${what}.`, {
    hint: 'Only drafts change: clone this version into a new draft, change that and activate it.',
  });

/** Only a draft changes (409 ROUTING_RULE_NOT_DRAFT otherwise); conditions and outcome replace the whole value. */
export async function updateRoutingRule(ctx: CallerContext, id: string, input: RoutingRuleFields): Promise<RoutingRule> {
  const refused = (row: RoutingRuleRow) => notDraft(row, 'updated');
  return toRoutingRule(
    await updateRecord(
      ctx,
      ROUTING_RULE,
      id,
      async (row, tx) => {
        if (row.status !== 'draft') throw refused(row);
        const changes: Partial<RoutingRuleRow> = givenFields(input, ['name', 'description', 'priority']);
        if (input.conditions !== undefined) changes.conditions = normalizeConditions(input.conditions);
        if (input.outcome !== undefined) changes.outcome = input.outcome;
        await checkReferences(tx, row.tenantId, input.conditions !== undefined ? changes.conditions : undefined, input.outcome);
        return changes;
      },
      { action: 'routing_rule.updated', expect: { status: 'draft' }, refused },
    ),
  );
}

/** Soft-deletes a draft version (409 ROUTING_RULE_NOT_DRAFT otherwise); the rule's other versions stay. */
export async function deleteRoutingRule(ctx: CallerContext, id: string): Promise<RoutingRule> {
  const refused = (row: RoutingRuleRow) => notDraft(row, 'deleted');
  return toRoutingRule(
    await updateRecord(
      ctx,
      ROUTING_RULE,
      id,
      (row, tx) => {
        if (row.status !== 'draft') throw refused(row);
        return { deletedAt: tx.clock.now() };
      },
      { action: 'routing_rule.deleted', expect: { status: 'draft' }, refused },
    ),
  );
}

/** draft -> active (the rule's active version archived with it), active -> archived: the rule no longer routes. */
const VERSION_STATUS = statusMachine({
  record: ROUTING_RULE,
  moves: {
    activate: {
      from: ['draft'],
      to: 'active',
      action: 'routing_rule.activated',
      hint: 'activate applies to drafts: clone this version into a new draft first.',
    },
    archive: {
      from: ['active'],
      to: 'archived',
      action: 'routing_rule.archived',
      hint: 'archive applies to the active version.',
      also: (ctx) => ({ archivedAt: ctx.clock.now() }),
    },
  },
  refused: refusedMove('routing rule version'),
});

const concurrentActivation = () =>
  new ConflictError('ROUTING_RULE_CONCURRENT_ACTIVATION', 'Another version of this routing rule was activated at the same time.', {
    hint: "Read the rule's versions and retry.",
  });

/** Serializes version moves of one tenant's rules (activation and clone read the rule's other versions). */
async function lockTenant(ctx: CallerContext, tenantId: string): Promise<void> {
  await scoped(ctx, ctx.db.models.Tenant).find(tenantId, { lock: true });
}

/** draft -> active; the rule's previously active version is archived in the same transaction. */
export async function activateRoutingRule(ctx: CallerContext, id: string): Promise<RoutingRule> {
  try {
    return await inTransaction(ctx, async (tx) => {
      const access = scoped(tx, tx.db.models.RoutingRule);
      const found = await access.get(id);
      await lockTenant(tx, found.tenantId);
      const row = await access.get(id, { lock: true });
      const now = tx.clock.now();
      return toRoutingRule(
        await transition(tx, VERSION_STATUS, row, 'activate', {
          changes: { activatedAt: now },
          check: async () => {
            const previous = await access.findOne({ ruleId: row.ruleId, status: 'active' }, { lock: true });
            if (previous) {
              const archived = await transitionIf(tx, VERSION_STATUS, previous, 'archive', { changes: { archivedAt: now } });
              if (!archived) throw concurrentActivation();
            }
          },
        }),
      );
    });
  } catch (error) {
    // two activations of versions of one rule racing: the partial unique index lets one win
    if (error instanceof UniqueConstraintError) throw concurrentActivation();
    throw error;
  }
}

/** active -> archived (archivedAt set): the rule no longer routes until another version is activated. */
export async function archiveRoutingRule(ctx: CallerContext, id: string): Promise<RoutingRule> {
  return toRoutingRule(await moveRecord(ctx, VERSION_STATUS, id, 'archive'));
}

/** A new draft version (the rule's highest version + 1) with the fields of version `id` (any status). */
export async function cloneRoutingRule(ctx: CallerContext, id: string): Promise<RoutingRule> {
  try {
    return await inTransaction(ctx, async (tx) => {
      const access = scoped(tx, tx.db.models.RoutingRule);
      const found = await access.get(id);
      await lockTenant(tx, found.tenantId);
      const source = await access.get(id);
      const versions = await access.findAll({ ruleId: source.ruleId });
      const version = Math.max(...versions.map((v) => Number(v.version))) + 1;
      const row = await access.create({
        ruleId: source.ruleId,
        version,
        tenantId: source.tenantId,
        name: source.name,
        description: source.description,
        status: 'draft',
        priority: source.priority,
        conditions: ruleConditions(source),
        outcome: ruleOutcome(source),
        createdBy: tx.actor.id,
        activatedAt: null,
        archivedAt: null,
      });
      const rule = toRoutingRule(row);
      await auditRecord(tx, ROUTING_RULE, row, 'routing_rule.cloned', { before: toRoutingRule(source), after: rule });
      return rule;
    });
  } catch (error) {
    if (error instanceof UniqueConstraintError) {
      throw new ConflictError('ROUTING_RULE_CONCURRENT_CLONE', 'Another version of this routing rule was created at the same time.', {
        hint: 'Retry.',
      });
    }
    throw error;
  }
}
