import { Op } from 'sequelize';
import { inTransaction, type CallerContext } from '../../domain/context';
import { elevate } from '../../domain/authority';
import { ConflictError, NotFoundError, PermissionError, ValidationError } from '../../domain/errors';
import { scoped, type ListParams, type Page } from '../../db/scoped';
import type { FeeAssignmentRow, FeeLevel, FeePaymentMethod, FeeRule, FeeScheduleRow, RollingReserve, RowModel } from '../../db/models';
import { auditRecord, auditedRecord, auditedUpdate, givenFields, lockedRecord, updateRecord } from '../audit/changes';
import { moveRecord, ofStatus, refusedMove, statusMachine, type Move } from '../status';
import { filterWhere, mapPage, presentRow, type Presented } from '../present';
import { tenantForCreate } from '../partners';
import { ensurePlatform, PLATFORM_ID } from '../tenants/platform';
import { computeFees, type ApplicableSchedule, type FeeBreakdown, type FeeTransaction } from './engine';
import { parseJson } from '../../util/json';
import type { Money } from '../../domain/money';

// Fee schedules (draft -> active -> archived) and their assignments to a level and target (open, closed), and the
// resolver that finds a transaction's applicable schedules and runs the fee engine on them.

// Fee schedules

const SCHEDULE_FIELDS = [
  'id',
  'tenantId',
  'createdBy',
  'name',
  'description',
  'status',
  'rules',
  'rollingReserve',
  'createdAt',
  'updatedAt',
  'deletedAt',
  'activatedAt',
  'archivedAt',
] as const satisfies readonly (keyof FeeScheduleRow)[];
export type FeeSchedule = Presented<Pick<FeeScheduleRow, (typeof SCHEDULE_FIELDS)[number]>>;
export type FeeScheduleStatus = FeeScheduleRow['status'];

export function toFeeSchedule(row: FeeScheduleRow): FeeSchedule {
  return { ...presentRow(row, SCHEDULE_FIELDS), rules: parseJson(row.rules), rollingReserve: parseJson(row.rollingReserve) };
}

const SCHEDULE = auditedRecord<FeeScheduleRow>({
  model: (ctx) => ctx.db.models.FeeSchedule,
  targetType: 'fee_schedule',
  owner: (row) => ({ tenantId: row.tenantId }),
  render: toFeeSchedule,
});

export const DEFAULT_ROLLING_RESERVE: RollingReserve = { rate: 0, holdDays: 0, autoRelease: true, roundingMode: 'half_up' };

export interface FeeRuleInput {
  transactionType: FeeRule['transactionType'];
  transactionOutcome?: FeeRule['transactionOutcome'];
  method: FeeRule['method'];
  party?: FeeRule['party'];
  currency: string;
  fixedAmount?: Money | null;
  percentageRate?: number | null;
  minAmount?: Money | null;
  maxAmount?: Money | null;
}

export interface FeeScheduleFields {
  name?: string;
  description?: string | null;
  rules?: FeeRuleInput[];
  rollingReserve?: Partial<RollingReserve>;
}

export function normalizeRule(rule: FeeRuleInput): FeeRule {
  return {
    transactionType: rule.transactionType,
    transactionOutcome: rule.transactionOutcome ?? 'successful',
    method: rule.method,
    party: rule.party ?? 'tenant',
    currency: rule.currency,
    fixedAmount: rule.fixedAmount ?? null,
    percentageRate: rule.percentageRate ?? null,
    minAmount: rule.minAmount ?? null,
    maxAmount: rule.maxAmount ?? null,
  };
}

function normalizeReserve(reserve: Partial<RollingReserve> | undefined): RollingReserve {
  return { ...DEFAULT_ROLLING_RESERVE, ...(reserve ?? {}) };
}

export interface FeeScheduleFilters {
  status?: FeeScheduleStatus;
  tenantId?: string;
}

export async function listFeeSchedules(ctx: CallerContext, filters: FeeScheduleFilters, page: ListParams): Promise<Page<FeeSchedule>> {
  const where: Record<string, unknown> = filterWhere(filters, ['status', 'tenantId']);
  return mapPage(await scoped(ctx, ctx.db.models.FeeSchedule).list(where, page), toFeeSchedule);
}

export async function getFeeSchedule(ctx: CallerContext, id: string): Promise<FeeSchedule> {
  return toFeeSchedule(await scoped(ctx, ctx.db.models.FeeSchedule).get(id));
}

/** Only the platform's own schedules may name the platform as the party earning a fee. */
function refusePlatformParty(rules: Array<{ party?: string }>): void {
  const issues = rules.flatMap((rule, i) =>
    rule.party === 'platform'
      ? [{ path: `body.rules[${i}].party`, message: "platform fees come only from the platform's own schedules" }]
      : [],
  );
  if (issues.length) throw new ValidationError("A tenant's fee schedule cannot set platform fees.", issues, 'PLATFORM_FEE_NOT_ALLOWED');
}

export async function createFeeSchedule(
  ctx: CallerContext,
  input: FeeScheduleFields & { name: string; tenantId?: string },
): Promise<FeeSchedule> {
  return inTransaction(ctx, async (tx) => {
    // a platform caller without tenantId makes a platform schedule (for platform-level assignments)
    const tenantId = tx.level === 'platform' && !input.tenantId ? null : await tenantForCreate(tx, input.tenantId);
    if (tenantId !== null) refusePlatformParty(input.rules ?? []);
    const row = await scoped(tx, tx.db.models.FeeSchedule).create({
      tenantId,
      createdBy: tx.actor.id,
      name: input.name,
      description: input.description ?? null,
      status: 'draft',
      rules: (input.rules ?? []).map(normalizeRule),
      rollingReserve: normalizeReserve(input.rollingReserve),
      reserveSpecified: input.rollingReserve?.rate !== undefined,
      activatedAt: null,
      archivedAt: null,
    });
    const schedule = toFeeSchedule(row);
    await auditRecord(tx, SCHEDULE, row, 'fee_schedule.created', { after: schedule });
    return schedule;
  });
}

/** Only a draft can change (409 otherwise); rules and rollingReserve replace the whole value. */
export async function updateFeeSchedule(ctx: CallerContext, id: string, input: FeeScheduleFields): Promise<FeeSchedule> {
  const notDraft = (row: FeeScheduleRow) =>
    new ConflictError('FEE_SCHEDULE_NOT_DRAFT', `A ${row.status} fee schedule cannot be updated.`, {
      hint: 'Only draft schedules change: create a new schedule, activate it and reassign.',
    });
  return toFeeSchedule(
    await updateRecord(
      ctx,
      SCHEDULE,
      id,
      (row) => {
        if (row.status !== 'draft') throw notDraft(row);
        const changes: Partial<FeeScheduleRow> = givenFields(input, ['name', 'description']);
        if (input.rules !== undefined) {
          if (row.tenantId !== null) refusePlatformParty(input.rules);
          changes.rules = input.rules.map(normalizeRule);
        }
        if (input.rollingReserve !== undefined) {
          changes.rollingReserve = normalizeReserve(input.rollingReserve);
          changes.reserveSpecified = input.rollingReserve.rate !== undefined;
        }
        return changes;
      },
      { action: 'fee_schedule.updated', expect: { status: 'draft' }, refused: notDraft },
    ),
  );
}

export type FeeScheduleMove = 'activate' | 'archive';

/** draft -> active (activatedAt set), active -> archived (archivedAt set); 409 INVALID_STATE_TRANSITION otherwise. */
const SCHEDULE_STATUS = statusMachine({
  record: SCHEDULE,
  moves: {
    activate: { from: ['draft'], to: 'active', action: 'fee_schedule.activated', also: (ctx) => ({ activatedAt: ctx.clock.now() }) },
    archive: { from: ['active'], to: 'archived', action: 'fee_schedule.archived', also: (ctx) => ({ archivedAt: ctx.clock.now() }) },
  } satisfies Record<FeeScheduleMove, Move<FeeScheduleRow, FeeScheduleStatus>>,
  refused: refusedMove('fee schedule', ofStatus('schedules')),
});

export async function changeFeeScheduleStatus(ctx: CallerContext, id: string, move: FeeScheduleMove): Promise<FeeSchedule> {
  return toFeeSchedule(await moveRecord(ctx, SCHEDULE_STATUS, id, move));
}

// Fee assignments

const ASSIGNMENT_FIELDS = [
  'id',
  'tenantId',
  'targetEntityId',
  'feeScheduleId',
  'createdBy',
  'level',
  'currency',
  'paymentMethod',
  'effectiveFrom',
  'effectiveTo',
  'createdAt',
  'updatedAt',
  'deletedAt',
] as const satisfies readonly (keyof FeeAssignmentRow)[];
export type FeeAssignment = Presented<Pick<FeeAssignmentRow, (typeof ASSIGNMENT_FIELDS)[number]>> & { status: 'open' | 'closed' };

const time = (value: Date | string | null): number | null => (value === null ? null : new Date(value).getTime());

/** closed once effectiveTo has passed; open otherwise (including assignments that start later). */
export function assignmentStatus(row: Pick<FeeAssignmentRow, 'effectiveTo'>, now: Date): 'open' | 'closed' {
  const to = time(row.effectiveTo);
  return to !== null && to <= now.getTime() ? 'closed' : 'open';
}

export function toFeeAssignment(row: FeeAssignmentRow, now: Date): FeeAssignment {
  const presented = presentRow(row, ASSIGNMENT_FIELDS);
  return { ...presented, status: assignmentStatus(row, now) };
}

const FEE_ASSIGNMENT = auditedRecord<FeeAssignmentRow>({
  model: (ctx) => ctx.db.models.FeeAssignment,
  targetType: 'fee_assignment',
  owner: (row) => ({ tenantId: row.tenantId, merchantId: row.merchantId }),
  render: toFeeAssignment,
});

export interface FeeAssignmentFilters {
  level?: FeeLevel;
  targetEntityId?: string;
  feeScheduleId?: string;
  currency?: string;
  paymentMethod?: FeePaymentMethod;
  status?: 'open' | 'closed';
  activeOnly?: boolean;
  tenantId?: string;
}

export async function listFeeAssignments(
  ctx: CallerContext,
  filters: FeeAssignmentFilters,
  page: ListParams,
): Promise<Page<FeeAssignment>> {
  const now = ctx.clock.now();
  const conditions: Record<string | symbol, unknown>[] = [];
  for (const key of ['level', 'targetEntityId', 'feeScheduleId', 'currency', 'paymentMethod', 'tenantId'] as const) {
    if (filters[key]) conditions.push({ [key]: filters[key] });
  }
  const open = { [Op.or]: [{ effectiveTo: null }, { effectiveTo: { [Op.gt]: now } }] };
  if (filters.status === 'open') conditions.push(open);
  if (filters.status === 'closed') conditions.push({ effectiveTo: { [Op.lte]: now } });
  if (filters.activeOnly) conditions.push(open, { effectiveFrom: { [Op.lte]: now } });
  const where = conditions.length ? { [Op.and]: conditions } : {};
  return mapPage(await scoped(ctx, ctx.db.models.FeeAssignment).list(where, page), (row) => toFeeAssignment(row, now));
}

export async function getFeeAssignment(ctx: CallerContext, id: string): Promise<FeeAssignment> {
  return toFeeAssignment(await scoped(ctx, ctx.db.models.FeeAssignment).get(id), ctx.clock.now());
}

export interface CreateFeeAssignmentInput {
  level: FeeLevel;
  targetEntityId?: string;
  feeScheduleId: string;
  currency: string;
  paymentMethod: FeePaymentMethod;
  effectiveFrom?: string;
  effectiveTo?: string | null;
  tenantId?: string;
}

interface Target {
  targetEntityId: string;
  tenantId: string | null;
  merchantId: string | null;
}

const TARGET_PATH = 'body.targetEntityId';
const targetMissing = (resource: string, id: string) =>
  new NotFoundError(resource, id, { errors: [{ path: TARGET_PATH, message: `no such ${resource}` }] });

type AnyRow = { id: string; tenantId: string; createdAt: Date };

/** The target of an assignment, found in the caller's scope (404 naming body.targetEntityId when absent or invisible). */
async function resolveTarget(ctx: CallerContext, input: CreateFeeAssignmentInput): Promise<Target> {
  if (input.level === 'platform') {
    if (ctx.level !== 'platform') {
      throw new PermissionError('Only the platform assigns fee schedules at platform level.', 'PLATFORM_ONLY_LEVEL', {
        errors: [{ path: 'body.level', message: 'platform is for platform callers only' }],
      });
    }
    const platform = await ensurePlatform(ctx);
    if (input.targetEntityId && input.targetEntityId !== platform.id) throw targetMissing('platform', input.targetEntityId);
    return { targetEntityId: platform.id, tenantId: null, merchantId: null };
  }
  const id = input.targetEntityId;
  if (!id) throw ValidationError.field(TARGET_PATH, `is required for level ${input.level}`);
  const { models } = ctx.db;
  const find = async (model: RowModel<AnyRow>, resource: string) => {
    const row = await scoped(ctx, model).find(id);
    if (!row) throw targetMissing(resource, id);
    return row;
  };
  switch (input.level) {
    case 'tenant': {
      const tenant = await find(models.Tenant as unknown as RowModel<AnyRow>, 'tenant');
      return { targetEntityId: tenant.id, tenantId: tenant.id, merchantId: null };
    }
    case 'merchant': {
      const merchant = await find(models.Merchant as unknown as RowModel<AnyRow>, 'merchant');
      return { targetEntityId: merchant.id, tenantId: merchant.tenantId, merchantId: merchant.id };
    }
    case 'channel': {
      const channel = await find(models.Channel as unknown as RowModel<AnyRow>, 'channel');
      return { targetEntityId: channel.id, tenantId: channel.tenantId, merchantId: null };
    }
    case 'partner': {
      const partner = await find(models.Partner as unknown as RowModel<AnyRow>, 'partner');
      return { targetEntityId: partner.id, tenantId: partner.tenantId, merchantId: null };
    }
    case 'terminal': {
      const Terminal = (models as unknown as Record<string, RowModel<AnyRow> | undefined>).Terminal;
      if (Terminal) {
        const terminal = await find(Terminal, 'terminal');
        return { targetEntityId: terminal.id, tenantId: terminal.tenantId, merchantId: null };
      }
      // terminals not built yet: the id is taken as given, in the caller's tenant (or the named one for the platform)
      return { targetEntityId: id, tenantId: await tenantForCreate(ctx, input.tenantId), merchantId: null };
    }
  }
}

function overlaps(aFrom: number, aTo: number | null, bFrom: number, bTo: number | null): boolean {
  return (aTo === null || bFrom < aTo) && (bTo === null || aFrom < bTo);
}

/**
 * Assigns an ACTIVE schedule (409 FEE_SCHEDULE_NOT_ACTIVE otherwise) of the target's tenant (a platform schedule
 * for level platform) to a target. Overlapping periods for the same level, target, currency and payment method
 * are refused with 409 FEE_ASSIGNMENT_OVERLAP.
 */
export async function createFeeAssignment(ctx: CallerContext, input: CreateFeeAssignmentInput): Promise<FeeAssignment> {
  const effectiveFrom = input.effectiveFrom ? new Date(input.effectiveFrom) : ctx.clock.now();
  const effectiveTo = input.effectiveTo ? new Date(input.effectiveTo) : null;
  if (effectiveTo && effectiveTo.getTime() <= effectiveFrom.getTime())
    throw ValidationError.field('body.effectiveTo', 'must be after effectiveFrom');
  return inTransaction(ctx, async (tx) => {
    const target = await resolveTarget(tx, input);
    // a tenantId names the target's tenant: a tenant the caller cannot see is 404 (as on every create), another one 400
    if (input.tenantId !== undefined && input.tenantId !== target.tenantId) {
      await tenantForCreate(tx, input.tenantId);
      throw ValidationError.field('body.tenantId', 'is not the tenant of the target');
    }
    // serialize assignment creation per tenant (per platform for platform level), so overlap checks cannot race
    if (target.tenantId) await scoped(tx, tx.db.models.Tenant).find(target.tenantId, { lock: true });
    else await scoped(tx, tx.db.models.Platform).find(PLATFORM_ID, { lock: true });
    const schedule = await scoped(tx, tx.db.models.FeeSchedule).find(input.feeScheduleId);
    if (!schedule)
      throw new NotFoundError('fee schedule', input.feeScheduleId, {
        errors: [{ path: 'body.feeScheduleId', message: 'no such fee schedule' }],
      });
    if (schedule.tenantId !== target.tenantId) {
      throw ValidationError.field(
        'body.feeScheduleId',
        target.tenantId === null
          ? 'must be a platform schedule (created by the platform without tenantId) for level platform'
          : 'belongs to another tenant than the target',
      );
    }
    if (schedule.status !== 'active') {
      throw new ConflictError('FEE_SCHEDULE_NOT_ACTIVE', `A ${schedule.status} fee schedule cannot be assigned.`, {
        hint: 'Activate the schedule first.',
      });
    }
    const access = scoped(tx, tx.db.models.FeeAssignment);
    const siblings = await access.findAll({
      level: input.level,
      targetEntityId: target.targetEntityId,
      currency: input.currency,
      paymentMethod: input.paymentMethod,
    });
    const clash = siblings.find((s) =>
      overlaps(time(s.effectiveFrom)!, time(s.effectiveTo), effectiveFrom.getTime(), effectiveTo?.getTime() ?? null),
    );
    if (clash) {
      throw new ConflictError(
        'FEE_ASSIGNMENT_OVERLAP',
        `Assignment ${clash.id} already covers this period for the same level, target, currency and payment method.`,
        {
          hint: 'Close it first, or start the new assignment at its effectiveTo.',
          instance: `/v1/admin/fee-assignments/${clash.id}`,
        },
      );
    }
    const row = await access.create({
      tenantId: target.tenantId,
      merchantId: target.merchantId,
      targetEntityId: target.targetEntityId,
      feeScheduleId: schedule.id,
      createdBy: tx.actor.id,
      level: input.level,
      currency: input.currency,
      paymentMethod: input.paymentMethod,
      effectiveFrom,
      effectiveTo,
    });
    const assignment = toFeeAssignment(row, tx.clock.now());
    await auditRecord(tx, FEE_ASSIGNMENT, row, 'fee_assignment.created', { after: assignment });
    return assignment;
  });
}

/** open -> closed: effectiveTo set to now; 409 INVALID_STATE_TRANSITION when already closed. */
export async function closeFeeAssignment(ctx: CallerContext, id: string): Promise<FeeAssignment> {
  return inTransaction(ctx, async (tx) => {
    const row = await lockedRecord(tx, FEE_ASSIGNMENT, id);
    const now = tx.clock.now();
    const conflict = () =>
      new ConflictError('INVALID_STATE_TRANSITION', 'A closed fee assignment cannot be closed.', {
        hint: 'close applies to open assignments.',
      });
    if (assignmentStatus(row, now) === 'closed') throw conflict();
    const from = new Date(row.effectiveFrom);
    const end = from.getTime() > now.getTime() ? from : now; // a future assignment closes as an empty period
    const updated = await auditedUpdate(
      tx,
      FEE_ASSIGNMENT,
      row,
      { effectiveTo: end },
      {
        action: 'fee_assignment.closed',
        expect: { effectiveTo: row.effectiveTo },
        refused: conflict,
        now,
      },
    );
    return toFeeAssignment(updated, now);
  });
}

// Resolution

/**
 * The schedules that apply to a transaction: for each level (terminal, merchant, channel, partner, tenant, platform)
 * the assignment of the transaction's target at that level, currency and payment method in effect at `at`
 * (effectiveFrom <= at < effectiveTo; the latest effectiveFrom if several), whose schedule is still active
 * (an archived schedule no longer applies). The merchant must be visible to the caller (404 otherwise); without a
 * partnerId, the merchant's active partner assignment at `at` names the partner.
 *
 * Platform-level assignments and the tenant's assignments at other levels are read with a read-only platform
 * view of the fee tables: a tenant's quote includes the platform's fee, and an operator limited to some merchants
 * gets the same fees as the whole tenant would.
 */
export async function resolveApplicableSchedules(ctx: CallerContext, tx: FeeTransaction): Promise<ApplicableSchedule[]> {
  const merchant = await scoped(ctx, ctx.db.models.Merchant).get(tx.merchantId);
  let partnerId = tx.partnerId ?? null;
  if (!partnerId) {
    const assignments = await scoped(ctx, ctx.db.models.PartnerAssignment).findAll({ merchantId: merchant.id, status: 'active' });
    const current = assignments.find(
      (a) => time(a.effectiveFrom)! <= tx.at.getTime() && (a.effectiveTo === null || time(a.effectiveTo)! > tx.at.getTime()),
    );
    partnerId = current?.partnerId ?? null;
  }
  const targets: { level: FeeLevel; id: string | null | undefined }[] = [
    { level: 'terminal', id: tx.terminalId },
    { level: 'merchant', id: merchant.id },
    { level: 'channel', id: tx.channelId },
    { level: 'partner', id: partnerId },
    { level: 'tenant', id: merchant.tenantId },
    { level: 'platform', id: PLATFORM_ID },
  ];
  const reader = elevate(ctx, 'platform', 'fee assignments of every level, the platform included');
  // every assignment of the targets, the time filtered here: the same query for every transaction (db/statements
  // keeps its answer between transactions while no fee assignment changes)
  const at = tx.at.getTime();
  const rows = (
    await scoped(reader, reader.db.models.FeeAssignment).findAll({
      [Op.and]: [
        { [Op.or]: [{ tenantId: merchant.tenantId }, { tenantId: null }] },
        { [Op.or]: targets.filter((t) => t.id).map((t) => ({ level: t.level, targetEntityId: t.id })) },
        { currency: tx.amount.currency, paymentMethod: tx.method },
      ],
    })
  ).filter((r) => time(r.effectiveFrom)! <= at && (r.effectiveTo === null || time(r.effectiveTo)! > at));
  const scheduleIds = [...new Set(rows.map((r) => r.feeScheduleId))];
  const schedules = scheduleIds.length
    ? await scoped(reader, reader.db.models.FeeSchedule).findAll({ id: { [Op.in]: scheduleIds }, status: 'active' })
    : [];
  const byId = new Map(schedules.map((s) => [s.id, s]));
  const applicable: ApplicableSchedule[] = [];
  for (const { level } of targets) {
    const candidates = rows
      .filter((r) => r.level === level && byId.has(r.feeScheduleId))
      .sort((a, b) => time(b.effectiveFrom)! - time(a.effectiveFrom)! || time(b.createdAt)! - time(a.createdAt)!);
    const chosen = candidates[0];
    if (!chosen) continue;
    const schedule = byId.get(chosen.feeScheduleId)!;
    applicable.push({
      level,
      feeScheduleId: schedule.id,
      assignmentId: chosen.id,
      rules: parseJson(schedule.rules),
      rollingReserve: parseJson(schedule.rollingReserve),
      platformOwned: schedule.tenantId === null,
      reserveSpecified: Boolean(schedule.reserveSpecified),
    });
  }
  return applicable;
}

/** The fee breakdown of a transaction: its applicable schedules from the database, then the fee engine. */
export async function resolveFees(ctx: CallerContext, tx: FeeTransaction): Promise<FeeBreakdown> {
  return computeFees(tx, await resolveApplicableSchedules(ctx, tx));
}
