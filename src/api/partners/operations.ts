import { defineOperation, type Operation } from '../../http/registry';
import { idParams } from '../common';
import * as partners from '../../services/partners';
import * as channels from '../../services/channels';
import * as limits from '../../services/limits';
import {
  ChannelSchema, CreateAssignmentBody, CreateChannelBody, CreateLimitBody, CreatePartnerBody, LimitSchema, ListAssignmentsQuery,
  ListChannelsQuery, ListLimitsQuery, ListPartnersQuery, PartnerAssignmentSchema, PartnerSchema, UpdateAssignmentBody,
  UpdateChannelBody, UpdatePartnerBody, limitParams,
} from './schemas';

const partnerMove = (move: partners.PartnerMove, summary: string) =>
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

const channelOps = [
  defineOperation({
    id: 'createChannel', method: 'post', path: '/v1/admin/channels', levels: ['T', 'P'], permission: 'organization:channels:manage', tag: 'Channels',
    summary: 'Create a processing channel (payin or payout)', description: 'Starts active. Platform callers name the tenant (tenantId).',
    kind: 'single', status: 201, body: CreateChannelBody, response: ChannelSchema,
    handler: (ctx, { body }) => channels.createChannel(ctx, body),
  }),
  defineOperation({
    id: 'listChannels', method: 'get', path: '/v1/admin/channels', levels: ['T', 'P'], permission: 'organization:channels:view', tag: 'Channels',
    summary: 'List channels', kind: 'list', query: ListChannelsQuery, response: ChannelSchema,
    handler: (ctx, { query: { cursor, limit, sortOrder, ...filters } }) => channels.listChannels(ctx, filters, { cursor, limit, sortOrder }),
  }),
  defineOperation({
    id: 'getChannel', method: 'get', path: '/v1/admin/channels/{id}', levels: ['T', 'P'], permission: 'organization:channels:view', tag: 'Channels',
    summary: 'Get a channel', kind: 'single', params: idParams, response: ChannelSchema,
    handler: (ctx, { params }) => channels.getChannel(ctx, params.id),
  }),
  defineOperation({
    id: 'updateChannel', method: 'patch', path: '/v1/admin/channels/{id}', levels: ['T', 'P'], permission: 'organization:channels:manage', tag: 'Channels',
    summary: 'Update a channel', kind: 'single', params: idParams, body: UpdateChannelBody, response: ChannelSchema,
    handler: (ctx, { params, body }) => channels.updateChannel(ctx, params.id, body),
  }),
  defineOperation({
    id: 'disableChannel', method: 'post', path: '/v1/admin/channels/{id}/disable', levels: ['T', 'P'], permission: 'organization:channels:manage', tag: 'Channels',
    summary: 'Disable a channel', description: '409 INVALID_STATE_TRANSITION when already disabled.',
    kind: 'single', params: idParams, response: ChannelSchema,
    handler: (ctx, { params }) => channels.disableChannel(ctx, params.id),
  }),
];

/** Create, list and disable limits of one owner type, under /v1/admin/{merchants|channels}/{id}/limits. */
function limitOperations(entityType: 'merchant' | 'channel'): Operation[] {
  const merchant = entityType === 'merchant';
  const base = merchant ? '/v1/admin/merchants/{id}/limits' : '/v1/admin/channels/{id}/limits';
  const resource = merchant ? 'merchants' : 'channels';
  const Name = merchant ? 'Merchant' : 'Channel';
  const tag = merchant ? 'Merchants' : 'Channels';
  return [
    defineOperation({
      id: `create${Name}Limit`, method: 'post', path: base, levels: ['T', 'P'], permission: `organization:${resource}:manage`, tag,
      summary: `Create a ${entityType} limit`,
      description: `threshold: a positive integer, in minor units of currency for metric volume (currency required), a number of transactions for metric count.${merchant ? '' : ' currency must be one of the channel\'s currencies.'}`,
      kind: 'single', status: 201, params: idParams, body: CreateLimitBody, response: LimitSchema,
      handler: (ctx, { params, body }) => limits.createLimit(ctx, { ...body, entityType, entityId: params.id }),
    }),
    defineOperation({
      id: `list${Name}Limits`, method: 'get', path: base, levels: merchant ? ['M', 'T', 'P'] : ['T', 'P'], permission: `organization:${resource}:view`, tag,
      summary: `List ${entityType} limits`, description: merchant ? 'A merchant caller lists its own merchant\'s limits only.' : undefined,
      kind: 'list', params: idParams, query: ListLimitsQuery, response: LimitSchema,
      handler: (ctx, { params, query: { cursor, limit, sortOrder, ...filters } }) =>
        limits.listLimits(ctx, { entityType, entityId: params.id }, filters, { cursor, limit, sortOrder }),
    }),
    defineOperation({
      id: `disable${Name}Limit`, method: 'post', path: `${base}/{limitId}/disable`, levels: ['T', 'P'], permission: `organization:${resource}:manage`, tag,
      summary: `Disable a ${entityType} limit`, description: '409 INVALID_STATE_TRANSITION when already disabled.',
      kind: 'single', params: limitParams, response: LimitSchema,
      handler: (ctx, { params }) => limits.disableLimit(ctx, { entityType, entityId: params.id }, params.limitId),
    }),
  ];
}

/** Partners, partner assignments, channels, merchant and channel limits. */
export const partnerOperations: Operation[] = [...partnerOps, ...assignmentOps, ...channelOps, ...limitOperations('channel'), ...limitOperations('merchant')];
