import type { CallerContext } from '../../domain/context';
import { BusinessRuleError } from '../../domain/errors';
import { formatMinor } from '../../domain/money';
import type { LimitPeriodUnit, LimitRow, PaymentStatus } from '../../db/models';
import type { WithdrawalStatus } from '../../db/models/withdrawals';
import { Op } from 'sequelize';
import { scoped } from '../../db/scoped';

/**
 * What a limit has consumed, from the transactions themselves (no counters to drift): over the rolling period that
 * ends now, the count or the volume (minor units of the limit's currency) of the entity's payments that were not
 * refused (failed and voided payments consume nothing), narrowed by the limit's currency, method and brand; for a
 * withdrawal limit, the entity's withdrawals that were not rejected, canceled or failed, narrowed by currency (a
 * method-narrowed withdrawal limit counts every withdrawal of the entity: all withdrawal method types pay out by bank
 * transfer). Indexed by (merchantId|channelId|terminalId|withdrawalChannelId, createdAt).
 */

/** The length of one period unit, for limits and risk aggregations alike. */
export const UNIT_MS: Record<LimitPeriodUnit, number> = {
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 7 * 86_400_000,
  month: 30 * 86_400_000,
};

const CONSUMING: PaymentStatus[] = ['processing', 'requires_action', 'requires_capture', 'captured', 'partially_refunded', 'refunded'];

const ENTITY_COLUMN = { merchant: 'merchantId', channel: 'channelId', terminal: 'terminalId' } as const;

const CONSUMING_WITHDRAWALS: WithdrawalStatus[] = ['pending', 'approved', 'executing', 'completed'];
const WITHDRAWAL_ENTITY_COLUMN = { merchant: 'merchantId', channel: 'withdrawalChannelId', terminal: null } as const;

/** The transaction types whose limits are enforced: payments (checkout) and withdrawals. */
export type LimitedTransaction = 'payment' | 'withdrawal';

export interface LimitSubject {
  /** default payment */
  transactionType?: LimitedTransaction;
  currency: string;
  valueMinor: number;
  paymentMethod: string;
  brand?: string | null;
}

/** Whether the limit applies to this payment at all (payment limits, matching narrowing fields). */
export function limitApplies(limit: LimitRow, subject: LimitSubject): boolean {
  if (limit.status !== 'active' || limit.transactionType !== (subject.transactionType ?? 'payment')) return false;
  if (limit.currency && limit.currency !== subject.currency) return false;
  if (limit.paymentMethod && limit.paymentMethod !== subject.paymentMethod) return false;
  if (limit.brand && subject.brand && limit.brand !== subject.brand) return false;
  return true;
}

/** The limit's consumption over its period ending at `at` (count, or volume in minor units). */
export async function limitUsage(ctx: CallerContext, limit: LimitRow, at: Date): Promise<number> {
  if (limit.transactionType !== 'payment' && limit.transactionType !== 'withdrawal') return 0;
  // Inside a payment's transaction the limit row is locked first: two payments of the same limit (in two processes
  // on one Postgres) count one after the other, so neither sees a total that misses the other. (SQLite serializes
  // writing transactions anyway.)
  if (ctx.transaction) await scoped(ctx, ctx.db.models.Limit).find(limit.id, { lock: true });
  const since = new Date(at.getTime() - limit.periodValue * UNIT_MS[limit.periodUnit]);
  if (limit.transactionType === 'withdrawal') {
    const column = WITHDRAWAL_ENTITY_COLUMN[limit.entityType];
    if (!column) return 0;
    const where: Record<string, unknown> = { [column]: limit.entityId, status: CONSUMING_WITHDRAWALS, createdAt: { [Op.gte]: since } };
    if (limit.currency) where.currency = limit.currency;
    const withdrawals = scoped(ctx, ctx.db.models.Withdrawal);
    return limit.metric === 'count' ? withdrawals.count(where) : withdrawals.sum('amountMinor', where);
  }
  const where: Record<string, unknown> = {
    [ENTITY_COLUMN[limit.entityType]]: limit.entityId,
    status: CONSUMING,
    createdAt: { [Op.gte]: since },
  };
  if (limit.currency) where.currency = limit.currency;
  if (limit.paymentMethod) where.paymentMethodType = limit.paymentMethod;
  if (limit.brand) where.cardBrand = limit.brand;
  const payments = scoped(ctx, ctx.db.models.Payment);
  if (limit.metric === 'count') return payments.count(where);
  return payments.sum('amountMinor', where);
}

/** Whether one more payment of `valueMinor` goes over a limit that has consumed `used` (count, or volume in minor units). */
export function exceedsLimit(limit: Pick<LimitRow, 'metric' | 'threshold'>, used: number, valueMinor: number): boolean {
  return used + (limit.metric === 'count' ? 1 : valueMinor) > limit.threshold;
}

/** Whether this payment would go over the limit. */
export async function wouldExceed(ctx: CallerContext, limit: LimitRow, subject: LimitSubject, at: Date): Promise<boolean> {
  if (!limitApplies(limit, subject)) return false;
  return exceedsLimit(limit, await limitUsage(ctx, limit, at), subject.valueMinor);
}

/**
 * Refuses a payment (or a withdrawal) that would take the merchant or the channel over one of their active limits
 * of that transaction type: 422 LIMIT_EXCEEDED naming the limit. (Terminal limits do not refuse: routing skips the
 * terminal.)
 */
export async function enforceEntityLimits(
  ctx: CallerContext,
  entities: { merchantId: string; channelId?: string | null },
  subject: LimitSubject,
  at: Date,
): Promise<void> {
  const owners: { entityType: 'merchant' | 'channel'; entityId: string }[] = [{ entityType: 'merchant', entityId: entities.merchantId }];
  if (entities.channelId) owners.push({ entityType: 'channel', entityId: entities.channelId });
  for (const owner of owners) {
    const limits = await scoped(ctx, ctx.db.models.Limit).findAll({ ...owner, status: 'active' });
    for (const limit of limits) {
      if (await wouldExceed(ctx, limit, subject, at)) {
        const kind = subject.transactionType ?? 'payment';
        const what =
          limit.metric === 'count'
            ? `${limit.threshold} ${kind}s`
            : limit.currency
              ? formatMinor({ currency: limit.currency, valueMinor: limit.threshold })
              : `${limit.threshold} minor units`;
        throw new BusinessRuleError(
          'LIMIT_EXCEEDED',
          `The ${owner.entityType}'s limit ${limit.id} (${what} per ${limit.periodValue} ${limit.periodUnit}) would be exceeded by this ${kind}.`,
          { instance: `/v1/admin/${owner.entityType}s/${owner.entityId}/limits/${limit.id}` },
        );
      }
    }
  }
}
