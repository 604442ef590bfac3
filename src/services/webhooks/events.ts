import { Op, type WhereOptions } from 'sequelize';
import type { CallerContext, Level } from '../../domain/context';
import { InternalError } from '../../domain/errors';
import type { EventRow, WebhookDeliveryRow, WebhookEndpointRow } from '../../db/models';
import { newId } from '../../util/ids';
import { redact } from '../../util/secrets';
import { apiViews } from '../../api/lazy-views';
import { eventCatalog, eventResource, isKnownEventType, subscribes } from './catalog';
import { insertLater, selectRows } from '../../db/rows';

/** Date-form API version that renders event payloads. */
export const EVENT_API_VERSION = '2026-11-01';

/**
 * event.data as an endpoint of the level may see it: the data of an event type that carries a record (the catalog
 * names it) through that record's schema, as its API answer shows it; any other data by field name. What each level
 * sees is declared once, on the schemas (src/api/visibility.ts).
 */
export function renderEventData(data: unknown, level: Level, type?: string): unknown {
  const kind = type === undefined ? null : eventResource(type);
  const { viewAt, viewOf } = apiViews();
  return kind ? viewOf(kind, data, level) : viewAt(undefined, data, level);
}

export interface EmitInput {
  type: string;
  /** the full (platform) representation; each endpoint receives its level's view of it */
  data: Record<string, unknown>;
  tenantId?: string | null;
  merchantId?: string | null;
  livemode?: boolean;
}

/**
 * The transactional outbox: writes the event and one delivery per subscribed endpoint in the caller's open
 * transaction, so the state change and its events commit together or not at all. The dispatcher sends them. They are
 * written just before the transaction commits, with its other events and deliveries, one INSERT per table (insertLater).
 */
export async function emitEvent(ctx: CallerContext, input: EmitInput): Promise<EventRow> {
  if (!ctx.transaction) throw new InternalError('emitEvent must run inside the transaction of the state change');
  if (!isKnownEventType(input.type)) throw new InternalError(`unknown event type ${input.type}`);
  const { Event, WebhookDelivery } = ctx.db.models;
  const now = ctx.clock.now();
  const event: EventRow = {
    id: newId(),
    type: input.type,
    tenantId: input.tenantId === undefined ? ctx.tenantId : input.tenantId,
    merchantId: input.merchantId === undefined ? ctx.merchantId : input.merchantId,
    livemode: input.livemode ?? ctx.livemode,
    // secrets never stored in an event, by the same rule as audit entries (util/secrets.ts: secret, hash, token, … fields)
    data: redact(input.data) as Record<string, unknown>,
    apiVersion: EVENT_API_VERSION,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  };
  await insertLater(ctx.db, Event as never, [event], ctx.transaction);
  const endpoints = await receivingEndpoints(ctx, event);
  if (endpoints.length)
    await insertLater(
      ctx.db,
      WebhookDelivery as never,
      endpoints.map((endpoint) => newDeliveryRow(event, endpoint, now)),
      ctx.transaction,
    );
  return event;
}

/** Endpoints that receive an event: its mode, not disabled or deleted, at a level that sees it. */
export async function endpointsForEvent(
  ctx: CallerContext,
  event: { tenantId: string | null; merchantId: string | null; livemode: boolean },
): Promise<WebhookEndpointRow[]> {
  const levels: WhereOptions<WebhookEndpointRow>[] = [{ level: 'platform' }];
  if (event.tenantId) levels.push({ level: 'tenant', tenantId: event.tenantId });
  if (event.tenantId && event.merchantId) levels.push({ level: 'merchant', tenantId: event.tenantId, merchantId: event.merchantId });
  // The outbox fans out across scopes by design: this reads every level's endpoints for the event's owner.
  return selectRows<WebhookEndpointRow>(
    ctx.db,
    ctx.db.models.WebhookEndpoint as never,
    {
      livemode: event.livemode,
      deletedAt: null,
      status: { [Op.ne]: 'disabled' },
      [Op.or]: levels,
    },
    { transaction: ctx.transaction, orderBy: '"createdAt", "id"' },
  );
}

/**
 * The endpoints that receive an event: of its mode, not disabled or deleted, at a level that sees it (a merchant
 * endpoint only its own merchant's events of merchant types), subscribed to its type. The one rule of the outbox, used
 * again when an event is resent.
 */
export async function receivingEndpoints(
  ctx: CallerContext,
  event: Pick<EventRow, 'type' | 'tenantId' | 'merchantId' | 'livemode'>,
): Promise<WebhookEndpointRow[]> {
  const merchantVisible = eventCatalog().find((e) => e.type === event.type)?.level === 'merchant';
  return (await endpointsForEvent(ctx, event)).filter((endpoint) => receives(endpoint, event.type, merchantVisible));
}

/** Whether an endpoint that may see the event's owner (endpointsForEvent) takes its type. */
function receives(endpoint: WebhookEndpointRow, type: string, merchantVisible: boolean): boolean {
  return subscribes(endpoint.events, type) && (endpoint.level !== 'merchant' || merchantVisible);
}

/**
 * Why an endpoint does not receive an event (null when it does, as receivingEndpoints decides): a deleted or disabled
 * endpoint, another mode, an owner that does not see the event, a level or a subscription without its type.
 */
export function whyNotReceiving(
  endpoint: WebhookEndpointRow,
  event: Pick<EventRow, 'type' | 'tenantId' | 'merchantId' | 'livemode'>,
): string | null {
  if (endpoint.deletedAt) return `endpoint ${endpoint.id} is deleted`;
  if (endpoint.status === 'disabled')
    return `endpoint ${endpoint.id} is disabled${endpoint.disabledReason ? ` (${endpoint.disabledReason})` : ''}`;
  if (endpoint.livemode !== event.livemode)
    return `endpoint ${endpoint.id} is a ${endpoint.livemode ? 'live' : 'test'}-mode endpoint and the event a ${event.livemode ? 'live' : 'test'}-mode event`;
  const sees =
    endpoint.level === 'platform' ||
    (endpoint.level === 'tenant' && event.tenantId !== null && endpoint.tenantId === event.tenantId) ||
    (endpoint.level === 'merchant' &&
      event.merchantId !== null &&
      endpoint.tenantId === event.tenantId &&
      endpoint.merchantId === event.merchantId);
  if (!sees)
    return `endpoint ${endpoint.id} belongs to ${endpoint.level === 'merchant' ? `merchant ${endpoint.merchantId}` : `tenant ${endpoint.tenantId}`}, which does not see this event`;
  const merchantVisible = eventCatalog().find((e) => e.type === event.type)?.level === 'merchant';
  if (endpoint.level === 'merchant' && !merchantVisible) return `${event.type} is not delivered to merchant endpoints`;
  if (!subscribes(endpoint.events, event.type))
    return `endpoint ${endpoint.id} does not subscribe to ${event.type} (its events: ${endpoint.events.join(', ')})`;
  return null;
}

/** A new delivery of the event to the endpoint, due now: what the outbox writes, and what a resend writes again. */
export function newDeliveryRow(
  event: Pick<EventRow, 'id' | 'type' | 'livemode'>,
  endpoint: WebhookEndpointRow,
  now: Date,
): WebhookDeliveryRow {
  return {
    id: newId(),
    eventId: event.id,
    eventType: event.type,
    endpointId: endpoint.id,
    tenantId: endpoint.tenantId,
    merchantId: endpoint.merchantId,
    livemode: event.livemode,
    status: 'pending',
    attemptCount: 0,
    maxAttempts: endpoint.maxAttempts,
    nextAttemptAt: now,
    lockedUntil: null,
    lockedBy: null,
    lastAttemptAt: null,
    lastError: null,
    succeededAt: null,
    failedAt: null,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  };
}

/** The delivered envelope's event object. */
export function eventEnvelope(event: EventRow, level: Level, attempt: number) {
  return {
    id: event.id,
    type: event.type,
    createdAt: new Date(event.createdAt).toISOString(),
    livemode: event.livemode,
    data: renderEventData(event.data, level, event.type),
    attempt,
    version: event.apiVersion,
  };
}
