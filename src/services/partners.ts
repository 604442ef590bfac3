import { UniqueConstraintError } from 'sequelize';
import { inTransaction, type CallerContext } from '../domain/context';
import { ConflictError, NotFoundError, ValidationError } from '../domain/errors';
import { scoped, type ListParams, type Page } from '../db/scoped';
import type { PartnerAssignmentRow, PartnerRow } from '../db/models';
import { recordAudit } from './audit/entries';
import { mapPage, presentRow, type Presented } from './present';
import type { Money } from '../domain/money';

// Partners (resellers and referrers of a tenant) and their assignments to merchants with a commission.

const PARTNER_FIELDS = ['id', 'tenantId', 'name', 'contactEmail', 'status', 'metadata', 'createdAt', 'updatedAt', 'deletedAt'] as const satisfies readonly (keyof PartnerRow)[];
export type Partner = Presented<Pick<PartnerRow, (typeof PARTNER_FIELDS)[number]>>;
export type PartnerStatus = PartnerRow['status'];

export function toPartner(row: PartnerRow): Partner {
  return presentRow(row, PARTNER_FIELDS);
}

const ASSIGNMENT_FIELDS = [
  'id', 'tenantId', 'partnerId', 'merchantId', 'commissionRate', 'commissionFixed', 'status', 'effectiveFrom', 'effectiveTo',
  'createdAt', 'updatedAt', 'deletedAt',
] as const satisfies readonly (keyof PartnerAssignmentRow)[];
export type PartnerAssignment = Presented<Pick<PartnerAssignmentRow, (typeof ASSIGNMENT_FIELDS)[number]>>;

export function toAssignment(row: PartnerAssignmentRow): PartnerAssignment {
  return presentRow(row, ASSIGNMENT_FIELDS);
}

/**
 * The tenant a new tenant-level record belongs to: the caller's own, or for a platform caller the body's tenantId
 * (required there). A tenant caller naming another tenant gets 404, as for any record it cannot see.
 */
export async function tenantForCreate(ctx: CallerContext, tenantId: string | undefined): Promise<string> {
  if (ctx.level === 'platform' && !tenantId) throw ValidationError.field('body.tenantId', 'is required for platform callers');
  const id = tenantId ?? ctx.tenantId!;
  const tenant = await scoped(ctx, ctx.db.models.Tenant).find(id);
  if (!tenant) throw new NotFoundError('tenant', id, { errors: [{ path: 'body.tenantId', message: 'no such tenant' }] });
  return tenant.id;
}

// Partners

export interface PartnerInput {
  name?: string;
  contactEmail?: string | null;
  metadata?: Record<string, string>;
}

export interface PartnerFilters {
  tenantId?: string;
  status?: PartnerStatus;
}

export async function listPartners(ctx: CallerContext, filters: PartnerFilters, page: ListParams): Promise<Page<Partner>> {
  const where: Record<string, unknown> = {};
  if (filters.tenantId) where.tenantId = filters.tenantId;
  if (filters.status) where.status = filters.status;
  return mapPage(await scoped(ctx, ctx.db.models.Partner).list(where, page), toPartner);
}

export async function getPartner(ctx: CallerContext, id: string): Promise<Partner> {
  return toPartner(await scoped(ctx, ctx.db.models.Partner).get(id));
}

export async function createPartner(ctx: CallerContext, input: PartnerInput & { name: string; tenantId?: string }): Promise<Partner> {
  return inTransaction(ctx, async (tx) => {
    const tenantId = await tenantForCreate(tx, input.tenantId);
    const row = await scoped(tx, tx.db.models.Partner).create({
      tenantId, name: input.name, contactEmail: input.contactEmail ?? null, status: 'active', metadata: input.metadata ?? {},
    });
    const partner = toPartner(row);
    await recordAudit(tx, { action: 'partner.created', targetType: 'partner', targetId: row.id, tenantId, after: partner });
    return partner;
  });
}

/** Changes the given fields; metadata replaces the whole map. */
export async function updatePartner(ctx: CallerContext, id: string, input: PartnerInput): Promise<Partner> {
  return inTransaction(ctx, async (tx) => {
    const access = scoped(tx, tx.db.models.Partner);
    const row = await access.get(id, { lock: true });
    const changes: Partial<PartnerRow> = {};
    if (input.name !== undefined) changes.name = input.name;
    if (input.contactEmail !== undefined) changes.contactEmail = input.contactEmail;
    if (input.metadata !== undefined) changes.metadata = input.metadata;
    const updated = await access.update(row, changes);
    await recordAudit(tx, { action: 'partner.updated', targetType: 'partner', targetId: id, tenantId: row.tenantId, before: toPartner(row), after: toPartner(updated) });
    return toPartner(updated);
  });
}

export type PartnerMove = 'activate' | 'suspend' | 'disable';

const PARTNER_MOVES: Record<PartnerMove, { from: PartnerStatus[]; to: PartnerStatus; action: string }> = {
  activate: { from: ['suspended', 'disabled'], to: 'active', action: 'partner.activated' },
  suspend: { from: ['active'], to: 'suspended', action: 'partner.suspended' },
  disable: { from: ['active', 'suspended'], to: 'disabled', action: 'partner.disabled' },
};

export async function changePartnerStatus(ctx: CallerContext, id: string, move: PartnerMove): Promise<Partner> {
  const { from, to, action } = PARTNER_MOVES[move];
  return inTransaction(ctx, async (tx) => {
    const access = scoped(tx, tx.db.models.Partner);
    const row = await access.get(id, { lock: true });
    const conflict = () =>
      new ConflictError('INVALID_STATE_TRANSITION', `A ${row.status} partner cannot be ${to === 'active' ? 'activated' : to}.`, {
        hint: `${move} applies to partners in status ${from.join(' or ')}.`,
      });
    if (!from.includes(row.status)) throw conflict();
    const updated = await access.updateIf(row, { status: row.status }, { status: to });
    if (!updated) throw conflict();
    await recordAudit(tx, { action, targetType: 'partner', targetId: id, tenantId: row.tenantId, before: toPartner(row), after: toPartner(updated) });
    return toPartner(updated);
  });
}

// Partner assignments

export interface AssignmentFields {
  commissionRate?: number;
  commissionFixed?: Money | null;
  effectiveFrom?: string;
  effectiveTo?: string | null;
}

export type CreateAssignmentInput = AssignmentFields & { partnerId: string; merchantId: string; commissionRate: number };

export interface AssignmentFilters {
  tenantId?: string;
  partnerId?: string;
  merchantId?: string;
  status?: PartnerAssignmentRow['status'];
}

export async function listAssignments(ctx: CallerContext, filters: AssignmentFilters, page: ListParams): Promise<Page<PartnerAssignment>> {
  const where: Record<string, unknown> = {};
  for (const key of ['tenantId', 'partnerId', 'merchantId', 'status'] as const) if (filters[key]) where[key] = filters[key];
  return mapPage(await scoped(ctx, ctx.db.models.PartnerAssignment).list(where, page), toAssignment);
}

export async function getAssignment(ctx: CallerContext, id: string): Promise<PartnerAssignment> {
  return toAssignment(await scoped(ctx, ctx.db.models.PartnerAssignment).get(id));
}

function checkPeriod(from: Date, to: Date | null): void {
  if (to && to.getTime() <= from.getTime()) throw ValidationError.field('body.effectiveTo', 'must be after effectiveFrom');
}

const duplicate = () =>
  new ConflictError('PARTNER_ASSIGNMENT_EXISTS', 'The partner already has an active assignment to this merchant.', {
    hint: 'Suspend the active assignment first, or update it.',
  });

export async function createAssignment(ctx: CallerContext, input: CreateAssignmentInput): Promise<PartnerAssignment> {
  const effectiveFrom = input.effectiveFrom ? new Date(input.effectiveFrom) : ctx.clock.now();
  const effectiveTo = input.effectiveTo ? new Date(input.effectiveTo) : null;
  checkPeriod(effectiveFrom, effectiveTo);
  try {
    return await inTransaction(ctx, async (tx) => {
      const partner = await scoped(tx, tx.db.models.Partner).find(input.partnerId, { lock: true });
      if (!partner) throw new NotFoundError('partner', input.partnerId, { errors: [{ path: 'body.partnerId', message: 'no such partner' }] });
      const merchant = await scoped(tx, tx.db.models.Merchant).find(input.merchantId);
      if (!merchant) throw new NotFoundError('merchant', input.merchantId, { errors: [{ path: 'body.merchantId', message: 'no such merchant' }] });
      if (merchant.tenantId !== partner.tenantId) throw ValidationError.field('body.merchantId', 'belongs to another tenant than the partner');
      if (partner.status !== 'active') {
        throw new ConflictError('PARTNER_NOT_ACTIVE', `A ${partner.status} partner cannot be assigned to a merchant.`, { hint: 'Activate the partner first.' });
      }
      const access = scoped(tx, tx.db.models.PartnerAssignment);
      if (await access.findOne({ partnerId: partner.id, merchantId: merchant.id, status: 'active' })) throw duplicate();
      const row = await access.create({
        tenantId: partner.tenantId, partnerId: partner.id, merchantId: merchant.id, commissionRate: input.commissionRate,
        commissionFixed: input.commissionFixed ?? null, status: 'active', effectiveFrom, effectiveTo,
      });
      const assignment = toAssignment(row);
      await recordAudit(tx, { action: 'partner_assignment.created', targetType: 'partner_assignment', targetId: row.id, tenantId: row.tenantId, merchantId: row.merchantId, after: assignment });
      return assignment;
    });
  } catch (error) {
    // two concurrent creates: the partial unique index lets one win
    if (error instanceof UniqueConstraintError) throw duplicate();
    throw error;
  }
}

export async function updateAssignment(ctx: CallerContext, id: string, input: AssignmentFields): Promise<PartnerAssignment> {
  return inTransaction(ctx, async (tx) => {
    const access = scoped(tx, tx.db.models.PartnerAssignment);
    const row = await access.get(id, { lock: true });
    const changes: Partial<PartnerAssignmentRow> = {};
    if (input.commissionRate !== undefined) changes.commissionRate = input.commissionRate;
    if (input.commissionFixed !== undefined) changes.commissionFixed = input.commissionFixed;
    if (input.effectiveFrom !== undefined) changes.effectiveFrom = new Date(input.effectiveFrom);
    if (input.effectiveTo !== undefined) changes.effectiveTo = input.effectiveTo === null ? null : new Date(input.effectiveTo);
    checkPeriod(new Date(changes.effectiveFrom ?? row.effectiveFrom), changes.effectiveTo === undefined ? (row.effectiveTo ? new Date(row.effectiveTo) : null) : changes.effectiveTo);
    const updated = await access.update(row, changes);
    await recordAudit(tx, {
      action: 'partner_assignment.updated', targetType: 'partner_assignment', targetId: id, tenantId: row.tenantId, merchantId: row.merchantId,
      before: toAssignment(row), after: toAssignment(updated),
    });
    return toAssignment(updated);
  });
}

/** active -> suspended; 409 otherwise. */
export async function suspendAssignment(ctx: CallerContext, id: string): Promise<PartnerAssignment> {
  return inTransaction(ctx, async (tx) => {
    const access = scoped(tx, tx.db.models.PartnerAssignment);
    const row = await access.get(id, { lock: true });
    const conflict = () =>
      new ConflictError('INVALID_STATE_TRANSITION', `A ${row.status} partner assignment cannot be suspended.`, { hint: 'suspend applies to active assignments.' });
    if (row.status !== 'active') throw conflict();
    const updated = await access.updateIf(row, { status: 'active' }, { status: 'suspended' });
    if (!updated) throw conflict();
    await recordAudit(tx, {
      action: 'partner_assignment.suspended', targetType: 'partner_assignment', targetId: id, tenantId: row.tenantId, merchantId: row.merchantId,
      before: toAssignment(row), after: toAssignment(updated),
    });
    return toAssignment(updated);
  });
}

/** The partner earning commission on a merchant's transactions: its active assignment's, or null. */
export async function activePartnerOf(tx: CallerContext, merchantId: string): Promise<string | null> {
  const assignment = await scoped(tx, tx.db.models.PartnerAssignment).findOne({ merchantId, status: 'active' });
  return assignment?.partnerId ?? null;
}
