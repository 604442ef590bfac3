import { z } from '../zod';
import { refersTo, notChecked } from '../references';
import { Currency, Money, NullableTimestamp, Timestamp, Uuid, listParams, listQuery } from '../common';

// The ledger's resources: balances and balance transactions (the merchant side of the ledger), balance thresholds.

export const BALANCE_TYPES = ['pending', 'available', 'reserved', 'payable'] as const;
export const BALANCE_TRANSACTION_TYPES = [
  'payment',
  'refund',
  'refund_reversal',
  'release',
  'reserve_release',
  'withdrawal',
  'adjustment',
  'dispute',
  'dispute_reversal',
  'payout',
  'payout_paid',
  'payout_reversal',
] as const;

export const BalanceSchema = z
  .object({
    merchantId: Uuid,
    currency: Currency,
    pending: Money.openapi({ description: 'Captured funds in the holding period (net of fees and reserve).' }),
    available: Money.openapi({ description: 'Funds released to the merchant; refunds debit it and it may go negative.' }),
    reserved: Money.openapi({ description: 'The rolling reserve held from captures, released after holdDays when autoRelease.' }),
    payable: Money.openapi({ description: 'Funds set aside for withdrawals in progress.' }),
  })
  .openapi('Balance', {
    description: "A merchant's balances in one currency, each the sum of its ledger entries (credit positive).",
  });

export const ListBalancesQuery = z.object({
  merchantId: refersTo('merchant', Uuid)
    .optional()
    .openapi({ description: "Tenant callers: one merchant's balances. Merchant callers see their own only." }),
  currency: Currency.optional(),
  cursor: z
    .string()
    .regex(/^[0-9a-f-]{36}\.[A-Z]{3}$/i, 'must be a cursor from a previous pagination.nextCursor or prevCursor')
    .optional()
    .openapi({ description: '`<merchantId>.<currency>` of the first balance of the page, from pagination.nextCursor or prevCursor.' }),
  limit: listParams.limit,
});

export const BalanceTransactionSchema = z
  .object({
    id: Uuid,
    merchantId: Uuid,
    currency: Currency,
    balanceType: z.enum(BALANCE_TYPES).openapi({ description: 'The merchant balance the entry moved.' }),
    amount: Money.openapi({ description: 'Signed: positive credits the balance, negative debits it.' }),
    type: z.enum(BALANCE_TRANSACTION_TYPES).openapi({
      description:
        'payment (a capture), refund, refund_reversal (a succeeded refund the acquirer failed afterwards: the refund undone), release (pending to available after the holding period), reserve_release, withdrawal, adjustment, dispute (opened: amount and fee), dispute_reversal (won: the amount back), payout (available to payable), payout_paid (paid out), payout_reversal (failed or canceled: back to available).',
    }),
    sourceId: z.string().openapi({ description: 'The payment, refund, release or withdrawal the entry comes from.' }),
    postingId: Uuid.openapi({ description: 'The entries of one posting sum to zero across all accounts.' }),
    description: z.string().nullable(),
    createdAt: Timestamp,
  })
  .openapi('BalanceTransaction');

export const ListBalanceTransactionsQuery = listQuery({
  merchantId: refersTo('merchant', Uuid).optional(),
  currency: Currency.optional(),
  type: z.enum(BALANCE_TRANSACTION_TYPES).optional(),
  balanceType: z.enum(BALANCE_TYPES).optional(),
  sourceId: notChecked(
    "the payment, refund, release or withdrawal an entry comes from: a filter over the caller's own ledger",
    z.string().min(1).max(255),
  ).optional(),
});

// Balance thresholds: balance.threshold_reached when a merchant's balance crosses one.

export const THRESHOLD_BALANCE_TYPES = ['available', 'pending'] as const;
export const THRESHOLD_DIRECTIONS = ['above', 'below'] as const;

export const THRESHOLD_RULE =
  "A ledger posting that brings the merchant's balance of balanceType in the threshold's currency and mode to the amount or beyond it in its direction (above: balance ≥ amount; below: balance ≤ amount) raises balance.threshold_reached to the merchant's endpoints (data: the threshold, the balance, currency, the available and pending balances, the posting's source), once per crossing: crossed stays true until a posting brings the balance back (above: under the amount; below: over it), and only then can it be reached again. A threshold created while the balance is already beyond it starts crossed, without an event.";

export const BalanceThresholdSchema = z
  .object({
    id: Uuid,
    tenantId: Uuid,
    merchantId: Uuid,
    livemode: z.boolean(),
    currency: Currency,
    balanceType: z.enum(THRESHOLD_BALANCE_TYPES),
    direction: z.enum(THRESHOLD_DIRECTIONS),
    amount: Money.openapi({ description: 'The threshold, in the currency.' }),
    crossed: z.boolean().openapi({ description: 'The balance is at or beyond the threshold: no new event until it has come back.' }),
    crossedAt: NullableTimestamp.openapi({
      description: 'When a posting last brought the balance to the threshold (the last balance.threshold_reached).',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    deletedAt: NullableTimestamp,
  })
  .strict()
  .openapi('BalanceThreshold', { description: THRESHOLD_RULE });

const ThresholdAmount = z
  .strictObject({
    currency: Currency,
    valueMinor: z.number().int('must be an integer amount in minor units').positive('must be a positive amount in minor units').safe(),
  })
  .openapi({ description: "A Money with a positive valueMinor: the threshold, its currency the balance's." });

export const CreateBalanceThresholdBody = z
  .strictObject({
    merchantId: refersTo('merchant', Uuid)
      .optional()
      .openapi({ description: 'Required for tenant callers; a merchant caller sets its own.' }),
    balanceType: z.enum(THRESHOLD_BALANCE_TYPES),
    direction: z.enum(THRESHOLD_DIRECTIONS),
    amount: ThresholdAmount,
  })
  .openapi('CreateBalanceThresholdRequest', { description: THRESHOLD_RULE });

export const ListBalanceThresholdsQuery = listQuery({
  merchantId: refersTo('merchant', Uuid)
    .optional()
    .openapi({ description: "Tenant callers: one merchant's thresholds. Merchant callers see their own only." }),
  currency: Currency.optional(),
  balanceType: z.enum(THRESHOLD_BALANCE_TYPES).optional(),
  direction: z.enum(THRESHOLD_DIRECTIONS).optional(),
});
