import { defineOperation, type Operation } from '../registry';
import { idParams } from '../common';
import * as payouts from '../../services/payouts/payouts';
import * as schedules from '../../services/payouts/schedule';
import { ListPayoutsQuery, PAYOUT_RULE, PayoutSchema, PayoutScheduleQuery, PayoutScheduleSchema, SetPayoutScheduleBody } from './schemas';

const tag = 'Payouts';
const VIEW = 'payouts:payouts:view';
const MANAGE = 'payouts:payouts:manage';
const BASE = '/v1/payouts';

/** Payouts made by payout schedules, and the schedules. */
export const payoutOperations: Operation[] = [
  defineOperation({
    id: 'listPayouts',
    method: 'get',
    path: BASE,
    levels: ['M', 'T', 'P'],
    permission: VIEW,
    tag,
    summary: 'List payouts',
    description: `Newest first by default, in the caller's mode; filters status, merchantId, currency. ${PAYOUT_RULE}`,
    kind: 'list',
    query: ListPayoutsQuery,
    response: PayoutSchema,
    handler: (ctx, { query: { cursor, limit, sortOrder, ...filters } }) => payouts.listPayouts(ctx, filters, { cursor, limit, sortOrder }),
  }),
  defineOperation({
    id: 'getPayout',
    method: 'get',
    path: `${BASE}/{id}`,
    levels: ['M', 'T', 'P'],
    permission: VIEW,
    tag,
    summary: 'Get a payout',
    description: '404 when it does not exist or is not visible to the caller.',
    kind: 'single',
    params: idParams,
    response: PayoutSchema,
    handler: (ctx, { params }) => payouts.getPayout(ctx, params.id),
  }),
  defineOperation({
    id: 'cancelPayout',
    method: 'post',
    path: `${BASE}/{id}/cancel`,
    levels: ['T'],
    permission: MANAGE,
    tag,
    summary: 'Cancel a pending payout',
    description:
      'pending -> canceled; amount + fee return to available (ledger payout_reversal). 409 INVALID_STATE_TRANSITION from any other status; 409 PAYOUT_BEING_SENT once it was handed to the payout provider.',
    kind: 'single',
    params: idParams,
    response: PayoutSchema,
    handler: (ctx, { params }) => payouts.cancelPayout(ctx, params.id),
  }),
  defineOperation({
    id: 'getPayoutSchedule',
    method: 'get',
    path: '/v1/payout-schedule',
    levels: ['M', 'T'],
    permission: VIEW,
    tag,
    summary: "Get the merchant's payout schedule",
    description: 'Tenant callers name the merchant (merchantId; 400 without it). A merchant that never set one has the default: manual.',
    kind: 'single',
    query: PayoutScheduleQuery,
    response: PayoutScheduleSchema,
    handler: (ctx, { query }) => schedules.getPayoutSchedule(ctx, query.merchantId),
  }),
  defineOperation({
    id: 'setPayoutSchedule',
    method: 'put',
    path: '/v1/payout-schedule',
    levels: ['M', 'T'],
    permission: MANAGE,
    tag,
    summary: "Set the merchant's payout schedule",
    description: `Replaces the schedule (tenant callers name merchantId). interval manual makes no payouts; daily and weekly need withdrawalMethodId (an active method of the merchant: 400 for another merchant's, 422 WITHDRAWAL_METHOD_NOT_ACTIVE while cooling or suspended); weeklyAnchor is required for weekly and refused otherwise (400). minimumAmounts: one per currency. Changing interval or anchor starts the schedule anew: the first period due is the one starting that day (UTC) or later. ${PAYOUT_RULE}`,
    kind: 'single',
    body: SetPayoutScheduleBody,
    response: PayoutScheduleSchema,
    handler: (ctx, { body }) => schedules.setPayoutSchedule(ctx, body),
  }),
];
