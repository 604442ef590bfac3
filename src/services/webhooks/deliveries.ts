import { Op } from 'sequelize';
import { inTransaction, type CallerContext } from '../../domain/context';
import { ConflictError, NotFoundError } from '../../domain/errors';
import { isUuid, scoped, type ListParams, type Page } from '../../db/scoped';
import type { WebhookAttemptRow, WebhookDeliveryRow, WebhookEndpointRow } from '../../db/models';
import { insertRows, selectRows } from '../../db/rows';
import { auditRecord, auditedRecord, auditedUpdateIf } from '../audit/changes';
import { refusedMove, statusMachine, transitionIf } from '../status';
import { filterWhere, mapPage, presentRow, type Presented } from '../present';
import { matchesPattern } from './catalog';
import { newDeliveryRow, receivingEndpoints, whyNotReceiving } from './events';

const ATTEMPT_FIELDS = [
  'attempt',
  'startedAt',
  'durationMs',
  'statusCode',
  'success',
  'error',
  'responseExcerpt',
] as const satisfies readonly (keyof WebhookAttemptRow)[];
const DELIVERY_FIELDS = [
  'id',
  'eventId',
  'eventType',
  'endpointId',
  'tenantId',
  'merchantId',
  'livemode',
  'status',
  'attemptCount',
  'maxAttempts',
  'nextAttemptAt',
  'lastAttemptAt',
  'lastError',
  'succeededAt',
  'failedAt',
  'createdAt',
  'updatedAt',
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
  const attempts = await selectRows<WebhookAttemptRow>(
    ctx.db,
    ctx.db.models.WebhookAttempt as never,
    { deliveryId: id },
    { transaction: ctx.transaction, orderBy: '"attempt" ASC' },
  );
  return toDelivery(row, attempts);
}

/**
 * Sends a delivery now, whatever became of it (`webhooks deliveries retry`, POST /v1/admin/webhook-deliveries/{id}/retry):
 * a failed, canceled or succeeded delivery is opened again, its next attempt due now (its attempts so far are kept; a
 * succeeded one is sent again, as a receiver that lost it may ask). Its maxAttempts is never lowered: it stays, raised
 * by one only when the attempts were exhausted (a failed delivery gets one more); a canceled or succeeded one whose
 * attempt now fails goes on with the rest of its schedule (reopenedMaxAttempts). A pending delivery waiting for a later
 * attempt is made due now, the rest of its schedule unchanged. 409 when it is pending and due already (or an attempt
 * is on the wire), or its endpoint is disabled or deleted.
 */
export async function retryDelivery(ctx: CallerContext, id: string): Promise<WebhookDelivery> {
  return inTransaction(ctx, async (tx) => {
    const access = scoped(tx, tx.db.models.WebhookDelivery);
    const row = await access.get(id, { lock: true });
    return toDelivery(await sendNow(tx, row));
  });
}

const DELIVERY = auditedRecord<WebhookDeliveryRow>({
  model: (ctx) => ctx.db.models.WebhookDelivery,
  targetType: 'webhook_delivery',
  owner: (row) => ({ tenantId: row.tenantId, merchantId: row.merchantId }),
  render: (row) => toDelivery(row),
});

/**
 * A delivery is written pending by the outbox; the dispatcher records each attempt's outcome (moveChanges, in its one
 * UPDATE of a batch) and an endpoint disabled or deleted cancels its pending deliveries (moveRows); a caller's retry
 * or replay opens a finished one again.
 */
export const DELIVERY_STATUS = statusMachine({
  record: DELIVERY,
  moves: {
    /** an attempt failed and another is scheduled */
    reschedule: { from: ['pending'], to: 'pending', action: 'webhook_delivery.rescheduled' },
    succeed: { from: ['pending'], to: 'succeeded', action: 'webhook_delivery.succeeded' },
    fail: { from: ['pending'], to: 'failed', action: 'webhook_delivery.failed' },
    cancel: { from: ['pending'], to: 'canceled', action: 'webhook_delivery.canceled' },
    reopen: { from: ['succeeded', 'failed', 'canceled'], to: 'pending', action: 'webhook_delivery.retried' },
  },
  refused: refusedMove('webhook delivery'),
});

/** The one rule of sending a delivery now (retry and replay): the delivery due now, or a ConflictError saying why not. */
async function sendNow(ctx: CallerContext, row: WebhookDeliveryRow): Promise<WebhookDeliveryRow> {
  await requireReceivingEndpoint(ctx, row.endpointId);
  const now = ctx.clock.now();
  let updated: WebhookDeliveryRow | null;
  if (row.status === 'pending') {
    const due = row.nextAttemptAt === null || new Date(row.nextAttemptAt).getTime() <= now.getTime();
    if (due) {
      const onTheWire = row.lockedUntil !== null && new Date(row.lockedUntil).getTime() > now.getTime();
      throw new ConflictError(
        'DELIVERY_ALREADY_DUE',
        onTheWire
          ? `The delivery is pending and attempt ${row.attemptCount + 1} is being sent now; nothing to do.`
          : `The delivery is pending and already due${row.nextAttemptAt ? ` (since ${new Date(row.nextAttemptAt).toISOString()})` : ''}; a running dispatcher sends it.`,
      );
    }
    // the rest of the schedule stays: the next attempt is simply now; no lease is touched (a scheduled delivery holds none)
    updated = await auditedUpdateIf(
      ctx,
      DELIVERY,
      row,
      { status: 'pending', attemptCount: row.attemptCount },
      { nextAttemptAt: now },
      { action: 'webhook_delivery.retried' },
    );
  } else {
    updated = await transitionIf(ctx, DELIVERY_STATUS, row, 'reopen', {
      changes: {
        maxAttempts: reopenedMaxAttempts(row),
        nextAttemptAt: now,
        failedAt: null,
        succeededAt: null,
        lockedUntil: null,
        lockedBy: null,
      },
      expect: { attemptCount: row.attemptCount },
    });
  }
  if (!updated)
    throw new ConflictError(
      'DELIVERY_CHANGED',
      'The delivery changed while it was being requeued (an attempt was recorded meanwhile); read it again.',
    );
  return updated;
}

/**
 * The attempts a delivery opened again may make: its own maxAttempts (one more attempt never lowers it), raised to
 * allow the attempt now when its attempts were used up.
 */
export function reopenedMaxAttempts(row: Pick<WebhookDeliveryRow, 'attemptCount' | 'maxAttempts'>): number {
  return Math.max(row.maxAttempts, row.attemptCount + 1);
}

/** The delivery's endpoint, able to receive: 409 naming why not (deleted, or disabled and why). */
async function requireReceivingEndpoint(ctx: CallerContext, endpointId: string): Promise<WebhookEndpointRow> {
  const [endpoint] = await selectRows<WebhookEndpointRow>(
    ctx.db,
    ctx.db.models.WebhookEndpoint as never,
    { id: endpointId },
    { transaction: ctx.transaction },
  );
  if (!endpoint || endpoint.deletedAt) {
    throw new ConflictError(
      'WEBHOOK_ENDPOINT_DELETED',
      `The delivery's endpoint ${endpointId} was deleted; a deleted endpoint receives nothing.`,
      {
        hint: 'Resend the event to another endpoint instead (payplane events resend <eventId> --endpoint <id>).',
      },
    );
  }
  if (endpoint.status === 'disabled') {
    const why = endpoint.disabledReason ? ` (${endpoint.disabledReason})` : '';
    throw new ConflictError('WEBHOOK_ENDPOINT_DISABLED', `The delivery's endpoint ${endpointId} is disabled${why}; enable it first.`, {
      hint: `Enable the endpoint (status enabled), e.g. payplane webhooks endpoints update ${endpointId} --status enabled; a webhooks listen endpoint is enabled again by the next run of webhooks listen.`,
    });
  }
  return endpoint;
}

/** The statuses a replay selects: failed (attempts exhausted), canceled (endpoint disabled meanwhile), pending (waiting for a later attempt). */
export const REPLAYABLE_STATUSES = ['failed', 'canceled', 'pending'] as const;
export type ReplayableStatus = (typeof REPLAYABLE_STATUSES)[number];

export interface ReplaySelection {
  since: Date;
  /** default: failed */
  statuses?: readonly ReplayableStatus[];
  endpointId?: string;
  /** exact type or wildcard (payment.*) */
  type?: string;
}

/**
 * When a delivery came to the state a replay finds it in, the time its window is about: failed when it failed,
 * canceled when it was canceled (its last change), pending (scheduled) when its last attempt failed.
 */
export function replayTime(row: WebhookDeliveryRow): Date | null {
  const at =
    row.status === 'failed'
      ? row.failedAt
      : row.status === 'canceled'
        ? row.updatedAt
        : row.status === 'pending'
          ? row.lastAttemptAt
          : null;
  return at ? new Date(at) : null;
}

/**
 * The deliveries of a window that `webhooks deliveries replay` would send now, oldest first: of the statuses asked for
 * (failed by default), that came to it since `since` (replayTime); pending ones only while they wait for a later attempt.
 */
export async function replayableDeliveries(ctx: CallerContext, selection: ReplaySelection): Promise<WebhookDeliveryRow[]> {
  const statuses = new Set<ReplayableStatus>(selection.statuses?.length ? selection.statuses : ['failed']);
  const since = { [Op.gte]: selection.since };
  const states: Record<string, unknown>[] = [];
  if (statuses.has('failed')) states.push({ status: 'failed', failedAt: since });
  if (statuses.has('canceled')) states.push({ status: 'canceled', updatedAt: since });
  if (statuses.has('pending')) states.push({ status: 'pending', lastAttemptAt: since, nextAttemptAt: { [Op.gt]: ctx.clock.now() } });
  // Operator replay spans tenants and both modes: each row is requeued later in its own mode.
  const where: Record<string | symbol, unknown> = { deletedAt: null, [Op.or]: states };
  if (selection.endpointId) where.endpointId = selection.endpointId;
  const rows = await selectRows<WebhookDeliveryRow>(ctx.db, ctx.db.models.WebhookDelivery as never, where, {
    transaction: ctx.transaction,
    orderBy: '"createdAt" ASC, "id" ASC',
  });
  const time = (row: WebhookDeliveryRow) => replayTime(row)?.getTime() ?? 0;
  return rows
    .filter((r) => !selection.type || matchesPattern(selection.type, r.eventType))
    .sort((a, b) => time(a) - time(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export type ReplayOutcome = 'requeued' | 'skipped';

/**
 * Sends one selected delivery now, by the rule of retry (it is read again, locked, in the caller's mode); one that
 * changed since it was selected (replayed already, retried, sent) or whose endpoint is disabled or deleted is skipped.
 */
export async function replayDelivery(ctx: CallerContext, row: WebhookDeliveryRow): Promise<ReplayOutcome> {
  return inTransaction(ctx, async (tx) => {
    try {
      const current = await scoped(tx, tx.db.models.WebhookDelivery).find(row.id, { lock: true });
      if (!current || current.status !== row.status || current.attemptCount !== row.attemptCount) return 'skipped';
      await sendNow(tx, current);
      return 'requeued';
    } catch (error) {
      if (error instanceof ConflictError) return 'skipped';
      throw error;
    }
  });
}

/**
 * A fresh delivery of an event the caller sees (`payplane events resend`): to one endpoint, or to every endpoint that
 * receives it now (enabled, subscribed to its type, at a level that sees it) among the caller's own: a merchant's
 * endpoints, a tenant's and its merchants', or every one for the platform. Written as the outbox writes them (pending,
 * due now, the endpoint's maxAttempts) for the dispatcher to send; the earlier deliveries of the event stay as they are.
 * 409 when the named endpoint does not receive the event, saying why.
 */
export interface ResentEvent {
  eventId: string;
  type: string;
  tenantId: string | null;
  merchantId: string | null;
  livemode: boolean;
  /** how many fresh deliveries were written */
  deliveriesQueued: number;
  /** the fresh deliveries, pending and due now */
  deliveries: WebhookDelivery[];
}

export async function resendEvent(ctx: CallerContext, eventId: string, options: { endpointId?: string } = {}): Promise<ResentEvent> {
  return inTransaction(ctx, async (tx) => {
    const event = await scoped(tx, tx.db.models.Event).get(eventId);
    const receiving = (await receivingEndpoints(tx, event)).filter((endpoint) => ownedBy(tx, endpoint));
    let endpoints = receiving;
    if (options.endpointId !== undefined) {
      // read as it is (deleted, disabled, the other mode): the refusal says which; another owner's endpoint is not found
      const [named] = isUuid(options.endpointId)
        ? await selectRows<WebhookEndpointRow>(
            tx.db,
            tx.db.models.WebhookEndpoint as never,
            { id: options.endpointId },
            { transaction: tx.transaction },
          )
        : [];
      if (!named || !ownedBy(tx, named)) throw new NotFoundError('webhook endpoint', options.endpointId);
      endpoints = receiving.filter((endpoint) => endpoint.id === named.id);
      if (!endpoints.length) {
        const why = whyNotReceiving(named, event) ?? `endpoint ${named.id} does not receive ${event.type}`;
        throw new ConflictError('WEBHOOK_ENDPOINT_NOT_RECEIVING', `Event ${event.id} cannot be sent to endpoint ${named.id}: ${why}.`);
      }
    }
    const now = tx.clock.now();
    const rows = endpoints.map((endpoint) => newDeliveryRow(event, endpoint, now));
    await insertRows(tx.db, tx.db.models.WebhookDelivery as never, rows, tx.transaction);
    for (const row of rows) await auditRecord(tx, DELIVERY, row, 'webhook_event.resent', { after: toDelivery(row) });
    const deliveries = rows.map((row) => toDelivery(row));
    return {
      eventId: event.id,
      type: event.type,
      tenantId: event.tenantId,
      merchantId: event.merchantId,
      livemode: event.livemode,
      deliveriesQueued: deliveries.length,
      deliveries,
    };
  });
}

/** Whether the endpoint is the caller's own: the merchant's, the tenant's or one of its merchants', or any for the platform. */
function ownedBy(ctx: CallerContext, endpoint: WebhookEndpointRow): boolean {
  if (ctx.level === 'platform') return true;
  if (endpoint.tenantId !== ctx.tenantId) return false;
  return ctx.level === 'tenant' || (endpoint.level === 'merchant' && endpoint.merchantId === ctx.merchantId);
}
