import { Op } from 'sequelize';
import { BusinessRuleError } from '../../../domain/errors';
import type { CallerContext } from '../../../domain/context';
import type { Runtime } from '../../../runtime';
import type { EventRow } from '../../../db/models';

// What every sandbox trigger shares: the currency it pays in, the events its records emitted and the deliveries
// queued for the one asked for.

/** The currency the trigger pays in for a merchant: its default currency, else EUR. */
export async function merchantCurrency(rt: Runtime, merchantId: string): Promise<string> {
  const merchant = await rt.db.models.Merchant.findOne({ where: { id: merchantId }, attributes: ['defaultCurrency'] });
  return (merchant?.get('defaultCurrency') as string | null) ?? 'EUR';
}

/**
 * The currency the trigger pays in for the merchant, checked before anything is made: an active payin terminal of
 * the tenant takes it. Else EVENT_NOT_PRODUCED, and no payment is left behind.
 */
export async function payingCurrency(rt: Runtime, tenantId: string, merchantId: string): Promise<string> {
  const currency = await merchantCurrency(rt, merchantId);
  const terminals = await rt.db.models.Terminal.findAll({
    where: { tenantId, status: 'active', direction: 'payin' },
    attributes: ['supportedCurrencies'],
  });
  if (!terminals.some((t) => ((t.get('supportedCurrencies') as string[] | null) ?? []).includes(currency))) {
    throw new BusinessRuleError(
      'EVENT_NOT_PRODUCED',
      `No active payin terminal of tenant ${tenantId} takes ${currency}, the merchant's currency: a sandbox payment would fail. Nothing was made.`,
      {
        hint: `Check the tenant's terminals (payplane terminals list --tenant ${tenantId}).`,
      },
    );
  }
  return currency;
}

export interface EmittedEvent {
  id: string;
  type: string;
  createdAt: string;
  deliveriesQueued: number;
}

/** What every real `events trigger` reports: the event of the requested type and the deliveries queued for it. */
export interface TriggeredReal {
  /** the event of the requested type (the first one, when several were emitted) */
  eventId: string;
  type: string;
  tenantId: string;
  livemode: false;
  sample: false;
  deliveriesQueued: number;
  deliveries: { id: string; endpointId: string }[];
}

/**
 * What a trigger answers: the first event of `type` among `events`, the deliveries queued for it and the trigger's own
 * records; EVENT_NOT_PRODUCED (`missing`'s error) when its records did not emit one.
 */
export async function triggered<R extends object>(
  rt: Runtime,
  ctx: CallerContext,
  type: string,
  events: EmittedEvent[],
  records: R,
  missing: () => BusinessRuleError,
): Promise<TriggeredReal & { merchantId: string; events: EmittedEvent[] } & R> {
  const wanted = events.find((e) => e.type === type);
  if (!wanted) throw missing();
  const deliveries = await deliveriesOf(rt, wanted.id);
  return {
    eventId: wanted.id,
    type,
    tenantId: ctx.tenantId!,
    merchantId: ctx.merchantId!,
    livemode: false,
    sample: false,
    ...records,
    deliveriesQueued: deliveries.length,
    deliveries,
    events,
  };
}

/** The events of the tenant since `since` whose object is one of `ids` (or belongs to the payment, or was caused by it), oldest first. */
export async function eventsOf(
  rt: Runtime,
  ctx: CallerContext,
  since: Date,
  ids: string[],
  paymentId: string | null,
): Promise<EmittedEvent[]> {
  const rows = await rt.db.models.Event.findAll({
    where: { tenantId: ctx.tenantId, livemode: false, createdAt: { [Op.gte]: since } },
    order: [
      ['createdAt', 'ASC'],
      ['id', 'ASC'],
    ],
  });
  const mine = rows
    .map((r) => r.get({ plain: true }) as EventRow)
    .filter(
      (e) =>
        ids.includes(e.data?.id as string) || (paymentId !== null && (e.data?.paymentId === paymentId || e.data?.sourceId === paymentId)),
    );
  const counts = new Map<string, number>();
  if (mine.length) {
    const deliveries = await rt.db.models.WebhookDelivery.findAll({
      where: { eventId: { [Op.in]: mine.map((e) => e.id) } },
      attributes: ['eventId'],
    });
    for (const d of deliveries) counts.set(d.get('eventId') as string, (counts.get(d.get('eventId') as string) ?? 0) + 1);
  }
  return mine.map((e) => ({
    id: e.id,
    type: e.type,
    createdAt: new Date(e.createdAt).toISOString(),
    deliveriesQueued: counts.get(e.id) ?? 0,
  }));
}

/** The deliveries queued for an event, one per subscribed endpoint. */
export async function deliveriesOf(rt: Runtime, eventId: string): Promise<{ id: string; endpointId: string }[]> {
  const rows = await rt.db.models.WebhookDelivery.findAll({ where: { eventId }, attributes: ['id', 'endpointId'], order: [['id', 'ASC']] });
  return rows.map((r) => ({ id: r.get('id') as string, endpointId: r.get('endpointId') as string }));
}
