import { defineOperation, type Operation } from '../registry';
import { idParams } from '../common';
import * as fees from '../../services/fees/schedules';
import {
  CreateFeeAssignmentBody,
  CreateFeeScheduleBody,
  FeeAssignmentSchema,
  FeeScheduleSchema,
  ListFeeAssignmentsQuery,
  ListFeeSchedulesQuery,
  UpdateFeeScheduleBody,
} from './schemas';

const scheduleMove = (move: fees.FeeScheduleMove, summary: string, description: string) =>
  defineOperation({
    id: `${move}FeeSchedule`,
    method: 'post',
    path: `/v1/admin/fee-schedules/{id}/${move}`,
    levels: ['T', 'P'],
    permission: 'fees:schedules:manage',
    tag: 'Fees',
    summary,
    description,
    kind: 'single',
    params: idParams,
    response: FeeScheduleSchema,
    handler: (ctx, { params }) => fees.changeFeeScheduleStatus(ctx, params.id, move),
  });

const scheduleOps = [
  defineOperation({
    id: 'createFeeSchedule',
    method: 'post',
    path: '/v1/admin/fee-schedules',
    levels: ['T', 'P'],
    permission: 'fees:schedules:manage',
    tag: 'Fees',
    summary: 'Create a fee schedule (draft)',
    description:
      'Starts as draft. Rates are integers in millionths (10000 = 1%). Platform callers name the tenant (tenantId), or omit it for a platform schedule.',
    kind: 'single',
    status: 201,
    body: CreateFeeScheduleBody,
    response: FeeScheduleSchema,
    handler: (ctx, { body }) => fees.createFeeSchedule(ctx, body),
  }),
  defineOperation({
    id: 'listFeeSchedules',
    method: 'get',
    path: '/v1/admin/fee-schedules',
    levels: ['T', 'P'],
    permission: 'fees:schedules:view',
    tag: 'Fees',
    summary: 'List fee schedules',
    kind: 'list',
    query: ListFeeSchedulesQuery,
    response: FeeScheduleSchema,
    handler: (ctx, { query: { cursor, limit, sortOrder, ...filters } }) =>
      fees.listFeeSchedules(ctx, filters, { cursor, limit, sortOrder }),
  }),
  defineOperation({
    id: 'getFeeSchedule',
    method: 'get',
    path: '/v1/admin/fee-schedules/{id}',
    levels: ['T', 'P'],
    permission: 'fees:schedules:view',
    tag: 'Fees',
    summary: 'Get a fee schedule',
    kind: 'single',
    params: idParams,
    response: FeeScheduleSchema,
    handler: (ctx, { params }) => fees.getFeeSchedule(ctx, params.id),
  }),
  defineOperation({
    id: 'updateFeeSchedule',
    method: 'patch',
    path: '/v1/admin/fee-schedules/{id}',
    levels: ['T', 'P'],
    permission: 'fees:schedules:manage',
    tag: 'Fees',
    summary: 'Update a draft fee schedule',
    description: '409 FEE_SCHEDULE_NOT_DRAFT unless the schedule is a draft. rules and rollingReserve replace the whole value.',
    kind: 'single',
    params: idParams,
    body: UpdateFeeScheduleBody,
    response: FeeScheduleSchema,
    handler: (ctx, { params, body }) => fees.updateFeeSchedule(ctx, params.id, body),
  }),
  scheduleMove('activate', 'Activate a draft fee schedule', 'draft -> active, activatedAt set; 409 INVALID_STATE_TRANSITION otherwise.'),
  scheduleMove(
    'archive',
    'Archive an active fee schedule',
    'active -> archived, archivedAt set; 409 INVALID_STATE_TRANSITION otherwise. Assignments of an archived schedule stay but no longer apply: the fee engine falls back to the next level.',
  ),
];

const assignmentOps = [
  defineOperation({
    id: 'createFeeAssignment',
    method: 'post',
    path: '/v1/admin/fee-assignments',
    levels: ['T', 'P'],
    permission: 'fees:assignments:manage',
    tag: 'Fees',
    summary: 'Assign an active fee schedule to a level and target',
    description:
      "The schedule must be active (409 FEE_SCHEDULE_NOT_ACTIVE) and of the target's tenant (a platform schedule for level platform, which only platform callers use). The target must be visible: 404 naming body.targetEntityId otherwise. Overlapping periods for the same level, target, currency and payment method: 409 FEE_ASSIGNMENT_OVERLAP.",
    kind: 'single',
    status: 201,
    body: CreateFeeAssignmentBody,
    response: FeeAssignmentSchema,
    handler: (ctx, { body }) => fees.createFeeAssignment(ctx, body),
  }),
  defineOperation({
    id: 'listFeeAssignments',
    method: 'get',
    path: '/v1/admin/fee-assignments',
    levels: ['T', 'P'],
    permission: 'fees:assignments:view',
    tag: 'Fees',
    summary: 'List fee assignments',
    description: 'Filters: level, targetEntityId, feeScheduleId, currency, paymentMethod, status (open or closed), activeOnly.',
    kind: 'list',
    query: ListFeeAssignmentsQuery,
    response: FeeAssignmentSchema,
    handler: (ctx, { query: { cursor, limit, sortOrder, ...filters } }) =>
      fees.listFeeAssignments(ctx, filters, { cursor, limit, sortOrder }),
  }),
  defineOperation({
    id: 'getFeeAssignment',
    method: 'get',
    path: '/v1/admin/fee-assignments/{id}',
    levels: ['T', 'P'],
    permission: 'fees:assignments:view',
    tag: 'Fees',
    summary: 'Get a fee assignment',
    kind: 'single',
    params: idParams,
    response: FeeAssignmentSchema,
    handler: (ctx, { params }) => fees.getFeeAssignment(ctx, params.id),
  }),
  defineOperation({
    id: 'closeFeeAssignment',
    method: 'post',
    path: '/v1/admin/fee-assignments/{id}/close',
    levels: ['T', 'P'],
    permission: 'fees:assignments:manage',
    tag: 'Fees',
    summary: 'Close an open fee assignment',
    description: 'open -> closed: effectiveTo set to now; 409 INVALID_STATE_TRANSITION when already closed.',
    kind: 'single',
    params: idParams,
    response: FeeAssignmentSchema,
    handler: (ctx, { params }) => fees.closeFeeAssignment(ctx, params.id),
  }),
];

/** Fee schedules and fee assignments. */
export const feeOperations: Operation[] = [...scheduleOps, ...assignmentOps];
