import { pathRecord } from '../references';
import { defineOperation, type Operation } from '../registry';
import { idParams } from '../common';
import * as channels from '../../services/channels';
import { ChannelSchema, CreateChannelBody, ListChannelsQuery, UpdateChannelBody } from './schemas';
import { limitOperations } from '../limits/operations';

const channelOps: Operation[] = [
  defineOperation({
    id: 'createChannel',
    method: 'post',
    path: '/v1/admin/channels',
    levels: ['T', 'P'],
    permission: 'organization:channels:manage',
    tag: 'Channels',
    summary: 'Create a processing channel (payin or payout)',
    description: 'Starts active. Platform callers name the tenant (tenantId).',
    kind: 'single',
    status: 201,
    body: CreateChannelBody,
    response: ChannelSchema,
    handler: (ctx, { body }) => channels.createChannel(ctx, body),
  }),
  defineOperation({
    id: 'listChannels',
    method: 'get',
    path: '/v1/admin/channels',
    levels: ['T', 'P'],
    permission: 'organization:channels:view',
    tag: 'Channels',
    summary: 'List channels',
    kind: 'list',
    query: ListChannelsQuery,
    response: ChannelSchema,
    handler: (ctx, { query: { cursor, limit, sortOrder, ...filters } }) =>
      channels.listChannels(ctx, filters, { cursor, limit, sortOrder }),
  }),
  defineOperation({
    id: 'getChannel',
    method: 'get',
    path: '/v1/admin/channels/{id}',
    levels: ['T', 'P'],
    permission: 'organization:channels:view',
    tag: 'Channels',
    summary: 'Get a channel',
    kind: 'single',
    params: idParams,
    response: ChannelSchema,
    handler: (ctx, { params }) => channels.getChannel(ctx, params.id),
  }),
  defineOperation({
    id: 'updateChannel',
    method: 'patch',
    path: '/v1/admin/channels/{id}',
    levels: ['T', 'P'],
    permission: 'organization:channels:manage',
    tag: 'Channels',
    summary: 'Update a channel',
    kind: 'single',
    params: pathRecord('channel'),
    body: UpdateChannelBody,
    response: ChannelSchema,
    handler: (ctx, { params, body }) => channels.updateChannel(ctx, params.id, body),
  }),
  defineOperation({
    id: 'disableChannel',
    method: 'post',
    path: '/v1/admin/channels/{id}/disable',
    levels: ['T', 'P'],
    permission: 'organization:channels:manage',
    tag: 'Channels',
    summary: 'Disable a channel',
    description: '409 INVALID_STATE_TRANSITION when already disabled.',
    kind: 'single',
    params: idParams,
    response: ChannelSchema,
    handler: (ctx, { params }) => channels.disableChannel(ctx, params.id),
  }),
];

/** Channels and their limits. */
export const channelOperations: Operation[] = [...channelOps, ...limitOperations('channel')];
