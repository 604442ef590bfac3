import { z } from '../zod';
import { refersTo } from '../references';
import { Currency, Money, NullableTimestamp, Timestamp, listQuery } from '../common';
import { tenantOnly } from '../visibility';

// Payouts and payout schedules.

export const PAYOUT_STATUSES = ['pending', 'in_transit', 'paid', 'failed', 'canceled'] as const;
export const PAYOUT_INTERVALS = ['manual', 'daily', 'weekly'] as const;
export const WEEKLY_ANCHORS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;

const MoneyOut = z.object({ currency: z.string(), valueMinor: z.number().int() });

export const PAYOUT_RULE =
  "A daily or weekly payout schedule pays out, once per period (UTC days; weekly periods start on weeklyAnchor) and currency, the merchant's available balance: the rolling reserve is held apart (reserved) and never paid out. The fee (fee engine, transactionType payout) comes out of it (amount = available − fee); no payout below the schedule's minimum for the currency. On creation (pending, payout.created) amount + fee move from available to payable; the payout provider takes it (in_transit) and it is paid at its arrivalDate (paid, payout.succeeded: payable paid out, the fee to its earners); refused by the provider it is failed (payout.failed) and a canceled pending payout is canceled, both with amount + fee back to available.";

export const PayoutSchema = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    merchantId: z.string(),
    livemode: z.boolean(),
    currency: z.string(),
    amount: MoneyOut.openapi({ description: 'What reaches the destination.' }),
    fee: MoneyOut.openapi({
      description: 'The payout fee (fee engine, transactionType payout), taken from the balance paid out with amount.',
    }),
    feeBreakdown: tenantOnly(z.record(z.string(), z.unknown()).nullable().optional(), 'Who earns the fee.'),
    status: z.enum(PAYOUT_STATUSES),
    withdrawalMethodId: z.string(),
    payoutChannelId: tenantOnly(z.string().optional(), 'The payout channel the money leaves through.'),
    destination: z
      .object({ type: z.string(), details: z.record(z.string(), z.string()) })
      .openapi({ description: "The withdrawal method's details when the payout was made, masked as on withdrawals." }),
    period: z.string().openapi({ description: 'The schedule period the payout is of: <interval>:<first day of the period, UTC>.' }),
    arrivalDate: NullableTimestamp.openapi({ description: 'When the provider says the money arrives (set when it takes the payout).' }),
    failureReason: z.string().nullable(),
    providerReference: z.string().nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    paidAt: NullableTimestamp,
    failedAt: NullableTimestamp,
    canceledAt: NullableTimestamp,
    canceledBy: z.string().nullable(),
  })
  .openapi('Payout', { description: PAYOUT_RULE });

export const ListPayoutsQuery = listQuery({
  status: z.enum(PAYOUT_STATUSES).optional(),
  merchantId: refersTo('merchant', z.string().uuid('must be a merchant id')).optional(),
  currency: Currency.optional(),
});

export const PayoutScheduleSchema = z
  .object({
    merchantId: z.string(),
    livemode: z.boolean(),
    interval: z.enum(PAYOUT_INTERVALS),
    weeklyAnchor: z.enum(WEEKLY_ANCHORS).nullable(),
    withdrawalMethodId: z.string().nullable(),
    minimumAmounts: z.array(MoneyOut),
    effectiveFrom: NullableTimestamp.openapi({
      description: 'When interval or anchor last changed: the first period due starts on that day (UTC) or later.',
    }),
    updatedAt: NullableTimestamp.openapi({ description: 'null: never set (manual, the default).' }),
  })
  .openapi('PayoutSchedule', {
    description: "The merchant's payout schedule in the caller's mode; manual (the default) makes no payouts: withdrawals stay.",
  });

export const PayoutScheduleQuery = z.strictObject({
  merchantId: refersTo('merchant', z.string().uuid('must be a merchant id'))
    .optional()
    .openapi({ description: 'Required for tenant callers.' }),
});

const MinimumAmount = Money.refine((m) => m.valueMinor >= 0, { message: 'must not be negative', path: ['valueMinor'] });

export const SetPayoutScheduleBody = z
  .strictObject({
    merchantId: refersTo('merchant', z.string().uuid('must be a merchant id'))
      .optional()
      .openapi({ description: 'Required for tenant callers; a merchant caller sets its own.' }),
    interval: z.enum(PAYOUT_INTERVALS),
    weeklyAnchor: z
      .enum(WEEKLY_ANCHORS)
      .nullable()
      .optional()
      .openapi({ description: 'Weekly schedules only (required for them): the UTC weekday a period starts.' }),
    withdrawalMethodId: refersTo('withdrawalMethod', z.string().uuid('must be a withdrawal method id'))
      .nullable()
      .optional()
      .openapi({ description: 'Required for daily and weekly: an active withdrawal method of the merchant.' }),
    minimumAmounts: z
      .array(MinimumAmount)
      .max(50)
      .optional()
      .openapi({ description: 'Per currency (once each), the least amount paid out.' }),
  })
  .openapi('SetPayoutScheduleBody');
