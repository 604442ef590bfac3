import { Op } from 'sequelize';
import { BusinessRuleError } from '../../../domain/errors';
import type { CallerContext } from '../../../domain/context';
import { operatorContext } from '../../access/operators';
import type { Clock } from '../../../domain/clock';
import type { Runtime } from '../../../runtime';
import type { EventRow } from '../../../db/models';
import { dayStart, finalizeDue } from '../../settlements/statements';
import { deliveriesOf, eventsOf, type TriggeredReal, payingCurrency } from './events';
import { pollUntil } from '../../../util/poll';
import { newId } from '../../../util/ids';
import { selectRows, updateRows } from '../../../db/rows';
import type { SandboxOperationRow } from '../../../db/models/sandbox';
import { deliverClaimed } from '../acquirer';
import { createSession, getSession } from '../../checkout/sessions';
import { completeCheckoutSession } from '../../checkout/completion';
import { getPayment } from '../../payments/payments';
import { releaseDue } from '../../ledger/releases';

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

const HOUR_MS = 3_600_000;
/** How long the trigger waits for the event, whoever's work (its own, or a running serve's jobs) raises it. */
const EVENT_WAIT_MS = 20_000;
const PAST_AMOUNT_MINOR = 2500;
const SUCCESS_CARD = '4242424242424242';

/**
 * A runtime whose clock reads `at` plus the time elapsed since this call, and whose sandbox acquirer answers an hour
 * after the real time: no other process's worker (a running serve's, whose clock reads today and would date the
 * capture today) takes the answer before this one delivers it itself (answerHere).
 */
function runtimeAt(rt: Runtime, at: Date): Runtime {
  const offset = rt.clock.now().getTime() - at.getTime();
  const clock: Clock = { now: () => new Date(rt.clock.now().getTime() - offset) };
  const config = { ...rt.config, sandboxDelayMs: offset + HOUR_MS };
  return Object.assign(Object.create(rt) as Runtime, { clock, config });
}

/**
 * The most recent UTC day, `daysBack` days ago or earlier, whose statement of the merchant's currency (if any) is still
 * open: a movement of a finalized day would change what was stored.
 */
async function pastDay(rt: Runtime, merchantId: string, currency: string, daysBack: number): Promise<Date> {
  const today = dayStart(rt.clock.now()).getTime();
  for (let back = daysBack; back <= daysBack + LOOK_BACK_DAYS; back++) {
    const candidate = new Date(today - back * DAY_MS);
    const finalized = await rt.db.models.SettlementStatement.count({
      where: { merchantId, currency, livemode: false, periodStart: candidate, status: 'finalized' },
    });
    if (finalized === 0) return candidate;
  }
  throw new BusinessRuleError(
    'EVENT_NOT_PRODUCED',
    `Merchant ${merchantId} has a finalized ${currency} statement on each of ${LOOK_BACK_DAYS} past days: no past day is left to make a payment on.`,
  );
}

/**
 * Delivers the sandbox acquirer's answer to the payment's attempt in this process, with the past day's clock: the
 * operation is claimed (lockedBy this worker, for a lease of real time) before any serve's worker may take it.
 */
async function answerHere(then: Runtime, realNow: Date, attemptId: string): Promise<void> {
  const { db } = then;
  const model = db.models.SandboxOperation as never;
  const workerId = `events-trigger:${process.pid}:${newId().slice(-12)}`;
  const claimed = await db.writeAlone((alone) =>
    updateRows(
      db,
      model,
      {
        lockedBy: workerId,
        lockedUntil: new Date(realNow.getTime() + 10 * 60_000),
        dueAt: then.clock.now(),
        updatedAt: then.clock.now(),
      },
      { reference: attemptId, kind: 'authorize', doneAt: null, lockedBy: null },
      alone,
    ),
  );
  if (claimed !== 1) return; // answered already (a repeated run): the payment's status says
  const [op] = await selectRows<SandboxOperationRow>(db, model, { reference: attemptId, kind: 'authorize' }, { limit: 1 });
  if (op) await deliverClaimed(then, workerId, op);
}

interface PastPayment {
  paymentId: string;
  checkoutSessionId: string;
  paidAt: string;
}

/**
 * A real sandbox payment (4242…, captured) of the merchant made at noon UTC of `day`, through the runtime's clock set
 * back: its records, ledger entries and fee are of that day, whichever process runs the jobs.
 */
async function paymentOnDay(
  rt: Runtime,
  tenantId: string,
  merchantId: string,
  currency: string,
  day: Date,
  type: string,
): Promise<PastPayment> {
  const realNow = rt.clock.now();
  const paidAt = new Date(day.getTime() + 12 * HOUR_MS);
  const then = runtimeAt(rt, paidAt);
  const ctx = operatorContext(then, { level: 'merchant', tenantId, merchantId, livemode: false });
  const session = await createSession(ctx, {
    amount: { currency, valueMinor: PAST_AMOUNT_MINOR },
    captureMethod: 'automatic',
    merchantReference: `events trigger ${type}`,
    metadata: { triggeredBy: 'payplane events trigger', eventType: type },
  });
  await completeCheckoutSession(ctx, session.id, {
    paymentMethod: {
      type: 'card',
      card: { number: SUCCESS_CARD, expMonth: 12, expYear: realNow.getUTCFullYear() + 3, cvc: '123', holderName: 'Sandbox Trigger' },
    },
  });
  const paymentId = (await getSession(ctx, session.id)).paymentId;
  if (!paymentId) throw new BusinessRuleError('EVENT_NOT_PRODUCED', `Checkout session ${session.id} has no payment.`);
  const attemptId = (await rt.db.models.Payment.findOne({ where: { id: paymentId }, attributes: ['currentAttemptId'] }))?.get(
    'currentAttemptId',
  ) as string | null;
  if (attemptId) await answerHere(then, realNow, attemptId);
  const payment = await getPayment(ctx, paymentId);
  if (payment.status !== 'captured') {
    throw new BusinessRuleError(
      'EVENT_NOT_PRODUCED',
      `The sandbox payment ${paymentId} of ${day.toISOString().slice(0, 10)} ended ${payment.status}${payment.errorCode ? ` (${payment.errorCode})` : ''}, not captured.`,
      {
        hint: "Check that the tenant has an active sandbox card terminal for the merchant's currency (payplane terminals list --tenant …).",
      },
    );
  }
  return { paymentId, checkoutSessionId: session.id, paidAt: paidAt.toISOString() };
}

/** Runs `work` (the job's own code) and reads until `find` finds what it waits for, whoever did the work; null when the time is up. */
async function workUntil<T>(work: () => Promise<unknown>, find: () => Promise<T | null | undefined>): Promise<T | null> {
  const { value } = await pollUntil(
    async () => {
      await work();
      return (await find()) ?? null;
    },
    (found) => found !== null,
    { timeoutMs: EVENT_WAIT_MS, intervalMs: 250 },
  );
  return value;
}

export interface TriggeredRelease extends TriggeredReal {
  merchantId: string;
  /** the past payment whose funds were released */
  paymentId: string;
  paidAt: string;
  released: number;
}

/**
 * balance.available for the merchant of `ctx` (merchant level, test mode): a sandbox payment made on a past day (the clock set back beyond the holding period, on a day
 * whose statement is still open), then the release job's own code moves what is due (this payment's funds, and any
 * other release already due) to available.
 */
export async function triggerBalanceAvailableEvent(rt: Runtime, ctx: CallerContext): Promise<TriggeredRelease> {
  const tenantId = ctx.tenantId!;
  const merchantId = ctx.merchantId!;
  const currency = await payingCurrency(rt, tenantId, merchantId);
  const day = await pastDay(rt, merchantId, currency, Math.max(2, Math.ceil(rt.config.holdingPeriodHours / 24) + 1));
  const startedAt = rt.clock.now();
  const payment = await paymentOnDay(rt, tenantId, merchantId, currency, day, 'balance.available');
  let released = 0;
  // the release job's own code moves what is due; a running serve's release job may move it first: the event counts
  const wanted = await workUntil(
    async () => (released += await releaseDue(rt)),
    async () => (await eventsOf(rt, ctx, startedAt, [], payment.paymentId)).find((e) => e.type === 'balance.available'),
  );
  if (!wanted)
    throw new BusinessRuleError(
      'EVENT_NOT_PRODUCED',
      `The funds of sandbox payment ${payment.paymentId} (captured on ${payment.paidAt}) were not released within ${EVENT_WAIT_MS / 1000} s.`,
    );
  const deliveries = await deliveriesOf(rt, wanted.id);
  return {
    eventId: wanted.id,
    type: 'balance.available',
    tenantId,
    merchantId,
    livemode: false,
    sample: false,
    paymentId: payment.paymentId,
    paidAt: payment.paidAt,
    released,
    deliveriesQueued: deliveries.length,
    deliveries,
  };
}

/**
 * settlement.finalized for the merchant of `ctx` (merchant level, test mode): a sandbox payment on a past day, then
 * the settlements job's own code finalizes the merchant's statements of past days.
 */
export async function triggerSettlementEvent(rt: Runtime, ctx: CallerContext): Promise<TriggeredStatement> {
  const tenantId = ctx.tenantId!;
  const merchantId = ctx.merchantId!;
  const currency = await payingCurrency(rt, tenantId, merchantId);
  const day = await pastDay(rt, merchantId, currency, 2);
  const startedAt = rt.clock.now();
  const payment = await paymentOnDay(rt, tenantId, merchantId, currency, day, 'settlement.finalized');
  const statementOf = async () =>
    rt.db.models.SettlementStatement.findOne({ where: { merchantId, currency, livemode: false, periodStart: day } });
  // the settlements job's own code finalizes the statements of past days; a running serve's may finalize it first
  const found = await workUntil(
    () => finalizeDue(ctx),
    async () => {
      const statement = await statementOf();
      if (!statement || statement.get('status') !== 'finalized') return null;
      const rows = await rt.db.models.Event.findAll({
        where: { type: 'settlement.finalized', merchantId, livemode: false, createdAt: { [Op.gte]: startedAt } },
        order: [['createdAt', 'ASC']],
      });
      const event = rows.map((r) => r.get({ plain: true }) as EventRow).find((e) => e.data?.id === statement.get('id'));
      return event ? { statement, event } : null;
    },
  );
  if (!found) {
    throw new BusinessRuleError(
      'EVENT_NOT_PRODUCED',
      `The sandbox payment ${payment.paymentId} on ${day.toISOString().slice(0, 10)} did not lead to a finalized statement within ${EVENT_WAIT_MS / 1000} s.`,
    );
  }
  const { statement, event } = found;
  const deliveries = await deliveriesOf(rt, event.id);
  return {
    eventId: event.id,
    type: 'settlement.finalized',
    tenantId,
    merchantId,
    livemode: false,
    sample: false,
    statementId: statement.get('id') as string,
    periodStart: day.toISOString(),
    currency,
    downloadUrl: String(event.data.downloadUrl),
    paymentId: payment.paymentId,
    deliveriesQueued: deliveries.length,
    deliveries,
  };
}
