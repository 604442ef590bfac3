import { Op } from 'sequelize';
import type { CallerContext, Level } from '../../domain/context';
import { InternalError } from '../../domain/errors';
import { scoped, type ListParams, type Page } from '../../db/scoped';
import type { AuditEntryRow } from '../../db/models';
import { redact } from '../../util/secrets';
import { iso, mapPage } from '../present';
import { auditValueAt, isAuditTargetType, readableTargetTypes, type AuditTargetType } from './targets';

export interface AuditInput {
  action: string;
  /** the kind of record the entry is about: one declared in AUDIT_TARGETS (who may read it, and what of it) */
  targetType: AuditTargetType;
  targetId: string;
  /** tenant and merchant the target belongs to (platform callers act across tenants) */
  tenantId: string | null;
  merchantId?: string | null;
  /** the mode of the target, when it is not the caller's (a user token issuing a key of the other mode) */
  livemode?: boolean;
  before?: unknown;
  after?: unknown;
}

/**
 * Writes an audit entry in the caller's transaction: who did what to which record, before and after. It is written
 * with the transaction's other entries and its events just before the transaction commits (ScopedAccess.createLater),
 * so it commits with the change it records or not at all.
 */
export async function recordAudit(ctx: CallerContext, input: AuditInput): Promise<void> {
  // an entry nobody's read rule covers would be shown to no one, or, worse, to everyone: refused
  if (!isAuditTargetType(input.targetType))
    throw new InternalError(
      `audit entry about an undeclared kind of record: ${String(input.targetType)} (declare it in src/services/audit/targets.ts)`,
    );
  await scoped(ctx, ctx.db.models.AuditEntry).createLater({
    tenantId: ctx.level === 'platform' ? input.tenantId : undefined,
    merchantId: input.merchantId ?? ctx.merchantId ?? null,
    livemode: input.livemode,
    actorType: ctx.actor.type,
    actorId: ctx.actor.id,
    actorName: ctx.actor.name ?? null,
    action: input.action,
    targetType: input.targetType,
    targetId: input.targetId,
    before: input.before === undefined ? null : redact(input.before),
    after: input.after === undefined ? null : redact(input.after),
    requestId: ctx.requestId ?? null,
  });
}

export interface AuditEntry {
  id: string;
  tenantId: string | null;
  merchantId: string | null;
  livemode: boolean;
  /** name: the operating-system account of an operator at the terminal (os:<name>), else null */
  actor: { type: string; id: string; name: string | null };
  action: string;
  target: { type: string; id: string };
  before: unknown;
  after: unknown;
  requestId: string | null;
  createdAt: string;
}

/** The entry as a caller of the level sees it: before and after rendered as its view of the record. */
export function toAuditEntry(row: AuditEntryRow, level: Level): AuditEntry {
  return {
    id: row.id,
    tenantId: row.tenantId,
    merchantId: row.merchantId,
    livemode: row.livemode,
    actor: { type: row.actorType, id: row.actorId, name: row.actorName ?? null },
    action: row.action,
    target: { type: row.targetType, id: row.targetId },
    before: auditValueAt(row.targetType, row.before, level),
    after: auditValueAt(row.targetType, row.after, level),
    requestId: row.requestId,
    createdAt: iso(row.createdAt)!,
  };
}

export interface AuditFilters {
  action?: string;
  targetId?: string;
  actorId?: string;
}

/**
 * The caller's entries (its tenant, merchant and mode, by the scoped access) about records it may read (selected in
 * the query, so that pages and totalCount count only those), each rendered at the caller's level.
 */
export async function listAuditEntries(ctx: CallerContext, filters: AuditFilters, page: ListParams): Promise<Page<AuditEntry>> {
  const where: Record<string | symbol, unknown> = { targetType: { [Op.in]: readableTargetTypes(ctx.level, ctx.permissions) } };
  if (filters.action) where.action = filters.action;
  if (filters.targetId) where.targetId = filters.targetId;
  if (filters.actorId) where.actorId = filters.actorId;
  return mapPage(await scoped(ctx, ctx.db.models.AuditEntry).list(where, page), (row) => toAuditEntry(row, ctx.level));
}
