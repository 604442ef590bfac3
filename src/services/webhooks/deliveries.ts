import { Op } from 'sequelize';
import { inTransaction, type CallerContext } from '../../domain/context';
import { ConflictError } from '../../domain/errors';
import { scoped, type ListParams, type Page } from '../../db/scoped';
import type { WebhookAttemptRow, WebhookDeliveryRow, WebhookEndpointRow } from '../../db/models';
import { selectRows } from '../../db/rows';
import { auditedRecord, auditedUpdateIf } from '../audit/changes';
import { filterWhere, mapPage, presentRow, type Presented } from '../present';
import { matchesPattern } from './catalog';

const ATTEMPT_FIELDS = ['attempt', 'startedAt', 'durationMs', 'statusCode', 'success', 'error', 'responseExcerpt'] as const satisfies readonly (keyof WebhookAttemptRow)[];
const DELIVERY_FIELDS = [
  'id', 'eventId', 'eventType', 'endpointId', 'tenantId', 'merchantId', 'livemode', 'status', 'attemptCount', 'maxAttempts',
  'nextAttemptAt', 'lastAttemptAt', 'lastError', 'succeededAt', 'failedAt', 'createdAt', 'updatedAt',
] as const satisfies readonly (keyof WebhookDeliveryRow)[];

export type DeliveryAttempt = Presented<Pick<WebhookAttemptRow, (typeof ATTEMPT_FIELDS)[number]>>;
/** A delivery record (lease columns are internal); `attempts` in the single read. */
export type WebhookDelivery = Presented<Pick<WebhookDeliveryRow, (typeof DELIVERY_FIELDS)[number]>> & { attempts?: DeliveryAttempt[] };

export function toDelivery(row: WebhookDeliveryRow, attempts?: WebhookAttemptRow[]): WebhookDelivery {
  const delivery: WebhookDelivery = presentRow(row, DELIVERY_FIELDS);
  if (attempts) delivery.attempts = attempts.map((a) => presentRow(a, ATTEMPT_FIELDS));
  return delivery;
}

export interface DeliveryFilters {
  endpointId?: string;
  status?: WebhookDeliveryRow['status'];
  eventType?: string;
}

/** Delivery records in the caller's scope: a merchant its own endpoints', a tenant all of its tenant's. */
export async function listDeliveries(ctx: CallerContext, filters: DeliveryFilters, page: ListParams): Promise<Page<WebhookDelivery>> {
  const where: Record<string, unknown> = filterWhere(filters, ['endpointId', 'status', 'eventType']);
  return mapPage(await scoped(ctx, ctx.db.models.WebhookDelivery).list(where, page), (row) => toDelivery(row));
}

export async function getDelivery(ctx: CallerContext, id: string): Promise<WebhookDelivery> {
  const row = await scoped(ctx, ctx.db.models.WebhookDelivery).get(id);
  const attempts = await selectRows<WebhookAttemptRow>(ctx.db, ctx.db.models.WebhookAttempt as never, { deliveryId: id }, { transaction: ctx.transaction, orderBy: '"attempt" ASC' });
  return toDelivery(row, attempts);
}

/** Puts a failed delivery back in the queue, due now, for one more attempt. */
export async function retryDelivery(ctx: CallerContext, id: string): Promise<WebhookDelivery> {
  return inTransaction(ctx, async (tx) => {
    const access = scoped(tx, tx.db.models.WebhookDelivery);
    const row = await access.get(id, { lock: true });
    const updated = await requeue(tx, row);
    if (!updated) throw new ConflictError('DELIVERY_NOT_FAILED', `The delivery is ${row.status}; only failed deliveries can be retried.`);
    return toDelivery(updated);
  });
}

const DELIVERY = auditedRecord<WebhookDeliveryRow>({
  model: (ctx) => ctx.db.models.WebhookDelivery, targetType: 'webhook_delivery', owner: (row) => ({ tenantId: row.tenantId, merchantId: row.merchantId }),
  render: (row) => toDelivery(row),
});

async function requeue(ctx: CallerContext, row: WebhookDeliveryRow): Promise<WebhookDeliveryRow | null> {
  const [endpoint] = await selectRows<WebhookEndpointRow>(ctx.db, ctx.db.models.WebhookEndpoint as never, { id: row.endpointId, deletedAt: null }, { transaction: ctx.transaction });
  if (!endpoint || endpoint.status === 'disabled') {
    throw new ConflictError('WEBHOOK_ENDPOINT_DISABLED', 'The delivery\'s endpoint is disabled or deleted; enable it first.');
  }
  return auditedUpdateIf(
    ctx, DELIVERY, row,
    { status: 'failed' },
    { status: 'pending', maxAttempts: row.attemptCount + 1, nextAttemptAt: ctx.clock.now(), failedAt: null, lockedUntil: null, lockedBy: null },
    { action: 'webhook_delivery.retried' },
  );
}

export interface ReplaySelection {
  since: Date;
  endpointId?: string;
  /** exact type or wildcard (payment.*) */
  type?: string;
}

/** Failed deliveries of a window, oldest first: what `webhooks deliveries replay` would send again. */
export async function failedDeliveries(ctx: CallerContext, selection: ReplaySelection): Promise<WebhookDeliveryRow[]> {
  // Operator replay spans tenants and both modes: each row is requeued later in its own mode.
  const where: Record<string | symbol, unknown> = { status: 'failed', failedAt: { [Op.gte]: selection.since }, deletedAt: null };
  if (selection.endpointId) where.endpointId = selection.endpointId;
  const rows = await selectRows<WebhookDeliveryRow>(ctx.db, ctx.db.models.WebhookDelivery as never, where, { transaction: ctx.transaction, orderBy: '"failedAt" ASC, "id" ASC' });
  return rows.filter((r) => !selection.type || matchesPattern(selection.type, r.eventType));
}

export type ReplayOutcome = 'requeued' | 'skipped';

/** Requeues one failed delivery; a delivery no longer failed (replayed already, or retried) is skipped. */
export async function replayDelivery(ctx: CallerContext, row: WebhookDeliveryRow): Promise<ReplayOutcome> {
  return inTransaction(ctx, async (tx) => {
    try {
      return (await requeue(tx, row)) ? 'requeued' : 'skipped';
    } catch (error) {
      if (error instanceof ConflictError) return 'skipped';
      throw error;
    }
  });
}
