import { Op, UniqueConstraintError } from 'sequelize';
import type { Runtime } from '../../runtime';
import { elevate, systemContext } from '../../domain/authority';
import { inTransaction, type CallerContext } from '../../domain/context';
import { PayplaneError } from '../../domain/errors';
import type { PayoutRow, PayoutScheduleRow } from '../../db/models/payouts';
import { scoped } from '../../db/scoped';
import { newId } from '../../util/ids';
import { formatMinor } from '../../domain/money';
import { balancesOf } from '../ledger/balances';
import { postPayout } from '../ledger/postings/payout';
import { resolveFees } from '../fees/schedules';
import { activePartnerOf } from '../partners';
import { usableMethod } from '../withdrawal-methods/methods';
import { payoutChannel, payoutTerminalOf } from '../withdrawals';
import { payoutRequest, settled, throughProvider } from '../provider-call';
import { emitEvent } from '../webhooks/events';
import { auditRecord, lockedRecord } from '../audit/changes';
import { PAYOUT, movePayout, payoutEvent, payoutPosting, toPayout, type Payout } from './payouts';
import { WEEKDAYS } from './schedule';
import { dayStart } from '../settlements/open';

/**
 * The scheduled payouts (job 'payouts', src/jobs/payouts.ts): for every merchant whose daily or weekly schedule has
 * a period due, pays out its available balance in each currency. The available balance is what is left once the
 * rolling reserve is held apart (merchant_reserve, released by the ledger-release job): the reserve never goes out.
 * The payout's fee (fee engine, transactionType payout) is taken from it: amount = available − fee, and no payout is
 * made below the schedule's minimum for the currency (nor of nothing); a period whose balance is short is looked at
 * again on the next run within it.
 *
 * Once per period across every process: the payout is inserted, in the transaction that holds its funds (available →
 * payable, ledger 'payout') and raises payout.created, under the merchant's row lock and the unique key (merchantId,
 * livemode, currency, periodKey): a second run of the period finds it, or conflicts and stops.
 *
 * Then each pending payout is sent through the payout provider (src/services/provider-call.ts: the claim is recorded
 * first, the provider called with no transaction open, the answer applied in a new one): accepted → in_transit (its
 * arrivalDate the provider's: at once for the sandbox), refused → failed (back to available, payout.failed). A
 * provider that could not be reached leaves it pending for the next run (sent again with the same reference: the
 * provider takes one payout per reference). In transit past its arrivalDate → paid (payable paid out, the fee to its
 * earners, payout.succeeded).
 */

const DAY_MS = 86_400_000;
/** a payout handed to the provider this long ago without an answer applied (the process died) is sent again */
const SEND_LEASE_MS = 5 * 60_000;

export interface SchedulePeriod {
  key: string;
  start: Date;
}

/** The schedule's period that `now` is in (null for manual), and whether it is due (it starts on or after effectiveFrom's day). */
export function periodOf(
  schedule: Pick<PayoutScheduleRow, 'interval' | 'weeklyAnchor' | 'effectiveFrom'>,
  now: Date,
): (SchedulePeriod & { due: boolean }) | null {
  const today = dayStart(now);
  let start: Date;
  if (schedule.interval === 'daily') start = today;
  else if (schedule.interval === 'weekly') {
    const anchor = WEEKDAYS.indexOf(schedule.weeklyAnchor ?? 'monday');
    start = new Date(today.getTime() - ((today.getUTCDay() - anchor + 7) % 7) * DAY_MS);
  } else return null;
  const key = `${schedule.interval}:${start.toISOString().slice(0, 10)}`;
  return { key, start, due: start.getTime() >= dayStart(new Date(schedule.effectiveFrom)).getTime() };
}

export interface PayoutRunSkip {
  merchantId: string;
  livemode: boolean;
  currency: string | null;
  period: string;
  reason: string;
}

export interface PayoutRunResult {
  at: string;
  /** schedules with a period due */
  schedulesDue: number;
  created: Payout[];
  skipped: PayoutRunSkip[];
  /** payouts the provider took (now in_transit), refused (failed), or could not be reached for (still pending) */
  inTransit: string[];
  failed: string[];
  unsent: string[];
  paid: string[];
}

export interface PayoutRunOptions {
  now?: Date;
  /** only this merchant's schedule (events trigger) */
  merchantId?: string;
  tenantId?: string;
  /** the modes to run (default both) */
  modes?: boolean[];
}

/** One run of the payouts job over every tenant (or one merchant): creates the due payouts, sends them, marks arrivals paid. */
export async function runPayouts(
  rt: Pick<Runtime, 'db' | 'clock' | 'config' | 'sealer'>,
  options: PayoutRunOptions = {},
): Promise<PayoutRunResult> {
  const now = options.now ?? rt.clock.now();
  const result: PayoutRunResult = {
    at: now.toISOString(),
    schedulesDue: 0,
    created: [],
    skipped: [],
    inTransit: [],
    failed: [],
    unsent: [],
    paid: [],
  };
  for (const livemode of options.modes ?? [false, true]) {
    const sys = systemContext(rt, livemode);
    const where: Record<string | symbol, unknown> = { interval: { [Op.in]: ['daily', 'weekly'] } };
    if (options.merchantId) where.merchantId = options.merchantId;
    if (options.tenantId) where.tenantId = options.tenantId;
    const schedules = await scoped(sys, sys.db.models.PayoutSchedule).findAll(where);
    for (const schedule of schedules) {
      const period = periodOf(schedule, now);
      if (!period?.due) continue;
      result.schedulesDue++;
      const tctx = elevate(sys, 'tenant', "a merchant's scheduled payouts", { tenantId: schedule.tenantId });
      await payOutSchedule(tctx, schedule, period, now, result);
    }
    const scope = {
      ...(options.merchantId ? { merchantId: options.merchantId } : {}),
      ...(options.tenantId ? { tenantId: options.tenantId } : {}),
    };
    await sendPending(sys, now, scope, result);
    // what arrived by now (the sends above took some time of the clock: their arrival is then, not at the run's start)
    await markArrived(sys, new Date(Math.max(now.getTime(), sys.clock.now().getTime())), scope, result);
  }
  return result;
}

/** Each currency of the merchant's available balance: a payout of the period unless made already, short or refused. */
async function payOutSchedule(
  ctx: CallerContext,
  schedule: PayoutScheduleRow,
  period: SchedulePeriod,
  now: Date,
  result: PayoutRunResult,
): Promise<void> {
  const skip = (currency: string | null, reason: string) =>
    result.skipped.push({ merchantId: schedule.merchantId, livemode: schedule.livemode, currency, period: period.key, reason });
  const balances = await balancesOf(ctx, { merchantId: schedule.merchantId });
  for (const balance of balances) {
    const currency = balance.currency;
    if (balance.available.valueMinor <= 0) continue;
    try {
      const made = await createPayout(ctx, schedule, currency, period, now);
      if (typeof made === 'string') skip(currency, made);
      else result.created.push(made);
    } catch (error) {
      // a run of the same period in another process made it first
      if (error instanceof UniqueConstraintError) skip(currency, 'already paid out this period');
      else if (error instanceof PayplaneError) skip(currency, `${error.code}: ${error.message}`);
      else throw error;
    }
  }
}

/** The payout of one currency for the period, or why none was made. */
async function createPayout(
  ctx: CallerContext,
  schedule: PayoutScheduleRow,
  currency: string,
  period: SchedulePeriod,
  now: Date,
  /** a one-off run (events trigger): the schedule as given (not the stored one), at most `grossLimit` of the balance */
  oneOff?: { grossLimit: number },
): Promise<Payout | string> {
  return inTransaction(ctx, async (tx) => {
    // one at a time per merchant, as its withdrawals: its balance is read and held under this lock
    const merchant = await scoped(tx, tx.db.models.Merchant).find(schedule.merchantId, { lock: true });
    if (!merchant) return 'the merchant no longer exists';
    if (merchant.status !== 'active') return `the merchant is ${merchant.status}`;
    const payouts = scoped(tx, tx.db.models.Payout);
    if (await payouts.findOne({ merchantId: merchant.id, currency, periodKey: period.key })) return 'already paid out this period';
    // the schedule as it is now (changed since it was read: this period is no longer its own)
    const current = oneOff ? schedule : await scoped(tx, tx.db.models.PayoutSchedule).find(schedule.id);
    if (!oneOff && (!current || periodOf(current, now)?.key !== period.key || !periodOf(current, now)?.due)) return 'the schedule changed';
    if (!current) return 'the schedule changed';
    if (!current.withdrawalMethodId) return 'the schedule has no withdrawal method';
    const { method, type, details } = await usableMethod(
      tx,
      current.withdrawalMethodId,
      merchant.id,
      currency,
      'schedule.withdrawalMethodId',
    );
    const channel = await payoutChannel(tx, undefined, currency);
    const [balance] = await balancesOf(tx, { merchantId: merchant.id, currency });
    const available = Math.min(balance?.available.valueMinor ?? 0, oneOff?.grossLimit ?? Number.MAX_SAFE_INTEGER);
    if (available <= 0) return 'nothing available';
    const partnerId = await activePartnerOf(tx, merchant.id);
    const breakdown = await resolveFees(tx, {
      type: 'payout',
      outcome: 'successful',
      amount: { currency, valueMinor: available },
      method: type.paymentMethod,
      merchantId: merchant.id,
      channelId: channel.id,
      partnerId,
      at: now,
    });
    const amount = breakdown.net;
    const minimum = current.minimumAmounts?.find((m) => m.currency === currency)?.valueMinor ?? 0;
    const money = (valueMinor: number) => formatMinor({ currency, valueMinor });
    if (amount <= 0) return `the fee (${money(breakdown.merchantFee)}) takes the whole available balance (${money(available)})`;
    if (amount < minimum) return `below the schedule's minimum (${money(amount)} < ${money(minimum)})`;
    const row = await payouts.create({
      id: newId(),
      tenantId: merchant.tenantId,
      merchantId: merchant.id,
      currency,
      amountMinor: amount,
      feeMinor: breakdown.merchantFee,
      feeBreakdown: { ...breakdown, reserve: 0, partnerId } as unknown as Record<string, unknown>,
      status: 'pending',
      withdrawalMethodId: method.id,
      payoutChannelId: channel.id,
      destinationType: method.methodType,
      destinationSealed: tx.sealer.seal(JSON.stringify(details)),
      destinationMasked: method.detailsMasked,
      periodKey: period.key,
      submittedAt: null,
      arrivalDate: null,
      failureReason: null,
      providerReference: null,
      paidAt: null,
      failedAt: null,
      canceledAt: null,
      canceledBy: null,
    });
    await postPayout(tx, 'payout', payoutPosting(row));
    await emitEvent(tx, payoutEvent('payout.created', row));
    await auditRecord(tx, PAYOUT, row, 'payout.created', { after: toPayout(row) });
    return toPayout(row);
  });
}

interface Scope {
  merchantId?: string;
  tenantId?: string;
}

/** Sends every pending payout not being sent (or whose send was left unanswered for SEND_LEASE_MS). */
async function sendPending(sys: CallerContext, now: Date, scope: Scope, result: PayoutRunResult): Promise<void> {
  const stale = new Date(now.getTime() - SEND_LEASE_MS);
  const rows = await scoped(sys, sys.db.models.Payout).findAll({
    ...scope,
    status: 'pending',
    [Op.or]: [{ submittedAt: null }, { submittedAt: { [Op.lte]: stale } }],
  } as never);
  for (const row of rows.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())) {
    const tctx = elevate(sys, 'tenant', 'a scheduled payout sent to the provider', { tenantId: row.tenantId });
    try {
      const sent = await sendPayout(tctx, row.id, now);
      if (sent.status === 'in_transit' || sent.status === 'paid') result.inTransit.push(sent.id);
      else if (sent.status === 'failed') result.failed.push(sent.id);
      else if (sent.status === 'pending') result.unsent.push(sent.id);
    } catch (error) {
      if (!(error instanceof PayplaneError)) throw error;
      result.unsent.push(row.id);
    }
  }
}

/** Sends one payout through the payout provider of its channel and applies the answer. */
export async function sendPayout(ctx: CallerContext, id: string, now: Date): Promise<PayoutRow> {
  return throughProvider(ctx, {
    name: 'payout',
    // the claim: submittedAt, while pending and not claimed by another run (or left by one that died)
    record: async (tx) => {
      const row = await lockedRecord(tx, PAYOUT, id);
      const claimedElsewhere = row.submittedAt && new Date(row.submittedAt).getTime() > now.getTime() - SEND_LEASE_MS;
      if (row.status !== 'pending' || claimedElsewhere) return settled(row);
      let terminalId: string;
      try {
        terminalId = await payoutTerminalOf(tx, row.payoutChannelId, row.currency, 'the payout stays pending; cancel it, or add one');
      } catch (error) {
        if (error instanceof PayplaneError) return settled(row);
        throw error;
      }
      const claimed = await scoped(tx, tx.db.models.Payout).updateIf(
        row,
        { status: 'pending', submittedAt: row.submittedAt },
        { submittedAt: now },
      );
      if (!claimed) return settled(row);
      return {
        row: claimed,
        terminalId,
        destination: { type: row.destinationType, details: JSON.parse(tx.sealer.open(row.destinationSealed)) as Record<string, string> },
      };
    },
    request: async (octx, intent) => payoutRequest(octx, intent),
    apply: async (tx, intent, answer) => {
      const row = await lockedRecord(tx, PAYOUT, id);
      // an answer to a send that is no longer the current one changes nothing
      if (row.status !== 'pending' || iso(row.submittedAt) !== iso(intent.row.submittedAt)) return row;
      const at = tx.clock.now();
      if (answer.unreachable) {
        if (answer.unreachable.retryable) return row; // may have been sent: sent again (same reference) once the lease passed
        return movePayout(tx, row, 'fail', {
          changes: { failedAt: at, failureReason: `The payout provider could not take the payout: ${answer.unreachable.message}` },
        });
      }
      const { result } = answer;
      const reference = result.providerReference?.slice(0, 255) ?? null;
      if (result.status === 'declined' || result.status === 'failed') {
        return movePayout(tx, row, 'fail', {
          changes: {
            failedAt: at,
            providerReference: reference,
            failureReason: `The payout provider refused the payout: ${result.message ?? result.declineCode ?? result.rawStatus ?? 'no reason given'}`,
          },
        });
      }
      return movePayout(tx, row, 'send', { changes: { providerReference: reference, arrivalDate: at } });
    },
  });
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

/** In transit past its arrivalDate: paid (payout_paid, payout.succeeded), each by compare-and-set. */
async function markArrived(sys: CallerContext, now: Date, scope: Scope, result: PayoutRunResult): Promise<void> {
  const rows = await scoped(sys, sys.db.models.Payout).findAll({ ...scope, status: 'in_transit', arrivalDate: { [Op.lte]: now } } as never);
  for (const row of rows) {
    const tctx = elevate(sys, 'tenant', 'a payout that arrived', { tenantId: row.tenantId });
    const paid = await inTransaction(tctx, async (tx) => {
      const current = await lockedRecord(tx, PAYOUT, row.id);
      if (current.status !== 'in_transit') return null;
      return movePayout(tx, current, 'pay', { changes: { paidAt: now } });
    });
    if (paid) result.paid.push(paid.id);
  }
}

/**
 * A one-off schedule run for one merchant and currency (`payplane events trigger payout.*`, sandbox only): a payout of at
 * most `grossLimit` of the available balance to `withdrawalMethodId`, in a period of its own (trigger:<id>), made,
 * sent and (when it arrived) paid exactly as a scheduled one. Returns the payout as it ended, or why none was made.
 */
export async function runOneOffPayout(
  rt: Pick<Runtime, 'db' | 'clock' | 'config' | 'sealer'>,
  target: { tenantId: string; merchantId: string; withdrawalMethodId: string; currency: string; grossLimit: number },
): Promise<{ payout: PayoutRow | null; skipped: string | null }> {
  const now = rt.clock.now();
  const sys = systemContext(rt, false);
  const tctx = elevate(sys, 'tenant', 'a one-off sandbox payout', { tenantId: target.tenantId });
  const schedule = {
    id: newId(),
    tenantId: target.tenantId,
    merchantId: target.merchantId,
    livemode: false,
    interval: 'daily',
    weeklyAnchor: null,
    withdrawalMethodId: target.withdrawalMethodId,
    minimumAmounts: [],
    effectiveFrom: now,
    updatedBy: null,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  } satisfies PayoutScheduleRow;
  const made = await createPayout(tctx, schedule, target.currency, { key: `trigger:${newId()}`, start: now }, now, {
    grossLimit: target.grossLimit,
  });
  if (typeof made === 'string') return { payout: null, skipped: made };
  const result: PayoutRunResult = {
    at: now.toISOString(),
    schedulesDue: 0,
    created: [],
    skipped: [],
    inTransit: [],
    failed: [],
    unsent: [],
    paid: [],
  };
  const scope = { merchantId: target.merchantId, tenantId: target.tenantId };
  await sendPending(sys, now, scope, result);
  await markArrived(sys, new Date(Math.max(now.getTime(), sys.clock.now().getTime())), scope, result);
  return { payout: await scoped(tctx, tctx.db.models.Payout).get(made.id), skipped: null };
}
