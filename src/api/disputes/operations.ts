import { defineOperation, type Operation } from '../registry';
import { idParams } from '../common';
import * as disputes from '../../services/disputes/disputes';
import { DisputeSchema, ListDisputesQuery, SubmitDisputeBody, UpdateDisputeBody } from './schemas';

const tag = 'Disputes';
const VIEW = 'payments:disputes:view';
const MANAGE = 'payments:disputes:manage';
const BASE = '/v1/disputes';
const common = { tag, kind: 'single' as const, params: idParams, response: DisputeSchema };
const onlyOpen = '409 INVALID_STATE_TRANSITION unless the dispute is needs_response.';

/** Disputes: read them, answer them with evidence, or concede. */
export const disputeOperations: Operation[] = [
  defineOperation({
    id: 'listDisputes',
    method: 'get',
    path: BASE,
    levels: ['M', 'T', 'P'],
    permission: VIEW,
    tag,
    summary: 'List disputes',
    description:
      "Newest first by default, in the caller's mode. Filters: status, paymentId, merchantId (tenant and platform callers), reason. Merchant callers see their own merchant's disputes only.",
    kind: 'list',
    query: ListDisputesQuery,
    response: DisputeSchema,
    handler: (ctx, { query: { cursor, limit, sortOrder, ...filters } }) =>
      disputes.listDisputes(ctx, filters, { cursor, limit, sortOrder }),
  }),
  defineOperation({
    ...common,
    id: 'getDispute',
    method: 'get',
    path: `${BASE}/{id}`,
    levels: ['M', 'T', 'P'],
    permission: VIEW,
    summary: 'Get a dispute',
    description: '404 when it does not exist or is not visible to the caller.',
    handler: (ctx, { params }) => disputes.getDispute(ctx, params.id),
  }),
  defineOperation({
    ...common,
    id: 'updateDispute',
    method: 'patch',
    path: `${BASE}/{id}`,
    levels: ['M', 'T'],
    permission: MANAGE,
    summary: "Update a dispute's evidence",
    description: `Sets the evidence fields given (the others keep their value) while the dispute is needs_response; emits dispute.updated. Nothing is sent to the acquirer until submit. 409 DISPUTE_NOT_EDITABLE unless needs_response.`,
    body: UpdateDisputeBody,
    handler: (ctx, { params, body }) => disputes.updateDispute(ctx, params.id, body),
  }),
  defineOperation({
    ...common,
    id: 'submitDispute',
    method: 'post',
    path: `${BASE}/{id}/submit`,
    levels: ['M', 'T'],
    permission: MANAGE,
    ownTransactions: true,
    summary: "Submit a dispute's evidence",
    description: `needs_response -> under_review (submittedAt), with the evidence changes given applied first; emits dispute.updated; the evidence is sent to the acquirer, which decides later (dispute.won or dispute.lost). When the acquirer refuses the evidence or cannot be reached, the dispute returns to needs_response (dispute.updated) and the answer is 422 DISPUTE_EVIDENCE_REFUSED or 503 PROVIDER_UNAVAILABLE. ${onlyOpen}`,
    body: SubmitDisputeBody,
    handler: (ctx, { params, body }) => disputes.submitDispute(ctx, params.id, body ?? {}),
    resume: (ctx, { params }) => disputes.getDispute(ctx, params.id),
  }),
  defineOperation({
    ...common,
    id: 'acceptDispute',
    method: 'post',
    path: `${BASE}/{id}/accept`,
    levels: ['M', 'T'],
    permission: MANAGE,
    ownTransactions: true,
    summary: 'Accept (concede) a dispute',
    description: `needs_response -> lost (closedAt, closedReason accepted); emits dispute.lost. The amount and fee stay debited. The acceptance is then sent to the acquirer (after the move is committed); one it did not answer is sent again by the dispute-deadlines job. ${onlyOpen}`,
    handler: (ctx, { params }) => disputes.acceptDispute(ctx, params.id),
    resume: (ctx, { params }) => disputes.getDispute(ctx, params.id),
  }),
];
