import { defineOperation, type Operation } from '../registry';
import { idParams } from '../common';
import * as withdrawals from '../../services/withdrawals';
import {
  CompleteWithdrawalBody,
  CreateWithdrawalBody,
  FailWithdrawalBody,
  ListWithdrawalsQuery,
  RejectWithdrawalBody,
  WithdrawalSchema,
} from './schemas';

const tag = 'Withdrawals';
const BASE = '/v1/withdrawals';
const common = { tag, kind: 'single' as const, params: idParams, response: WithdrawalSchema };
const conflict = '409 INVALID_STATE_TRANSITION from any other state.';

/** Withdrawals: request, review, execute. */
export const withdrawalOperations: Operation[] = [
  defineOperation({
    id: 'createWithdrawal',
    method: 'post',
    path: BASE,
    levels: ['M', 'T'],
    permission: 'payouts:withdrawals:create',
    tag,
    summary: 'Request a withdrawal from the available balance',
    description:
      "Needs an Idempotency-Key (stored as idempotencyKey; a retry returns the same withdrawal). The method must be the merchant's and active (422 WITHDRAWAL_METHOD_NOT_ACTIVE while cooling or suspended); the channel an active payout channel carrying the currency (default: the tenant's first). The fee comes from the fee engine (transactionType withdrawal); amount + fee move from available to payable at once, 422 INSUFFICIENT_BALANCE when available is short, whatever the concurrency. Starts pending; emits withdrawal.created.",
    kind: 'single',
    status: 201,
    body: CreateWithdrawalBody,
    response: WithdrawalSchema,
    requireIdempotencyKey: true,
    // requireIdempotencyKey: the pipeline answered 400 IDEMPOTENCY_KEY_REQUIRED without one
    handler: (ctx, { body, idempotencyKey }) => withdrawals.createWithdrawal(ctx, body, idempotencyKey!),
  }),
  defineOperation({
    id: 'listWithdrawals',
    method: 'get',
    path: BASE,
    levels: ['M', 'T'],
    permission: 'payouts:withdrawals:view',
    tag,
    summary: 'List withdrawals',
    description: 'Newest first by default; filters status, entityId (merchant), currency.',
    kind: 'list',
    query: ListWithdrawalsQuery,
    response: WithdrawalSchema,
    handler: (ctx, { query: { cursor, limit, sortOrder, ...filters } }) =>
      withdrawals.listWithdrawals(ctx, filters, { cursor, limit, sortOrder }),
  }),
  defineOperation({
    ...common,
    id: 'getWithdrawal',
    method: 'get',
    path: `${BASE}/{id}`,
    levels: ['M', 'T'],
    permission: 'payouts:withdrawals:view',
    summary: 'Get a withdrawal',
    description: '404 when it does not exist or is not visible to the caller.',
    handler: (ctx, { params }) => withdrawals.getWithdrawal(ctx, params.id),
  }),
  defineOperation({
    ...common,
    id: 'cancelWithdrawal',
    method: 'post',
    path: `${BASE}/{id}/cancel`,
    levels: ['M', 'T'],
    permission: 'payouts:withdrawals:create',
    summary: 'Cancel a pending withdrawal',
    description: `pending -> canceled; the held amount and fee return to available; emits withdrawal.canceled. ${conflict}`,
    handler: (ctx, { params }) => withdrawals.cancelWithdrawal(ctx, params.id),
  }),
  defineOperation({
    ...common,
    id: 'approveWithdrawal',
    method: 'post',
    path: `${BASE}/{id}/approve`,
    levels: ['T'],
    permission: 'payouts:withdrawals:review',
    summary: 'Approve a pending withdrawal',
    description: `pending -> approved; emits withdrawal.approved. With the tenant's withdrawalMakerChecker on, the withdrawal's creator gets 403 MAKER_CHECKER_VIOLATION. ${conflict}`,
    handler: (ctx, { params }) => withdrawals.approveWithdrawal(ctx, params.id),
  }),
  defineOperation({
    ...common,
    id: 'rejectWithdrawal',
    method: 'post',
    path: `${BASE}/{id}/reject`,
    levels: ['T'],
    permission: 'payouts:withdrawals:review',
    summary: 'Reject a pending withdrawal',
    description: `pending -> rejected with rejectionReason (mandatory); the held amount and fee return to available; emits withdrawal.rejected (data.rejectionReason). ${conflict}`,
    body: RejectWithdrawalBody,
    handler: (ctx, { params, body }) => withdrawals.rejectWithdrawal(ctx, params.id, body),
  }),
  defineOperation({
    ...common,
    id: 'startWithdrawalExecution',
    method: 'post',
    path: `${BASE}/{id}/start-execution`,
    levels: ['T'],
    permission: 'payouts:withdrawals:execute',
    summary: 'Start executing an approved withdrawal',
    description: `approved -> executing; records the operator (executedBy, executedAt). Exactly one of concurrent callers wins: the others get 409 INVALID_STATE_TRANSITION. With maker-checker on, the approver gets 403 MAKER_CHECKER_VIOLATION. Close it with complete or fail.`,
    handler: (ctx, { params }) => withdrawals.startExecution(ctx, params.id),
  }),
  defineOperation({
    ...common,
    id: 'completeWithdrawal',
    method: 'post',
    path: `${BASE}/{id}/complete`,
    levels: ['T'],
    permission: 'payouts:withdrawals:execute',
    summary: 'Record an executing withdrawal as paid out',
    description: `executing -> completed (completedAt, providerReference, comment as executionComment); payable is paid out (the fee to its earners); emits withdrawal.succeeded. ${conflict}`,
    body: CompleteWithdrawalBody,
    handler: (ctx, { params, body }) => withdrawals.completeWithdrawal(ctx, params.id, body),
  }),
  defineOperation({
    ...common,
    id: 'failWithdrawal',
    method: 'post',
    path: `${BASE}/{id}/fail`,
    levels: ['T'],
    permission: 'payouts:withdrawals:execute',
    summary: 'Record an executing withdrawal as failed',
    description: `executing -> failed with comment (mandatory: 400 without, nothing changes); payable entries are reversed to available so the merchant may try again; emits withdrawal.failed. ${conflict}`,
    body: FailWithdrawalBody,
    handler: (ctx, { params, body }) => withdrawals.failWithdrawal(ctx, params.id, body),
  }),
];
