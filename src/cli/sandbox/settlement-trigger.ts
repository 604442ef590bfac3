import { Op } from 'sequelize';
import { BusinessRuleError } from '../../domain/errors';
import { merchantContext } from '../context';
import type { Clock } from '../../domain/clock';
import type { Runtime } from '../../runtime';
import type { EventRow } from '../../db/models';
import { dayStart, finalizeDue } from '../../services/settlements/statements';
import { deliveriesOf, eventsOf, triggerPaymentEvent, type TriggeredPayment, type TriggeredReal, merchantCurrency } from './trigger';
import { releaseDue } from '../../services/ledger';

// `events trigger settlement.finalized`: a REAL statement finalized for a past day. A real sandbox payment of the
// merchant is made through the payment path on a past UTC day (the runtime's injected clock set back, as the tests move
// theirs: the same code production runs), which opens that day's statement; then the settlements job's own code
// finalizes the merchant's statements of past days, raising settlement.finalized through the outbox.

const DAY_MS = 86_400_000;
/** How far back a day with no finalized statement of the merchant is looked for. */
const LOOK_BACK_DAYS = 60;

export interface TriggeredStatement extends TriggeredReal {
  type: 'settlement.finalized';
  merchantId: string;
  statementId: string;
  periodStart: string;
  currency: string;
  downloadUrl: string;
  paymentId: string;
}

/** A runtime whose clock reads `at` plus the time elapsed since this call. */
function runtimeAt(rt: Runtime, at: Date): Runtime {
  const offset = at.getTime() - rt.clock.now().getTime();
  const clock: Clock = { now: () => new Date(rt.clock.now().getTime() + offset) };
  return Object.assign(Object.create(rt) as Runtime, { clock });
}

/**
 * The most recent UTC day, `daysBack` days ago or earlier, whose statement of the merchant's currency (if any) is still
 * open: a movement of a finalized day would change what was stored.
 */
async function pastDay(rt: Runtime, merchantId: string, currency: string, daysBack: number): Promise<Date> {
  const today = dayStart(rt.clock.now()).getTime();
  for (let back = daysBack; back <= daysBack + LOOK_BACK_DAYS; back++) {
    const candidate = new Date(today - back * DAY_MS);
    const finalized = await rt.db.models.SettlementStatement.count({ where: { merchantId, currency, livemode: false, periodStart: candidate, status: 'finalized' } });
    if (finalized === 0) return candidate;
  }
  throw new BusinessRuleError('EVENT_NOT_PRODUCED', `Merchant ${merchantId} has a finalized ${currency} statement on each of ${LOOK_BACK_DAYS} past days: no past day is left to make a payment on.`);
}

/** A real sandbox payment (4242…, captured) of the merchant made at noon UTC of `day`, through the runtime's clock set back. */
function paymentOnDay(rt: Runtime, tenantId: string, merchantId: string, day: Date): Promise<TriggeredPayment> {
  const then = runtimeAt(rt, new Date(day.getTime() + 12 * 3_600_000));
  return merchantContext(then, tenantId, merchantId, false).then((ctx) => triggerPaymentEvent(then, ctx, 'payment.captured'));
}

export interface TriggeredRelease extends TriggeredReal {
  merchantId: string;
  /** the past payment whose funds were released */
  paymentId: string;
  paidAt: string;
  released: number;
}

/**
 * balance.available: a sandbox payment made on a past day (the clock set back beyond the holding period, on a day
 * whose statement is still open), then the release job's own code moves what is due (this payment's funds, and any
 * other release already due) to available.
 */
export async function triggerBalanceAvailableEvent(rt: Runtime, tenantId: string, merchantId: string): Promise<TriggeredRelease> {
  const ctx = await merchantContext(rt, tenantId, merchantId, false);
  const currency = await merchantCurrency(rt, merchantId);
  const day = await pastDay(rt, merchantId, currency, Math.max(2, Math.ceil(rt.config.holdingPeriodHours / 24) + 1));
  const payment = await paymentOnDay(rt, tenantId, merchantId, day);
  const startedAt = rt.clock.now();
  const released = await releaseDue(rt);
  const events = await eventsOf(rt, ctx, startedAt, [], payment.paymentId);
  const wanted = events.find((e) => e.type === 'balance.available');
  if (!wanted) throw new BusinessRuleError('EVENT_NOT_PRODUCED', `The funds of sandbox payment ${payment.paymentId} (${payment.paymentStatus}) were not released.`);
  const deliveries = await deliveriesOf(rt, wanted.id);
  return {
    eventId: wanted.id, type: 'balance.available', tenantId, merchantId, livemode: false, sample: false, paymentId: payment.paymentId!,
    paidAt: new Date(day.getTime() + 12 * 3_600_000).toISOString(), released, deliveriesQueued: deliveries.length, deliveries,
  };
}

export async function triggerSettlementEvent(rt: Runtime, tenantId: string, merchantId: string): Promise<TriggeredStatement> {
  const ctx = await merchantContext(rt, tenantId, merchantId, false);
  const currency = await merchantCurrency(rt, merchantId);
  const day = await pastDay(rt, merchantId, currency, 2);
  const payment = await paymentOnDay(rt, tenantId, merchantId, day);
  const startedAt = rt.clock.now();
  await finalizeDue(ctx);
  const statement = await rt.db.models.SettlementStatement.findOne({ where: { merchantId, currency, livemode: false, periodStart: day } });
  const rows = statement
    ? await rt.db.models.Event.findAll({ where: { type: 'settlement.finalized', merchantId, livemode: false, createdAt: { [Op.gte]: startedAt } }, order: [['createdAt', 'ASC']] })
    : [];
  const event = rows.map((r) => r.get({ plain: true }) as EventRow).find((e) => e.data?.id === statement?.get('id'));
  if (!statement || !event) {
    throw new BusinessRuleError('EVENT_NOT_PRODUCED', `The sandbox payment ${payment.paymentId} on ${day.toISOString().slice(0, 10)} did not lead to a finalized statement.`);
  }
  const deliveries = await deliveriesOf(rt, event.id);
  return {
    eventId: event.id, type: 'settlement.finalized', tenantId, merchantId, livemode: false, sample: false,
    statementId: statement.get('id') as string, periodStart: day.toISOString(), currency, downloadUrl: String(event.data.downloadUrl),
    paymentId: payment.paymentId!, deliveriesQueued: deliveries.length, deliveries,
  };
}
