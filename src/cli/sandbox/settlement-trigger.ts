import { Op } from 'sequelize';
import { BusinessRuleError } from '../../domain/errors';
import { merchantContext } from '../context';
import type { Clock } from '../../domain/clock';
import type { Runtime } from '../../runtime';
import type { EventRow } from '../../db/models';
import { dayStart, finalizeDue } from '../../services/settlements/statements';
import { deliveriesOf, triggerPaymentEvent, type TriggeredPayment, type TriggeredReal } from './trigger';

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

export async function triggerSettlementEvent(rt: Runtime, tenantId: string, merchantId: string): Promise<TriggeredStatement> {
  const ctx = await merchantContext(rt, tenantId, merchantId, false);
  const merchant = await rt.db.models.Merchant.findOne({ where: { id: merchantId }, attributes: ['defaultCurrency'] });
  const currency = (merchant?.get('defaultCurrency') as string | null) ?? 'EUR';
  // a past day whose statement (if any) is still open: a movement of a finalized day would change what was stored
  const today = dayStart(rt.clock.now()).getTime();
  let day: Date | null = null;
  for (let back = 2; back <= LOOK_BACK_DAYS && !day; back++) {
    const candidate = new Date(today - back * DAY_MS);
    const finalized = await rt.db.models.SettlementStatement.count({ where: { merchantId, currency, livemode: false, periodStart: candidate, status: 'finalized' } });
    if (finalized === 0) day = candidate;
  }
  if (!day) throw new BusinessRuleError('EVENT_NOT_PRODUCED', `Merchant ${merchantId} has a finalized ${currency} statement on each of the last ${LOOK_BACK_DAYS} days: no past day is left to make one on.`);
  const then = runtimeAt(rt, new Date(day.getTime() + 12 * 3_600_000));
  const payment: TriggeredPayment = await triggerPaymentEvent(then, await merchantContext(then, tenantId, merchantId, false), 'payment.captured');
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
