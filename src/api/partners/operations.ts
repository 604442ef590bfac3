import { defineOperation, type Operation } from '../registry';
import { idParams } from '../common';
import * as partners from '../../services/partners';
import type { AccountMove } from '../../services/status';
import {
  CreateAssignmentBody, CreatePartnerBody, ListAssignmentsQuery, ListPartnersQuery, PartnerAssignmentSchema, PartnerSchema,
  UpdateAssignmentBody, UpdatePartnerBody,
} from './schemas';

const partnerMove = (move: AccountMove, summary: string) =>
  defineOperation({
    id: `${move}Partner`, method: 'post', path: `/v1/admin/partners/{id}/${move}`, levels: ['T', 'P'], permission: 'organization:partners:manage',
    tag: 'Partners', summary, description: '409 INVALID_STATE_TRANSITION when the current status does not allow the move.',
    kind: 'single', params: idParams, response: PartnerSchema,
    handler: (ctx, { params }) => partners.changePartnerStatus(ctx, params.id, move),
  });

const partnerOps = [
  defineOperation({
    id: 'createPartner', method: 'post', path: '/v1/admin/partners', levels: ['T', 'P'], permission: 'organization:partners:manage', tag: 'Partners',
    summary: 'Create a partner', description: 'Starts active. Platform callers name the tenant (tenantId).',
    kind: 'single', status: 201, body: CreatePartnerBody, response: PartnerSchema,
    handler: (ctx, { body }) => partners.createPartner(ctx, body),
  }),
  defineOperation({
    id: 'listPartners', method: 'get', path: '/v1/admin/partners', levels: ['T', 'P'], permission: 'organization:partners:view', tag: 'Partners',
    summary: 'List partners', kind: 'list', query: ListPartnersQuery, response: PartnerSchema,
    handler: (ctx, { query: { cursor, limit, sortOrder, ...filters } }) => partners.listPartners(ctx, filters, { cursor, limit, sortOrder }),
  }),
  defineOperation({
    id: 'getPartner', method: 'get', path: '/v1/admin/partners/{id}', levels: ['T', 'P'], permission: 'organization:partners:view', tag: 'Partners',
    summary: 'Get a partner', kind: 'single', params: idParams, response: PartnerSchema,
    handler: (ctx, { params }) => partners.getPartner(ctx, params.id),
  }),
  defineOperation({
    id: 'updatePartner', method: 'patch', path: '/v1/admin/partners/{id}', levels: ['T', 'P'], permission: 'organization:partners:manage', tag: 'Partners',
    summary: 'Update a partner', kind: 'single', params: idParams, body: UpdatePartnerBody, response: PartnerSchema,
    handler: (ctx, { params, body }) => partners.updatePartner(ctx, params.id, body),
  }),
  partnerMove('activate', 'Activate a suspended or disabled partner'),
  partnerMove('suspend', 'Suspend an active partner'),
  partnerMove('disable', 'Disable an active or suspended partner'),
];

const COMMISSION =
  'The commission is a rate, not a fee schedule reference: commissionRate in millionths of the merchant\'s volume (10000 = 1%) plus an optional fixed amount per transaction (commissionFixed, Money).';

const assignmentOps = [
  defineOperation({
    id: 'createPartnerAssignment', method: 'post', path: '/v1/admin/partner-assignments', levels: ['T', 'P'], permission: 'organization:partners:manage',
    tag: 'Partners', summary: 'Assign a partner to a merchant with a commission',
    description: `${COMMISSION} The partner must be active (409 PARTNER_NOT_ACTIVE) and of the merchant's tenant; one active assignment per partner and merchant (409 PARTNER_ASSIGNMENT_EXISTS).`,
    kind: 'single', status: 201, body: CreateAssignmentBody, response: PartnerAssignmentSchema,
    handler: (ctx, { body }) => partners.createAssignment(ctx, body),
  }),
  defineOperation({
    id: 'listPartnerAssignments', method: 'get', path: '/v1/admin/partner-assignments', levels: ['T', 'P'], permission: 'organization:partners:view',
    tag: 'Partners', summary: 'List partner assignments', description: COMMISSION, kind: 'list', query: ListAssignmentsQuery, response: PartnerAssignmentSchema,
    handler: (ctx, { query: { cursor, limit, sortOrder, ...filters } }) => partners.listAssignments(ctx, filters, { cursor, limit, sortOrder }),
  }),
  defineOperation({
    id: 'getPartnerAssignment', method: 'get', path: '/v1/admin/partner-assignments/{id}', levels: ['T', 'P'], permission: 'organization:partners:view',
    tag: 'Partners', summary: 'Get a partner assignment', description: COMMISSION, kind: 'single', params: idParams, response: PartnerAssignmentSchema,
    handler: (ctx, { params }) => partners.getAssignment(ctx, params.id),
  }),
  defineOperation({
    id: 'updatePartnerAssignment', method: 'patch', path: '/v1/admin/partner-assignments/{id}', levels: ['T', 'P'], permission: 'organization:partners:manage',
    tag: 'Partners', summary: 'Update a partner assignment\'s commission or effective period', description: COMMISSION,
    kind: 'single', params: idParams, body: UpdateAssignmentBody, response: PartnerAssignmentSchema,
    handler: (ctx, { params, body }) => partners.updateAssignment(ctx, params.id, body),
  }),
  defineOperation({
    id: 'suspendPartnerAssignment', method: 'post', path: '/v1/admin/partner-assignments/{id}/suspend', levels: ['T', 'P'], permission: 'organization:partners:manage',
    tag: 'Partners', summary: 'Suspend an active partner assignment', description: '409 INVALID_STATE_TRANSITION unless active.',
    kind: 'single', params: idParams, response: PartnerAssignmentSchema,
    handler: (ctx, { params }) => partners.suspendAssignment(ctx, params.id),
  }),
];

/** Partners and partner assignments. */
export const partnerOperations: Operation[] = [...partnerOps, ...assignmentOps];
