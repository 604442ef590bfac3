import { inTransaction, type CallerContext } from '../../domain/context';
import { BusinessRuleError, NotFoundError, ValidationError } from '../../domain/errors';
import type { PayoutInterval, PayoutScheduleRow, Weekday } from '../../db/models/payouts';
import { scoped } from '../../db/scoped';
import type { Money } from '../../domain/money';
import { auditRecord, auditedRecord } from '../audit/changes';
import { targetMerchant } from '../organization/merchant-target';
import { iso } from '../present';

/**
 * A merchant's payout schedule, one per mode: interval manual (the default: no payouts, withdrawals only), daily or
 * weekly (weeklyAnchor: the UTC weekday its periods start), the active withdrawal method payouts go to, and per
 * currency the least amount paid out (minimumAmounts). A period is due from its first day (UTC): daily every day,
 * weekly on its anchor day; the first period due is the one that starts on the day the interval (or anchor) was set,
 * or later (effectiveFrom).
 */

export const WEEKDAYS: readonly Weekday[] = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

export interface PayoutSchedule {
  merchantId: string;
  livemode: boolean;
  interval: PayoutInterval;
  weeklyAnchor: Weekday | null;
  withdrawalMethodId: string | null;
  minimumAmounts: Money[];
  /** the first day (UTC) a period may start: when interval or anchor last changed; null while manual by default */
  effectiveFrom: string | null;
  updatedAt: string | null;
}

export function toPayoutSchedule(row: PayoutScheduleRow): PayoutSchedule {
  return {
    merchantId: row.merchantId,
    livemode: row.livemode,
    interval: row.interval,
    weeklyAnchor: row.weeklyAnchor,
    withdrawalMethodId: row.withdrawalMethodId,
    minimumAmounts: row.minimumAmounts ?? [],
    effectiveFrom: iso(row.effectiveFrom),
    updatedAt: iso(row.updatedAt),
  };
}

/** The schedule of a merchant that never set one: manual. */
function defaultSchedule(merchantId: string, livemode: boolean): PayoutSchedule {
  return {
    merchantId,
    livemode,
    interval: 'manual',
    weeklyAnchor: null,
    withdrawalMethodId: null,
    minimumAmounts: [],
    effectiveFrom: null,
    updatedAt: null,
  };
}

const SCHEDULE = auditedRecord<PayoutScheduleRow>({
  model: (ctx) => ctx.db.models.PayoutSchedule,
  targetType: 'payout_schedule',
  owner: (row) => ({ tenantId: row.tenantId, merchantId: row.merchantId, livemode: row.livemode }),
  render: toPayoutSchedule,
});

export async function getPayoutSchedule(ctx: CallerContext, merchantId: string | undefined): Promise<PayoutSchedule> {
  const merchant = await targetMerchant(ctx, merchantId, 'query.merchantId');
  const row = await scoped(ctx, ctx.db.models.PayoutSchedule).findOne({ merchantId: merchant.id });
  return row ? toPayoutSchedule(row) : defaultSchedule(merchant.id, ctx.livemode);
}

export interface SetPayoutScheduleInput {
  merchantId?: string;
  interval: PayoutInterval;
  weeklyAnchor?: Weekday | null;
  withdrawalMethodId?: string | null;
  minimumAmounts?: Money[];
}

/** The method payouts go to: the merchant's own (400 for another merchant's), not deleted, active (422 otherwise). */
async function scheduleMethod(tx: CallerContext, merchantId: string, methodId: string): Promise<string> {
  const field = 'body.withdrawalMethodId';
  const method = await scoped(tx, tx.db.models.MerchantWithdrawalMethod).find(methodId);
  if (!method) throw new NotFoundError('withdrawal method', methodId, { errors: [{ path: field, message: 'no such withdrawal method' }] });
  if (method.merchantId !== merchantId)
    throw ValidationError.field(field, `is a withdrawal method of another merchant (${method.merchantId}), not of ${merchantId}`);
  const due = method.status === 'cooling' && method.activatesAt && new Date(method.activatesAt).getTime() <= tx.clock.now().getTime();
  if (method.status !== 'active' && !due) {
    const why = method.status === 'cooling' ? `is cooling until ${iso(method.activatesAt)}` : `is ${method.status}`;
    throw new BusinessRuleError('WITHDRAWAL_METHOD_NOT_ACTIVE', `Payouts go to an active withdrawal method; method ${method.id} ${why}.`, {
      errors: [{ path: field, message: why }],
    });
  }
  return method.id;
}

/**
 * Sets the merchant's schedule (creates it on first use), audited (payout_schedule.created or .updated). 400 naming the
 * field: weeklyAnchor without weekly or weekly without it, daily or weekly without a withdrawal method, a method of
 * another merchant, a currency twice in minimumAmounts. Changing interval or anchor moves effectiveFrom to now.
 */
export async function setPayoutSchedule(ctx: CallerContext, input: SetPayoutScheduleInput): Promise<PayoutSchedule> {
  const anchor = input.weeklyAnchor ?? null;
  if (input.interval === 'weekly' && !anchor)
    throw ValidationError.field('body.weeklyAnchor', 'is required for a weekly schedule: the weekday (UTC) its payouts start');
  if (input.interval !== 'weekly' && anchor)
    throw ValidationError.field('body.weeklyAnchor', `is for weekly schedules only (interval is ${input.interval})`);
  const minimumAmounts = input.minimumAmounts ?? [];
  const seen = new Set<string>();
  minimumAmounts.forEach((m, i) => {
    if (seen.has(m.currency))
      throw ValidationError.field(`body.minimumAmounts[${i}].currency`, `${m.currency} is given twice: one minimum per currency`);
    seen.add(m.currency);
  });
  return inTransaction(ctx, async (tx) => {
    // one change of a merchant's schedule at a time (and none while a run reads it)
    const merchant = await targetMerchant(tx, input.merchantId, 'body.merchantId', { lock: true });
    let methodId = input.withdrawalMethodId ?? null;
    if (input.interval !== 'manual' && !methodId) {
      throw ValidationError.field(
        'body.withdrawalMethodId',
        `is required for a ${input.interval} schedule: the active withdrawal method payouts go to`,
      );
    }
    const schedules = scoped(tx, tx.db.models.PayoutSchedule);
    const current = await schedules.findOne({ merchantId: merchant.id }, { lock: true });
    // the method the schedule already names is kept as it is, even suspended or deleted since (a schedule read can be
    // sent back unchanged): its runs then make no payout until another is set
    if (methodId && methodId !== current?.withdrawalMethodId) methodId = await scheduleMethod(tx, merchant.id, methodId);
    const now = tx.clock.now();
    const values = {
      interval: input.interval,
      weeklyAnchor: anchor,
      withdrawalMethodId: methodId,
      minimumAmounts: minimumAmounts.map((m) => ({ currency: m.currency, valueMinor: m.valueMinor })),
      updatedBy: tx.actor.id,
    };
    if (!current) {
      const row = await schedules.create({ tenantId: merchant.tenantId, merchantId: merchant.id, ...values, effectiveFrom: now });
      await auditRecord(tx, SCHEDULE, row, 'payout_schedule.created', { after: toPayoutSchedule(row) });
      return toPayoutSchedule(row);
    }
    const changed = current.interval !== values.interval || current.weeklyAnchor !== values.weeklyAnchor;
    const row = await schedules.update(current, { ...values, effectiveFrom: changed ? now : current.effectiveFrom });
    await auditRecord(tx, SCHEDULE, row, 'payout_schedule.updated', { before: toPayoutSchedule(current), after: toPayoutSchedule(row) });
    return toPayoutSchedule(row);
  });
}
