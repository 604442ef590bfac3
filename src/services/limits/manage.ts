import { inTransaction, type CallerContext } from '../../domain/context';
import { NotFoundError, ValidationError } from '../../domain/errors';
import { scoped, type ListParams, type Page } from '../../db/scoped';
import type { LimitEntityType, LimitMetric, LimitPeriodUnit, LimitRow, LimitTransactionType } from '../../db/models';
import { auditRecord, auditedRecord } from '../audit/changes';
import { disableOnly, transition } from '../status';
import type { AuditTargetType } from '../audit/targets';
import { mapPage, presentRow, type Presented } from '../present';

/**
 * Limit records: one model for merchant, channel and (later) terminal limits. A limit caps, per period, the volume
 * (sum of amounts, in minor units of `currency`) or the count of transactions of its entity, optionally narrowed
 * by currency, payment method, brand and transaction type.
 */

const LIMIT_FIELDS = [
  'id',
  'tenantId',
  'entityId',
  'entityType',
  'metric',
  'currency',
  'paymentMethod',
  'brand',
  'transactionType',
  'status',
  'createdAt',
  'updatedAt',
  'deletedAt',
] as const satisfies readonly (keyof LimitRow)[];

export type Limit = Presented<Pick<LimitRow, (typeof LIMIT_FIELDS)[number]>> & {
  period: { value: number; unit: LimitPeriodUnit };
  threshold: number;
};

export function toLimit(row: LimitRow): Limit {
  return { ...presentRow(row, LIMIT_FIELDS), period: { value: row.periodValue, unit: row.periodUnit }, threshold: row.threshold };
}

/** A limit's audit entries name its owner's kind: each is read through its owner, with its owner's permission. */
const AUDIT_TARGET = { merchant: 'merchant_limit', channel: 'channel_limit', terminal: 'terminal_limit' } as const satisfies Record<
  LimitEntityType,
  AuditTargetType
>;

const LIMIT = auditedRecord<LimitRow>({
  model: (ctx) => ctx.db.models.Limit,
  targetType: (row) => AUDIT_TARGET[row.entityType],
  owner: (row) => ({ tenantId: row.tenantId, merchantId: row.merchantId }),
  render: toLimit,
});

const LIMIT_STATUS = disableOnly(LIMIT, 'limit.disabled', 'limit', 'limits');

export interface LimitInput {
  period: { value: number; unit: LimitPeriodUnit };
  metric: LimitMetric;
  threshold: number;
  currency?: string | null;
  paymentMethod?: string | null;
  brand?: string | null;
  transactionType?: LimitTransactionType;
}

export interface LimitOwner {
  entityType: LimitEntityType;
  entityId: string;
}

interface ResolvedEntity {
  tenantId: string;
  merchantId: string | null;
  /** currencies the entity transacts in, when it declares them (a channel) */
  currencies?: string[];
}

/**
 * How each entity type is found in the caller's scope (404 when absent or invisible). Terminals register here
 * when they land.
 */
const resolvers: Partial<Record<LimitEntityType, (ctx: CallerContext, id: string) => Promise<ResolvedEntity>>> = {
  merchant: async (ctx, id) => {
    const merchant = await scoped(ctx, ctx.db.models.Merchant).get(id);
    return { tenantId: merchant.tenantId, merchantId: merchant.id };
  },
  channel: async (ctx, id) => {
    const channel = await scoped(ctx, ctx.db.models.Channel).get(id);
    return { tenantId: channel.tenantId, merchantId: null, currencies: channel.currencies };
  },
};

/** Lets a later area (terminals) register how its entities are found. */
export function registerLimitEntity(type: LimitEntityType, resolve: (ctx: CallerContext, id: string) => Promise<ResolvedEntity>): void {
  resolvers[type] = resolve;
}

async function resolveEntity(ctx: CallerContext, owner: LimitOwner): Promise<ResolvedEntity> {
  const resolve = resolvers[owner.entityType];
  if (!resolve) throw new NotFoundError(owner.entityType, owner.entityId);
  return resolve(ctx, owner.entityId);
}

/** Rules across fields: a volume limit counts minor units of one currency, so it needs that currency. */
export function checkLimitInput(input: LimitInput, entity?: { currencies?: string[] }, path = 'body.currency'): void {
  if (input.metric === 'volume' && !input.currency) {
    throw ValidationError.field(path, 'is required when metric is volume (threshold is in minor units of this currency)');
  }
  if (input.currency && entity?.currencies && !entity.currencies.includes(input.currency)) {
    throw ValidationError.field(path, `must be one of the channel's currencies (${entity.currencies.join(', ')})`);
  }
}

export async function createLimit(ctx: CallerContext, input: LimitOwner & LimitInput): Promise<Limit> {
  checkLimitInput(input);
  return inTransaction(ctx, async (tx) => {
    const entity = await resolveEntity(tx, input);
    checkLimitInput(input, entity);
    const row = await scoped(tx, tx.db.models.Limit).create({
      tenantId: entity.tenantId,
      entityType: input.entityType,
      entityId: input.entityId,
      merchantId: entity.merchantId,
      periodValue: input.period.value,
      periodUnit: input.period.unit,
      metric: input.metric,
      threshold: input.threshold,
      currency: input.currency ?? null,
      paymentMethod: input.paymentMethod ?? null,
      brand: input.brand ?? null,
      transactionType: input.transactionType ?? 'payment',
      status: 'active',
    });
    const limit = toLimit(row);
    await auditRecord(tx, LIMIT, row, 'limit.created', { after: limit });
    return limit;
  });
}

export interface LimitFilters {
  status?: LimitRow['status'];
}

/** The limits of one entity the caller can see (404 when the entity is not visible). */
export async function listLimits(ctx: CallerContext, owner: LimitOwner, filters: LimitFilters, page: ListParams): Promise<Page<Limit>> {
  await resolveEntity(ctx, owner);
  const where: Record<string, unknown> = { entityType: owner.entityType, entityId: owner.entityId };
  if (filters.status) where.status = filters.status;
  return mapPage(await scoped(ctx, ctx.db.models.Limit).list(where, page), toLimit);
}

export async function getLimit(ctx: CallerContext, owner: LimitOwner, limitId: string): Promise<Limit> {
  await resolveEntity(ctx, owner);
  return toLimit(await limitOf(ctx, owner, limitId));
}

async function limitOf(ctx: CallerContext, owner: LimitOwner, limitId: string, lock = false): Promise<LimitRow> {
  const row = await scoped(ctx, ctx.db.models.Limit).find(limitId, { lock });
  if (!row || row.entityType !== owner.entityType || row.entityId !== owner.entityId) throw new NotFoundError('limit', limitId);
  return row;
}

/** active -> disabled; 409 when the limit is already disabled. */
export async function disableLimit(ctx: CallerContext, owner: LimitOwner, limitId: string): Promise<Limit> {
  return inTransaction(ctx, async (tx) => {
    await resolveEntity(tx, owner);
    return toLimit(await transition(tx, LIMIT_STATUS, await limitOf(tx, owner, limitId, true), 'disable'));
  });
}

/** The owner of a limit, found with the caller's scope (the CLI's `limits disable ID`). */
export async function ownerOfLimit(ctx: CallerContext, limitId: string): Promise<LimitOwner> {
  const row = await scoped(ctx, ctx.db.models.Limit).get(limitId);
  return { entityType: row.entityType, entityId: row.entityId };
}
