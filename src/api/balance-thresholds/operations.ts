import { defineOperation, type Operation } from '../registry';
import { idParams } from '../common';
import * as thresholds from '../../services/balances/thresholds';
import { BalanceThresholdSchema, CreateBalanceThresholdBody, ListBalanceThresholdsQuery, THRESHOLD_RULE } from './schemas';

const tag = 'Balances';
const VIEW = 'payouts:balances:view';
const MANAGE = 'payouts:balances:manage';
const BASE = '/v1/balance-thresholds';

/** Balance thresholds (balance.threshold_reached). */
export const balanceThresholdOperations: Operation[] = [
  defineOperation({
    id: 'listBalanceThresholds', method: 'get', path: BASE, levels: ['M', 'T'], permission: VIEW, tag,
    summary: 'List balance thresholds',
    description: 'Newest first by default, in the caller\'s mode. Filters: merchantId (tenant callers), currency, balanceType, direction. Merchant callers see their own merchant\'s thresholds only.',
    kind: 'list', query: ListBalanceThresholdsQuery, response: BalanceThresholdSchema,
    handler: (ctx, { query: { cursor, limit, sortOrder, ...filters } }) => thresholds.listBalanceThresholds(ctx, filters, { cursor, limit, sortOrder }),
  }),
  defineOperation({
    id: 'createBalanceThreshold', method: 'post', path: BASE, levels: ['M', 'T'], permission: MANAGE, tag,
    summary: 'Create a balance threshold',
    description: `${THRESHOLD_RULE} Tenant callers name the merchant (merchantId; 400 without it, 404 when not theirs). amount: any ISO 4217 currency, a positive integer valueMinor.`,
    kind: 'single', status: 201, body: CreateBalanceThresholdBody, response: BalanceThresholdSchema,
    handler: (ctx, { body }) => thresholds.createBalanceThreshold(ctx, body),
  }),
  defineOperation({
    id: 'deleteBalanceThreshold', method: 'delete', path: `${BASE}/{id}`, levels: ['M', 'T'], permission: MANAGE, tag,
    summary: 'Delete a balance threshold (soft delete)',
    description: 'Returns the threshold with deletedAt set; afterwards it is 404 and raises no event. 404 when absent, deleted or not visible to the caller (another merchant\'s).',
    kind: 'single', params: idParams, response: BalanceThresholdSchema,
    handler: (ctx, { params }) => thresholds.deleteBalanceThreshold(ctx, params.id),
  }),
];
