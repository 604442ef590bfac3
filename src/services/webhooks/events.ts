import type { CallerContext, Level } from '../../domain/context';
import { InternalError } from '../../domain/errors';
import type { EventRow, WebhookDeliveryRow } from '../../db/models';
import { newId } from '../../util/ids';
import { redact } from '../../util/secrets';
import { viewAt, viewOf } from '../../api/views';
import { eventCatalog, eventResource, isKnownEventType, subscribes } from './catalog';
import { endpointsForEvent } from './endpoints';
import { insertLater } from '../../db/rows';

/** Date-form API version that renders event payloads. */
export const EVENT_API_VERSION = '2026-11-01';

/**
 * event.data as an endpoint of the level may see it: the data of an event type that carries a record (the catalog
 * names it) through that record's schema, as its API answer shows it; any other data by field name. What each level
 * sees is declared once, on the schemas (src/api/visibility.ts).
 */
export function renderEventData(data: unknown, level: Level, type?: string): unknown {
  const kind = type === undefined ? null : eventResource(type);
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
  const merchantVisible = eventCatalog().find((e) => e.type === event.type)?.level === 'merchant';
  const endpoints = (await endpointsForEvent(ctx, event)).filter(
    (endpoint) => subscribes(endpoint.events, event.type) && (endpoint.level !== 'merchant' || merchantVisible),
  );
  if (endpoints.length) {
    const deliveries: WebhookDeliveryRow[] = endpoints.map((endpoint) => ({
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
    }));
    await insertLater(ctx.db, WebhookDelivery as never, deliveries, ctx.transaction);
  }
  return event;
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
