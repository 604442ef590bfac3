import { UniqueConstraintError } from 'sequelize';
import { inTransaction, type CallerContext } from '../domain/context';
import { ConflictError, NotFoundError, ValidationError } from '../domain/errors';
import { scoped, type ListParams, type Page } from '../db/scoped';
import type { PartnerAssignmentRow, PartnerRow } from '../db/models';
import { auditRecord, auditedRecord, givenFields, updateRecord } from './audit/changes';
import { accountMachine, moveRecord, ofStatus, refusedMove, statusMachine, type AccountMove } from './status';
import { filterWhere, mapPage, presentRow, type Presented } from './present';
import type { Money } from '../domain/money';

// Partners (resellers and referrers of a tenant) and their assignments to merchants with a commission.

const PARTNER_FIELDS = [
  'id',
  'tenantId',
  'name',
  'contactEmail',
  'status',
  'metadata',
  'createdAt',
  'updatedAt',
  'deletedAt',
] as const satisfies readonly (keyof PartnerRow)[];
export type Partner = Presented<Pick<PartnerRow, (typeof PARTNER_FIELDS)[number]>>;
export type PartnerStatus = PartnerRow['status'];

export function toPartner(row: PartnerRow): Partner {
  return presentRow(row, PARTNER_FIELDS);
}

const ASSIGNMENT_FIELDS = [
  'id',
  'tenantId',
  'partnerId',
  'merchantId',
  'commissionRate',
  'commissionFixed',
  'status',
  'effectiveFrom',
  'effectiveTo',
  'createdAt',
  'updatedAt',
  'deletedAt',
] as const satisfies readonly (keyof PartnerAssignmentRow)[];
export type PartnerAssignment = Presented<Pick<PartnerAssignmentRow, (typeof ASSIGNMENT_FIELDS)[number]>>;

export function toAssignment(row: PartnerAssignmentRow): PartnerAssignment {
  return presentRow(row, ASSIGNMENT_FIELDS);
}

const PARTNER = auditedRecord<PartnerRow>({
  model: (ctx) => ctx.db.models.Partner,
  targetType: 'partner',
  owner: (row) => ({ tenantId: row.tenantId }),
  render: toPartner,
});

const ASSIGNMENT = auditedRecord<PartnerAssignmentRow>({
  model: (ctx) => ctx.db.models.PartnerAssignment,
  targetType: 'partner_assignment',
  owner: (row) => ({ tenantId: row.tenantId, merchantId: row.merchantId }),
  render: toAssignment,
});

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
  const where: Record<string, unknown> = filterWhere(filters, ['tenantId', 'status']);
  return mapPage(await scoped(ctx, ctx.db.models.Partner).list(where, page), toPartner);
}

export async function getPartner(ctx: CallerContext, id: string): Promise<Partner> {
  return toPartner(await scoped(ctx, ctx.db.models.Partner).get(id));
}

export async function createPartner(ctx: CallerContext, input: PartnerInput & { name: string; tenantId?: string }): Promise<Partner> {
  return inTransaction(ctx, async (tx) => {
    const tenantId = await tenantForCreate(tx, input.tenantId);
    const row = await scoped(tx, tx.db.models.Partner).create({
      tenantId,
      name: input.name,
      contactEmail: input.contactEmail ?? null,
      status: 'active',
      metadata: input.metadata ?? {},
    });
    const partner = toPartner(row);
    await auditRecord(tx, PARTNER, row, 'partner.created', { after: partner });
    return partner;
  });
}

/** Changes the given fields; metadata replaces the whole map. */
export async function updatePartner(ctx: CallerContext, id: string, input: PartnerInput): Promise<Partner> {
  return toPartner(
    await updateRecord(ctx, PARTNER, id, () => givenFields(input, ['name', 'contactEmail', 'metadata']), { action: 'partner.updated' }),
  );
}

const PARTNER_STATUS = accountMachine(PARTNER, 'partner');

export async function changePartnerStatus(ctx: CallerContext, id: string, move: AccountMove): Promise<Partner> {
  return toPartner(await moveRecord(ctx, PARTNER_STATUS, id, move));
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
  const where: Record<string, unknown> = filterWhere(filters, ['tenantId', 'partnerId', 'merchantId', 'status']);
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
      if (!partner)
        throw new NotFoundError('partner', input.partnerId, { errors: [{ path: 'body.partnerId', message: 'no such partner' }] });
      const merchant = await scoped(tx, tx.db.models.Merchant).find(input.merchantId);
      if (!merchant)
        throw new NotFoundError('merchant', input.merchantId, { errors: [{ path: 'body.merchantId', message: 'no such merchant' }] });
      if (merchant.tenantId !== partner.tenantId)
        throw ValidationError.field('body.merchantId', 'belongs to another tenant than the partner');
      if (partner.status !== 'active') {
        throw new ConflictError('PARTNER_NOT_ACTIVE', `A ${partner.status} partner cannot be assigned to a merchant.`, {
          hint: 'Activate the partner first.',
        });
      }
      const access = scoped(tx, tx.db.models.PartnerAssignment);
      if (await access.findOne({ partnerId: partner.id, merchantId: merchant.id, status: 'active' })) throw duplicate();
      const row = await access.create({
        tenantId: partner.tenantId,
        partnerId: partner.id,
        merchantId: merchant.id,
        commissionRate: input.commissionRate,
        commissionFixed: input.commissionFixed ?? null,
        status: 'active',
        effectiveFrom,
        effectiveTo,
      });
      const assignment = toAssignment(row);
      await auditRecord(tx, ASSIGNMENT, row, 'partner_assignment.created', { after: assignment });
      return assignment;
    });
  } catch (error) {
    // two concurrent creates: the partial unique index lets one win
    if (error instanceof UniqueConstraintError) throw duplicate();
    throw error;
  }
}

export async function updateAssignment(ctx: CallerContext, id: string, input: AssignmentFields): Promise<PartnerAssignment> {
  return toAssignment(
    await updateRecord(
      ctx,
      ASSIGNMENT,
      id,
      (row) => {
        const changes: Partial<PartnerAssignmentRow> = givenFields(input, ['commissionRate', 'commissionFixed']);
        if (input.effectiveFrom !== undefined) changes.effectiveFrom = new Date(input.effectiveFrom);
        if (input.effectiveTo !== undefined) changes.effectiveTo = input.effectiveTo === null ? null : new Date(input.effectiveTo);
        checkPeriod(
          new Date(changes.effectiveFrom ?? row.effectiveFrom),
          changes.effectiveTo === undefined ? (row.effectiveTo ? new Date(row.effectiveTo) : null) : changes.effectiveTo,
        );
        return changes;
      },
      { action: 'partner_assignment.updated' },
    ),
  );
}

const ASSIGNMENT_STATUS = statusMachine({
  record: ASSIGNMENT,
  moves: { suspend: { from: ['active'], to: 'suspended', action: 'partner_assignment.suspended' } },
  refused: refusedMove('partner assignment', ofStatus('assignments')),
});

/** active -> suspended; 409 otherwise. */
export async function suspendAssignment(ctx: CallerContext, id: string): Promise<PartnerAssignment> {
  return toAssignment(await moveRecord(ctx, ASSIGNMENT_STATUS, id, 'suspend'));
}

/** The partner earning commission on a merchant's transactions: its active assignment's, or null. */
export async function activePartnerOf(tx: CallerContext, merchantId: string): Promise<string | null> {
  const assignment = await scoped(tx, tx.db.models.PartnerAssignment).findOne({ merchantId, status: 'active' });
  return assignment?.partnerId ?? null;
}
