import type { CallerContext, Level } from '../../domain/context';
import { InternalError } from '../../domain/errors';
import type { EventRow, WebhookDeliveryRow } from '../../db/models';
import { newId } from '../../util/ids';
import { eventCatalog, isKnownEventType, subscribes } from './catalog';
import { endpointsForEvent } from './endpoints';

/** Date-form API version that renders event payloads. */
export const EVENT_API_VERSION = '2026-11-01';

/** Fields the merchant view of event data never carries: fee decomposition and commissions, provider, routing and risk details. */
const TENANT_ONLY_FIELDS = new Set([
  'providerFee', 'tenantFee', 'platformFee', 'partnerCommission', 'commissionRate', 'feeBreakdown', 'providerReference', 'providerStatus',
  'rawProviderStatus', 'terminalId', 'providerIntegrationId', 'routing', 'routingDecision', 'risk', 'riskDecision',
]);
/** Fields only the platform view carries. */
const PLATFORM_ONLY_FIELDS = new Set(['internal']);

/** event.data as an endpoint of the level may see it (the specification's "Data scope" table). */
export function renderEventData(data: unknown, level: Level): unknown {
  if (level === 'platform') return data;
  const hidden = level === 'merchant' ? (key: string) => TENANT_ONLY_FIELDS.has(key) || PLATFORM_ONLY_FIELDS.has(key) : (key: string) => PLATFORM_ONLY_FIELDS.has(key);
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (value && typeof value === 'object' && !(value instanceof Date)) {
      return Object.fromEntries(Object.entries(value as Record<string, unknown>).filter(([k]) => !hidden(k)).map(([k, v]) => [k, walk(v)]));
    }
    return value;
  };
  return walk(data);
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
 * transaction, so the state change and its events commit together or not at all. The dispatcher sends them.
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
    data: input.data,
    apiVersion: EVENT_API_VERSION,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  };
  await Event.create(event, { transaction: ctx.transaction });
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
    await WebhookDelivery.bulkCreate(deliveries, { transaction: ctx.transaction });
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
    data: renderEventData(event.data, level),
    attempt,
    version: event.apiVersion,
  };
}
