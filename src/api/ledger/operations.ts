import { defineOperation, type Operation } from '../registry';
import * as ledger from '../../services/ledger';
import { BalanceSchema, BalanceTransactionSchema, ListBalanceTransactionsQuery, ListBalancesQuery } from './schemas';

/** Balances and balance transactions: read-only views derived from the ledger entries. */
export const balanceOperations: Operation[] = [
  defineOperation({
    id: 'listBalances', method: 'get', path: '/v1/balances', levels: ['M', 'T'], permission: 'payouts:balances:view', tag: 'Balances',
    summary: 'Pending, available, reserved and payable balances per merchant and currency',
    description:
      'Each balance is the sum of its ledger entries (never a stored figure). A capture credits pending net of fees and the rolling reserve (available at once for funds the acquirer settles immediately); after the holding period pending moves to available; the reserve moves to available after holdDays when autoRelease; a refund debits available (which may go negative). Merchant callers see their own merchant; tenant callers every merchant they may see, or one with merchantId. Ordered by merchantId then currency; only currencies with entries appear.',
    kind: 'list', query: ListBalancesQuery, response: BalanceSchema,
    handler: (ctx, { query: { cursor, limit, ...filters } }) => ledger.listBalances(ctx, filters, { cursor, limit }),
  }),
  defineOperation({
    id: 'listBalanceTransactions', method: 'get', path: '/v1/balance-transactions', levels: ['M', 'T'], permission: 'payouts:balances:view',
    tag: 'Balances', summary: 'Ledger entries of merchant balances, newest first',
    description:
      'One record per ledger entry on a merchant balance (pending, available, reserved, payable) with its signed amount. Filters: merchantId, currency, type (payment, refund, release, reserve_release, withdrawal, adjustment), balanceType, sourceId.',
    kind: 'list', query: ListBalanceTransactionsQuery, response: BalanceTransactionSchema,
    handler: (ctx, { query: { cursor, limit, sortOrder, ...filters } }) => ledger.listBalanceTransactions(ctx, filters, { cursor, limit, sortOrder }),
  }),
];
