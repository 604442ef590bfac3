import { defineOperation, type Operation } from '../registry';
import { idParams } from '../common';
import * as limits from '../../services/limits/manage';
import { CreateLimitBody, LimitSchema, ListLimitsQuery, limitParams } from './schemas';

/** Create, list and disable limits of one owner type, under /v1/admin/{merchants|channels}/{id}/limits. */
export function limitOperations(entityType: 'merchant' | 'channel'): Operation[] {
  const merchant = entityType === 'merchant';
  const base = merchant ? '/v1/admin/merchants/{id}/limits' : '/v1/admin/channels/{id}/limits';
  const resource = merchant ? 'merchants' : 'channels';
  const Name = merchant ? 'Merchant' : 'Channel';
  const tag = merchant ? 'Merchants' : 'Channels';
  return [
    defineOperation({
      id: `create${Name}Limit`,
      method: 'post',
      path: base,
      levels: ['T', 'P'],
      permission: `organization:${resource}:manage`,
      tag,
      summary: `Create a ${entityType} limit`,
      description: `threshold: a positive integer, in minor units of currency for metric volume (currency required), a number of transactions for metric count.${merchant ? '' : " currency must be one of the channel's currencies."}`,
      kind: 'single',
      status: 201,
      params: idParams,
      body: CreateLimitBody,
      response: LimitSchema,
      handler: (ctx, { params, body }) => limits.createLimit(ctx, { ...body, entityType, entityId: params.id }),
    }),
    defineOperation({
      id: `list${Name}Limits`,
      method: 'get',
      path: base,
      levels: merchant ? ['M', 'T', 'P'] : ['T', 'P'],
      permission: `organization:${resource}:view`,
      tag,
      summary: `List ${entityType} limits`,
      description: merchant ? "A merchant caller lists its own merchant's limits only." : undefined,
      kind: 'list',
      params: idParams,
      query: ListLimitsQuery,
      response: LimitSchema,
      handler: (ctx, { params, query: { cursor, limit, sortOrder, ...filters } }) =>
        limits.listLimits(ctx, { entityType, entityId: params.id }, filters, { cursor, limit, sortOrder }),
    }),
    defineOperation({
      id: `disable${Name}Limit`,
      method: 'post',
      path: `${base}/{limitId}/disable`,
      levels: ['T', 'P'],
      permission: `organization:${resource}:manage`,
      tag,
      summary: `Disable a ${entityType} limit`,
      description: '409 INVALID_STATE_TRANSITION when already disabled.',
      kind: 'single',
      params: limitParams,
      response: LimitSchema,
      handler: (ctx, { params }) => limits.disableLimit(ctx, { entityType, entityId: params.id }, params.limitId),
    }),
  ];
}
