import { z } from '../zod';
import type { LevelCode } from '../../domain/level';
import { defineOperation } from '../registry';
import { idParams } from '../common';
import * as endpoints from '../../services/webhooks/endpoints';
import * as deliveries from '../../services/webhooks/deliveries';
import { subscribableTypes } from '../../services/webhooks/catalog';
import {
  CreateEndpointBody,
  DeliverySchema,
  EndpointListQuery,
  EventTypeSchema,
  ListDeliveriesQuery,
  RotateSecretBody,
  UpdateEndpointBody,
  WebhookEndpointSchema,
  WebhookEndpointWithSecretSchema,
} from './schemas';

const tag = 'Webhooks';

/** The endpoint operations, once for merchant paths (/v1/webhooks/endpoints) and once for admin paths. */
function endpointOperations(variant: 'merchant' | 'admin') {
  const merchant = variant === 'merchant';
  const base = merchant ? '/v1/webhooks/endpoints' : '/v1/admin/webhook-endpoints';
  const param = merchant ? 'id' : 'endpoint_id';
  const levels: LevelCode[] = merchant ? ['M'] : ['T', 'P'];
  const prefix = merchant ? 'Merchant' : 'Admin';
  const params = z.object({
    [param]: z.string().min(1).openapi({ description: 'Webhook endpoint id (uuid).' }),
  }) as unknown as typeof idParams;
  const idOf = (p: unknown) => (p as Record<string, string>)[param];
  const who = merchant ? "the merchant's" : 'a tenant or platform';
  return [
    defineOperation({
      id: `create${prefix}WebhookEndpoint`,
      method: 'post',
      path: base,
      levels,
      permission: 'developers:webhooks:manage',
      tag,
      summary: `Create ${who} webhook endpoint`,
      description: 'The signing secret is returned once, here.',
      kind: 'single',
      status: 201,
      body: CreateEndpointBody,
      response: WebhookEndpointWithSecretSchema,
      handler: (ctx, { body }) => endpoints.createEndpoint(ctx, body),
    }),
    defineOperation({
      id: `list${prefix}WebhookEndpoints`,
      method: 'get',
      path: base,
      levels,
      permission: 'developers:webhooks:view',
      tag,
      summary: "List webhook endpoints at the caller's level",
      description: 'Secrets are never included.',
      kind: 'list',
      query: EndpointListQuery,
      response: WebhookEndpointSchema,
      handler: (ctx, { query }) => endpoints.listEndpoints(ctx, query),
    }),
    defineOperation({
      id: `get${prefix}WebhookEndpoint`,
      method: 'get',
      path: `${base}/{${param}}`,
      levels,
      permission: 'developers:webhooks:view',
      tag,
      summary: 'Get a webhook endpoint',
      kind: 'single',
      params,
      response: WebhookEndpointSchema,
      handler: (ctx, { params: p }) => endpoints.getEndpoint(ctx, idOf(p)),
    }),
    defineOperation({
      id: `update${prefix}WebhookEndpoint`,
      method: 'patch',
      path: `${base}/{${param}}`,
      levels,
      permission: 'developers:webhooks:manage',
      tag,
      summary: 'Update a webhook endpoint',
      description: 'events replaces the whole subscription set; status disabled stops deliveries.',
      kind: 'single',
      params,
      body: UpdateEndpointBody,
      response: WebhookEndpointSchema,
      handler: (ctx, { params: p, body }) => endpoints.updateEndpoint(ctx, idOf(p), body),
    }),
    defineOperation({
      id: `delete${prefix}WebhookEndpoint`,
      method: 'delete',
      path: `${base}/{${param}}`,
      levels,
      permission: 'developers:webhooks:manage',
      tag,
      summary: 'Delete a webhook endpoint',
      description: 'Soft delete: deliveries stop at once; the record is kept for audit.',
      kind: 'single',
      params,
      response: WebhookEndpointSchema,
      handler: (ctx, { params: p }) => endpoints.deleteEndpoint(ctx, idOf(p)),
    }),
    defineOperation({
      id: `rotate${prefix}WebhookSecret`,
      method: 'post',
      path: `${base}/{${param}}/rotate-secret`,
      levels,
      permission: 'developers:webhooks:manage',
      tag,
      summary: 'Rotate the signing secret',
      description:
        'Returns the new secret and the exact grace deadline (previousSecretExpiresAt); deliveries carry both signatures until then. The same Idempotency-Key replays this answer.',
      kind: 'single',
      params,
      body: RotateSecretBody,
      response: WebhookEndpointWithSecretSchema,
      handler: (ctx, { params: p, body }) => endpoints.rotateEndpointSecret(ctx, idOf(p), body),
    }),
  ];
}

export const webhookOperations = [
  defineOperation({
    id: 'listWebhookEventTypes',
    method: 'get',
    path: '/v1/webhooks/event-types',
    levels: ['M', 'T', 'P'],
    permission: 'developers:webhooks:view',
    tag,
    summary: "Event types the caller's level may subscribe to",
    kind: 'list',
    response: EventTypeSchema,
    handler: async (ctx) => {
      const data = subscribableTypes(ctx.level);
      return { data, pagination: { nextCursor: null, prevCursor: null, hasMore: false, totalCount: data.length } };
    },
  }),
  ...endpointOperations('merchant'),
  defineOperation({
    id: 'listMerchantWebhookDeliveries',
    method: 'get',
    path: '/v1/webhooks/deliveries',
    levels: ['M'],
    permission: 'developers:webhooks:view',
    tag,
    summary: "The merchant's delivery records",
    kind: 'list',
    query: ListDeliveriesQuery,
    response: DeliverySchema,
    handler: (ctx, { query: { endpoint_id, status, eventType, ...page } }) =>
      deliveries.listDeliveries(ctx, { endpointId: endpoint_id, status, eventType }, page),
  }),
  ...endpointOperations('admin'),
  defineOperation({
    id: 'listWebhookDeliveries',
    method: 'get',
    path: '/v1/admin/webhook-deliveries',
    levels: ['T', 'P'],
    permission: 'developers:webhooks:view',
    tag,
    summary: 'Delivery records of the tenant (or all, for the platform)',
    kind: 'list',
    query: ListDeliveriesQuery,
    response: DeliverySchema,
    handler: (ctx, { query: { endpoint_id, status, eventType, ...page } }) =>
      deliveries.listDeliveries(ctx, { endpointId: endpoint_id, status, eventType }, page),
  }),
  defineOperation({
    id: 'getWebhookDelivery',
    method: 'get',
    path: '/v1/admin/webhook-deliveries/{id}',
    levels: ['T', 'P'],
    permission: 'developers:webhooks:view',
    tag,
    summary: 'A delivery record with its attempts',
    kind: 'single',
    params: idParams,
    response: DeliverySchema,
    handler: (ctx, { params }) => deliveries.getDelivery(ctx, params.id),
  }),
  defineOperation({
    id: 'retryWebhookDelivery',
    method: 'post',
    path: '/v1/admin/webhook-deliveries/{id}/retry',
    levels: ['T', 'P'],
    permission: 'developers:webhooks:manage',
    tag,
    summary: 'Deliver a record again now',
    description:
      'A failed, canceled or succeeded delivery is opened again, its next attempt due at once (its attempts are kept); its maxAttempts is never lowered: a failed one (attempts used up) gets one more, a canceled or succeeded one whose attempt now fails goes on with the rest of its schedule. A pending delivery waiting for a later attempt is made due at once, its schedule otherwise unchanged. 409 DELIVERY_ALREADY_DUE when it is pending and due already; 409 WEBHOOK_ENDPOINT_DISABLED or WEBHOOK_ENDPOINT_DELETED when its endpoint cannot receive.',
    kind: 'single',
    params: idParams,
    response: DeliverySchema,
    handler: (ctx, { params }) => deliveries.retryDelivery(ctx, params.id),
  }),
];
