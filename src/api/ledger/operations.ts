import { defineOperation, type Operation } from '../registry';
import { idParams } from '../common';
import { listBalances } from '../../services/ledger/balances';
import { listBalanceTransactions } from '../../services/ledger/balance-transactions';
import * as thresholds from '../../services/ledger/thresholds';
import {
  BalanceSchema,
  BalanceThresholdSchema,
  BalanceTransactionSchema,
  CreateBalanceThresholdBody,
  ListBalanceThresholdsQuery,
  ListBalanceTransactionsQuery,
  ListBalancesQuery,
  THRESHOLD_RULE,
} from './schemas';

const tag = 'Balances';
const VIEW = 'payouts:balances:view';
const MANAGE = 'payouts:balances:manage';
const THRESHOLDS = '/v1/balance-thresholds';

/**
 * The ledger's operations: balances and balance transactions (read-only views derived from the ledger entries), and
 * balance thresholds (balance.threshold_reached).
 */
export const ledgerOperations: Operation[] = [
  defineOperation({
    id: 'listBalances',
    method: 'get',
    path: '/v1/balances',
    levels: ['M', 'T'],
    permission: VIEW,
    tag,
    summary: 'Pending, available, reserved and payable balances per merchant and currency',
    description:
      'Each balance is the sum of its ledger entries (never a stored figure). A capture credits pending net of fees and the rolling reserve (available at once for funds the acquirer settles immediately); after the holding period pending moves to available; the reserve moves to available after holdDays when autoRelease; a refund debits available (which may go negative). Merchant callers see their own merchant; tenant callers every merchant they may see, or one with merchantId. Ordered by merchantId then currency; only currencies with entries appear.',
    kind: 'list',
    query: ListBalancesQuery,
    response: BalanceSchema,
    handler: (ctx, { query: { cursor, limit, ...filters } }) => listBalances(ctx, filters, { cursor, limit }),
  }),
  defineOperation({
    id: 'listBalanceTransactions',
    method: 'get',
    path: '/v1/balance-transactions',
    levels: ['M', 'T'],
    permission: VIEW,
    tag,
    summary: 'Ledger entries of merchant balances, newest first',
    description:
      'One record per ledger entry on a merchant balance (pending, available, reserved, payable) with its signed amount. Filters: merchantId, currency, type (payment, refund, release, reserve_release, withdrawal, adjustment), balanceType, sourceId.',
    kind: 'list',
    query: ListBalanceTransactionsQuery,
    response: BalanceTransactionSchema,
    handler: (ctx, { query: { cursor, limit, sortOrder, ...filters } }) =>
      listBalanceTransactions(ctx, filters, { cursor, limit, sortOrder }),
  }),
  defineOperation({
    id: 'listBalanceThresholds',
    method: 'get',
    path: THRESHOLDS,
    levels: ['M', 'T'],
    permission: VIEW,
    tag,
    summary: 'List balance thresholds',
    description:
      "Newest first by default, in the caller's mode. Filters: merchantId (tenant callers), currency, balanceType, direction. Merchant callers see their own merchant's thresholds only.",
    kind: 'list',
    query: ListBalanceThresholdsQuery,
    response: BalanceThresholdSchema,
    handler: (ctx, { query: { cursor, limit, sortOrder, ...filters } }) =>
      thresholds.listBalanceThresholds(ctx, filters, { cursor, limit, sortOrder }),
  }),
  defineOperation({
    id: 'createBalanceThreshold',
    method: 'post',
    path: THRESHOLDS,
    levels: ['M', 'T'],
    permission: MANAGE,
    tag,
    summary: 'Create a balance threshold',
    description: `${THRESHOLD_RULE} Tenant callers name the merchant (merchantId; 400 without it, 404 when not theirs). amount: any ISO 4217 currency, a positive integer valueMinor.`,
    kind: 'single',
    status: 201,
    body: CreateBalanceThresholdBody,
    response: BalanceThresholdSchema,
    handler: (ctx, { body }) => thresholds.createBalanceThreshold(ctx, body),
  }),
  defineOperation({
    id: 'deleteBalanceThreshold',
    method: 'delete',
    path: `${THRESHOLDS}/{id}`,
    levels: ['M', 'T'],
    permission: MANAGE,
    tag,
    summary: 'Delete a balance threshold (soft delete)',
    description:
      "Returns the threshold with deletedAt set; afterwards it is 404 and raises no event. 404 when absent, deleted or not visible to the caller (another merchant's).",
    kind: 'single',
    params: idParams,
    response: BalanceThresholdSchema,
    handler: (ctx, { params }) => thresholds.deleteBalanceThreshold(ctx, params.id),
  }),
];
