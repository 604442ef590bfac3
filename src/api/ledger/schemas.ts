import { z } from '../zod';
import { refersTo, notChecked } from '../references';
import { Currency, Money, Timestamp, listParams, listQuery } from '../common';

// Balances and balance transactions (the merchant side of the ledger).

const Uuid = z.string().uuid();

export const BALANCE_TYPES = ['pending', 'available', 'reserved', 'payable'] as const;
export const BALANCE_TRANSACTION_TYPES = ['payment', 'refund', 'release', 'reserve_release', 'withdrawal', 'adjustment', 'payout', 'payout_paid', 'payout_reversal'] as const;

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
    description: 'A merchant\'s balances in one currency, each the sum of its ledger entries (credit positive).',
  });

export const ListBalancesQuery = z.object({
  merchantId: refersTo('merchant', Uuid).optional().openapi({ description: 'Tenant callers: one merchant\'s balances. Merchant callers see their own only.' }),
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
      description: 'payment (a capture), refund, release (pending to available after the holding period), reserve_release, withdrawal, adjustment.',
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
  sourceId: notChecked('the payment, refund, release or withdrawal an entry comes from: a filter over the caller\'s own ledger', z.string().min(1).max(255)).optional(),
});
