import { Op } from 'sequelize';
import { inTransaction, type CallerContext } from '../../domain/context';
import { ConflictError, PermissionError, ValidationError, type FieldIssue } from '../../domain/errors';
import { scoped, type ListParams, type Page } from '../../db/scoped';
import type { AntifraudPlanRow, AntifraudPlanStatus, RiskThresholds } from '../../db/models/risk';
import { auditRecord, auditedDelete, auditedRecord, auditedUpdate, givenFields, lockedRecord } from '../audit/changes';
import { statusMachine, transition } from '../status';
import { tenantForCreate } from '../partners';
import { filterWhere, mapPage, presentRow, type Presented } from '../present';
import { parseJson } from '../../util/json';

/**
 * Antifraud plans: a set of scoring rules and optional score thresholds, enabled for the whole tenant (merchantId
 * null) or one merchant. The risk engine evaluates the rules of every enabled plan that applies to the payment's
 * merchant. The level that created a plan (tenant or platform) owns it: only that level deletes it.
 */

const PLAN_FIELDS = [
  'id',
  'tenantId',
  'livemode',
  'merchantId',
  'name',
  'description',
  'status',
  'ownerLevel',
  'createdBy',
  'createdAt',
  'updatedAt',
  'deletedAt',
] as const;

export type AntifraudPlan = Presented<Pick<AntifraudPlanRow, (typeof PLAN_FIELDS)[number]>> & {
  ruleIds: string[];
  thresholds: PlanThresholds;
};

export interface PlanThresholds {
  challenge: number | null;
  review: number | null;
  decline: number | null;
}

export const planRuleIds = (row: Pick<AntifraudPlanRow, 'ruleIds'>): string[] => parseJson(row.ruleIds) ?? [];
export const planThresholds = (row: Pick<AntifraudPlanRow, 'thresholds'>): PlanThresholds => {
  const t = parseJson(row.thresholds) ?? {};
  return { challenge: t.challenge ?? null, review: t.review ?? null, decline: t.decline ?? null };
};

export function toAntifraudPlan(row: AntifraudPlanRow): AntifraudPlan {
  return { ...presentRow(row, PLAN_FIELDS), ruleIds: planRuleIds(row), thresholds: planThresholds(row) };
}

const PLAN = auditedRecord<AntifraudPlanRow>({
  model: (ctx) => ctx.db.models.AntifraudPlan,
  targetType: 'antifraud_plan',
  owner: (row) => ({ tenantId: row.tenantId, livemode: row.livemode }),
  render: toAntifraudPlan,
});

/** enabled <-> disabled; the entries show the status only. */
const PLAN_STATUS = statusMachine({
  record: PLAN,
  moves: {
    enable: { from: ['disabled'], to: 'enabled', action: 'antifraud_plan.enabled' },
    disable: { from: ['enabled'], to: 'disabled', action: 'antifraud_plan.disabled' },
  },
  refused: (row, move, spec) => new ConflictError('INVALID_STATE_TRANSITION', `Antifraud plan ${row.id} is already ${spec.to}.`),
  render: (row) => ({ status: row.status }),
});

export interface AntifraudPlanInput {
  name?: string;
  description?: string | null;
  merchantId?: string | null;
  ruleIds?: string[];
  thresholds?: RiskThresholds | null;
}

/**
 * The merchant and the rules a plan names must be the plan's tenant's (rules: of its mode too); 400 naming each.
 * A rule the plan already lists (`stored`) that is gone meanwhile is dropped, not refused: a client sends back the
 * list it read, and a rule deleted since then leaves it. Returns the rule ids to store.
 */
async function checkReferences(
  ctx: CallerContext,
  tenantId: string,
  livemode: boolean,
  input: AntifraudPlanInput,
  stored: string[] = [],
): Promise<string[] | undefined> {
  let ruleIds = input.ruleIds;
  const issues: FieldIssue[] = [];
  if (input.merchantId) {
    const merchant = await scoped(ctx, ctx.db.models.Merchant).findOne({ tenantId, id: input.merchantId });
    if (!merchant) issues.push({ path: 'body.merchantId', message: "is not a merchant of the plan's tenant" });
  }
  if (input.ruleIds?.length) {
    const found = new Set(
      (await scoped(ctx, ctx.db.models.ScoringRule).findAll({ tenantId, livemode, id: { [Op.in]: input.ruleIds } })).map((r) => r.id),
    );
    const listed = new Set(stored);
    input.ruleIds.forEach((id, i) => {
      if (!found.has(id) && !listed.has(id))
        issues.push({ path: `body.ruleIds[${i}]`, message: "is not a scoring rule of the plan's tenant and mode" });
    });
    ruleIds = input.ruleIds.filter((id) => found.has(id));
  }
  const t = input.thresholds;
  if (t?.challenge != null && t.decline != null && t.challenge > t.decline)
    issues.push({ path: 'body.thresholds.challenge', message: 'must not be above thresholds.decline' });
  if (t?.review != null && t.decline != null && t.review > t.decline)
    issues.push({ path: 'body.thresholds.review', message: 'must not be above thresholds.decline' });
  if (issues.length) throw new ValidationError(`Invalid antifraud plan: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues);
  return ruleIds;
}

const cleanThresholds = (t: RiskThresholds | null | undefined): RiskThresholds | null =>
  t ? { challenge: t.challenge ?? null, review: t.review ?? null, decline: t.decline ?? null } : null;

export interface AntifraudPlanFilters {
  status?: AntifraudPlanStatus;
  merchantId?: string;
  tenantId?: string;
}

export async function listAntifraudPlans(
  ctx: CallerContext,
  filters: AntifraudPlanFilters,
  page: ListParams,
): Promise<Page<AntifraudPlan>> {
  const where: Record<string, unknown> = filterWhere(filters, ['status', 'merchantId', 'tenantId']);
  return mapPage(await scoped(ctx, ctx.db.models.AntifraudPlan).list(where, page), toAntifraudPlan);
}

export async function getAntifraudPlan(ctx: CallerContext, id: string): Promise<AntifraudPlan> {
  return toAntifraudPlan(await scoped(ctx, ctx.db.models.AntifraudPlan).get(id));
}

/** Starts disabled unless `enabled` is true: a plan takes effect when enabled. */
export async function createAntifraudPlan(
  ctx: CallerContext,
  input: AntifraudPlanInput & { name: string; tenantId?: string; enabled?: boolean },
): Promise<AntifraudPlan> {
  return inTransaction(ctx, async (tx) => {
    const tenantId = await tenantForCreate(tx, input.tenantId);
    await checkReferences(tx, tenantId, tx.livemode, input);
    const row = await scoped(tx, tx.db.models.AntifraudPlan).create({
      tenantId,
      merchantId: input.merchantId ?? null,
      name: input.name,
      description: input.description ?? null,
      status: input.enabled ? 'enabled' : 'disabled',
      ruleIds: [...new Set(input.ruleIds ?? [])],
      thresholds: cleanThresholds(input.thresholds),
      ownerLevel: tx.level === 'platform' ? 'platform' : 'tenant',
      createdBy: tx.actor.id,
    });
    const plan = toAntifraudPlan(row);
    await auditRecord(tx, PLAN, row, 'antifraud_plan.created', { after: plan });
    return plan;
  });
}

/** Fields given replace the stored ones (ruleIds and thresholds as a whole). */
export async function updateAntifraudPlan(ctx: CallerContext, id: string, input: AntifraudPlanInput): Promise<AntifraudPlan> {
  return inTransaction(ctx, async (tx) => {
    const row = await lockedRecord(tx, PLAN, id);
    assertOwner(tx, row, 'change');
    scoped(tx, tx.db.models.AntifraudPlan).assertWritable(row); // a caller limited to some merchants: 403 on a tenant-wide plan (a new merchantId is checked as it is written)
    const current = planThresholds(row);
    const ruleIds = await checkReferences(
      tx,
      row.tenantId,
      row.livemode,
      { ...input, thresholds: input.thresholds === undefined ? current : input.thresholds },
      planRuleIds(row),
    );
    const changes: Partial<AntifraudPlanRow> = givenFields(input, ['name', 'description', 'merchantId']);
    if (ruleIds !== undefined) changes.ruleIds = [...new Set(ruleIds)];
    if (input.thresholds !== undefined) changes.thresholds = cleanThresholds(input.thresholds);
    return toAntifraudPlan(await auditedUpdate(tx, PLAN, row, changes, { action: 'antifraud_plan.updated' }));
  });
}

/** enabled <-> disabled, compare-and-set; 409 INVALID_STATE_TRANSITION when the plan already is. */
export async function setAntifraudPlanStatus(ctx: CallerContext, id: string, status: AntifraudPlanStatus): Promise<AntifraudPlan> {
  return inTransaction(ctx, async (tx) => {
    const row = await lockedRecord(tx, PLAN, id);
    assertOwner(tx, row, 'change');
    scoped(tx, tx.db.models.AntifraudPlan).assertWritable(row); // 403 on a tenant-wide plan for a caller limited to some merchants, whatever its status
    return toAntifraudPlan(await transition(tx, PLAN_STATUS, row, status === 'enabled' ? 'enable' : 'disable'));
  });
}

/**
 * A plan the platform put on a tenant is the platform's to change, disable and delete (a tenant could otherwise empty
 * or disable it); a tenant's own plan is the tenant's to delete. 403 ANTIFRAUD_PLAN_NOT_OWNED otherwise.
 */
function assertOwner(ctx: CallerContext, row: AntifraudPlanRow, action: 'change' | 'delete'): void {
  const callerLevel = ctx.level === 'platform' ? 'platform' : 'tenant';
  if (row.ownerLevel === callerLevel) return;
  if (action === 'change' && callerLevel === 'platform') return;
  throw new PermissionError(
    `Antifraud plan ${row.id} belongs to the ${row.ownerLevel}: only a ${row.ownerLevel} caller ${action === 'delete' ? 'deletes' : 'changes'} it.`,
    'ANTIFRAUD_PLAN_NOT_OWNED',
  );
}

/** Soft delete by the plan's owner level only (403 ANTIFRAUD_PLAN_NOT_OWNED otherwise). */
export async function deleteAntifraudPlan(ctx: CallerContext, id: string): Promise<AntifraudPlan> {
  return inTransaction(ctx, async (tx) => {
    const row = await lockedRecord(tx, PLAN, id);
    assertOwner(tx, row, 'delete');
    return toAntifraudPlan(await auditedDelete(tx, PLAN, row, { action: 'antifraud_plan.deleted' }));
  });
}

/**
 * A deleted scoring rule leaves the plans that list it (inside the deleting transaction), each change audited as an
 * update of the plan: what a client reads of a plan names only rules that exist, and it can send that list back.
 */
export async function removeRuleFromPlans(tx: CallerContext, rule: { id: string; tenantId: string; livemode: boolean }): Promise<void> {
  const access = scoped(tx, tx.db.models.AntifraudPlan);
  const plans = await access.findAll({ tenantId: rule.tenantId, livemode: rule.livemode });
  for (const plan of plans.filter((p) => planRuleIds(p).includes(rule.id)).sort((a, b) => a.id.localeCompare(b.id))) {
    await auditedUpdate(
      tx,
      PLAN,
      plan,
      { ruleIds: planRuleIds(plan).filter((id) => id !== rule.id) },
      { action: 'antifraud_plan.updated' },
    );
  }
}
