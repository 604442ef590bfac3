import { defineOperation, type Operation } from '../registry';
import { idParams } from '../common';
import * as methods from '../../services/withdrawal-methods/methods';
import {
  COOLING_RULE,
  CreateWithdrawalMethodBody,
  ListWithdrawalMethodsQuery,
  UpdateWithdrawalMethodBody,
  WithdrawalMethodSchema,
  WithdrawalMethodTypeSchema,
} from './schemas';

const tag = 'Withdrawal methods';
const VIEW = 'payouts:withdrawal-methods:view';
const MANAGE = 'payouts:withdrawal-methods:manage';
const REVIEW = 'payouts:withdrawal-methods:review';
const BASE = '/v1/merchant-withdrawal-methods';
const MASKED = 'details are masked (a masked detail shows its last characters only; the full IBAN or account number is never returned).';
const DETAIL_ERRORS =
  'Every invalid detail is reported at once as body.details.<key>: required keys missing or empty, keys the type does not take, an IBAN of the wrong length for its country or with wrong check digits, a BIC that is not 8 or 11 characters, an ABA routing number whose check digit does not match, digits or lengths out of range, enum values not listed.';

/** Withdrawal method types and merchants' withdrawal methods. */
export const withdrawalMethodOperations: Operation[] = [
  defineOperation({
    id: 'listWithdrawalMethodTypes',
    method: 'get',
    path: '/v1/withdrawal-method-types',
    levels: ['M', 'T'],
    permission: VIEW,
    tag,
    summary: 'The catalog of withdrawal method types and their detail keys',
    description:
      'Every type a merchant may save a withdrawal method of (bank_account: IBAN and account holder; us_bank_account: ABA routing number and account number, USD only), with its required detail keys and how each detail is checked. One page holds the whole catalog.',
    kind: 'list',
    response: WithdrawalMethodTypeSchema,
    handler: async () => methods.listWithdrawalMethodTypes(),
  }),
  defineOperation({
    id: 'listMerchantWithdrawalMethods',
    method: 'get',
    path: BASE,
    levels: ['M', 'T'],
    permission: VIEW,
    tag,
    summary: 'List saved withdrawal methods',
    description: `Newest first by default, in the caller's mode. Filters: merchantId, methodType, status; livemode is accepted for compatibility (rows always belong to the caller's mode). Merchant callers see their own methods only; ${MASKED}`,
    kind: 'list',
    query: ListWithdrawalMethodsQuery,
    response: WithdrawalMethodSchema,
    handler: (ctx, { query: { cursor, limit, sortOrder, livemode: _livemode, ...filters } }) =>
      methods.listWithdrawalMethods(ctx, filters, { cursor, limit, sortOrder }),
  }),
  defineOperation({
    id: 'createMerchantWithdrawalMethod',
    method: 'post',
    path: BASE,
    levels: ['M', 'T'],
    permission: MANAGE,
    tag,
    summary: 'Save a withdrawal method (starts in cooling)',
    description: `${COOLING_RULE} Tenant callers name the merchant (merchantId; 400 without it, 404 when not theirs). 400 naming body.methodType for a type the catalog does not hold. ${DETAIL_ERRORS} The answer's ${MASKED}`,
    kind: 'single',
    status: 201,
    body: CreateWithdrawalMethodBody,
    response: WithdrawalMethodSchema,
    handler: (ctx, { body }) => methods.createWithdrawalMethod(ctx, body),
  }),
  defineOperation({
    id: 'getMerchantWithdrawalMethod',
    method: 'get',
    path: `${BASE}/{id}`,
    levels: ['M', 'T'],
    permission: VIEW,
    tag,
    summary: 'Get a saved withdrawal method',
    description: `404 when absent, deleted or not visible to the caller (another merchant's); ${MASKED}`,
    kind: 'single',
    params: idParams,
    response: WithdrawalMethodSchema,
    handler: (ctx, { params }) => methods.getWithdrawalMethod(ctx, params.id),
  }),
  defineOperation({
    id: 'updateMerchantWithdrawalMethod',
    method: 'patch',
    path: `${BASE}/{id}`,
    levels: ['M', 'T'],
    permission: MANAGE,
    tag,
    summary: 'Update the label; new details restart cooling',
    description: `Body: label, details (the complete new details), at least one. A label alone changes nothing else. Details equal to the current ones once normalized change nothing; different details are validated and restart cooling: status cooling, activatesAt = now + the tenant's cooling period (active at once with 0 hours). 409 WITHDRAWAL_METHOD_SUSPENDED for new details on a suspended method. ${DETAIL_ERRORS}`,
    kind: 'single',
    params: idParams,
    body: UpdateWithdrawalMethodBody,
    response: WithdrawalMethodSchema,
    handler: (ctx, { params, body }) => methods.updateWithdrawalMethod(ctx, params.id, body),
  }),
  defineOperation({
    id: 'deleteMerchantWithdrawalMethod',
    method: 'delete',
    path: `${BASE}/{id}`,
    levels: ['M', 'T'],
    permission: MANAGE,
    tag,
    summary: 'Delete a saved withdrawal method (soft delete)',
    description:
      'Returns the method with deletedAt set; afterwards it is 404 to every read and cannot be paid to. Withdrawals already requested keep their destination.',
    kind: 'single',
    params: idParams,
    response: WithdrawalMethodSchema,
    handler: (ctx, { params }) => methods.deleteWithdrawalMethod(ctx, params.id),
  }),
  defineOperation({
    id: 'suspendMerchantWithdrawalMethod',
    method: 'post',
    path: `${BASE}/{id}/suspend`,
    levels: ['T'],
    permission: REVIEW,
    tag,
    summary: 'Suspend a withdrawal method',
    description:
      'cooling or active -> suspended: no withdrawal can be paid to it until it is reactivated. 409 INVALID_STATE_TRANSITION when already suspended. Operators only (merchant callers get 403).',
    kind: 'single',
    params: idParams,
    response: WithdrawalMethodSchema,
    handler: (ctx, { params }) => methods.suspendWithdrawalMethod(ctx, params.id),
  }),
  defineOperation({
    id: 'reactivateMerchantWithdrawalMethod',
    method: 'post',
    path: `${BASE}/{id}/reactivate`,
    levels: ['T'],
    permission: REVIEW,
    tag,
    summary: 'Reactivate a suspended withdrawal method',
    description:
      'suspended -> active, or back to cooling when its activatesAt is still ahead (a suspension never shortens cooling). 409 INVALID_STATE_TRANSITION unless suspended. Operators only (merchant callers get 403).',
    kind: 'single',
    params: idParams,
    response: WithdrawalMethodSchema,
    handler: (ctx, { params }) => methods.reactivateWithdrawalMethod(ctx, params.id),
  }),
];
