import { ConflictError } from '../../domain/errors';
import { defineOperation, type IdempotencyPolicy } from '../registry';
import { idParams } from '../common';
import * as keys from '../../services/api-keys/keys';
import {
  ApiKeySchema, CreateApiKeyBody, GrantablePermissionsSchema, GrantableQuery, IssuedApiKeySchema, ListApiKeysQuery,
  RotateApiKeyBody, UpdateApiKeyBody,
} from './schemas';

const tag = 'API keys';

/** The specification's replay rule for issuing keys: 409 API_KEY_ALREADY_ISSUED naming the key; no second secret. */
const alreadyIssued: IdempotencyPolicy = {
  anyBody: true,
  store: (body) => ({ id: (body as { data: { id: string } }).data.id }),
  replay: (stored) => {
    const id = (stored as { id: string }).id;
    throw new ConflictError('API_KEY_ALREADY_ISSUED', `A key (${id}) was already issued for this Idempotency-Key; its secret is not shown again.`, {
      instance: id,
      hint: 'Use a new Idempotency-Key to issue another key.',
    });
  },
};

export const apiKeyOperations = [
  defineOperation({
    id: 'listApiKeys', method: 'get', path: '/v1/api-keys', levels: ['M', 'T'], permission: 'api-keys:keys:view', tag,
    summary: 'List API keys', description: 'Keys visible to the caller, in the caller\'s mode only; never the secret.',
    kind: 'list', query: ListApiKeysQuery, response: ApiKeySchema,
    handler: (ctx, { query: { cursor, limit, sortOrder, ...filters } }) => keys.listApiKeys(ctx, filters, { cursor, limit, sortOrder }),
  }),
  defineOperation({
    id: 'createApiKey', method: 'post', path: '/v1/api-keys', levels: ['M', 'T'], permission: 'api-keys:keys:manage', tag,
    summary: 'Issue an API key pair',
    description: 'Returns the secret once. Replaying the Idempotency-Key answers 409 API_KEY_ALREADY_ISSUED with the key id in instance.',
    kind: 'single', status: 201, body: CreateApiKeyBody, response: IssuedApiKeySchema, idempotency: alreadyIssued,
    handler: (ctx, { body }) => keys.createApiKey(ctx, body),
  }),
  defineOperation({
    id: 'listGrantablePermissions', method: 'get', path: '/v1/api-keys/grantable-permissions', levels: ['M', 'T'],
    permission: 'api-keys:keys:view', tag, summary: 'Permission codes a key of ownerType may carry',
    description: 'The owner layer\'s codes intersected with the caller\'s own permissions.',
    kind: 'single', query: GrantableQuery, response: GrantablePermissionsSchema,
    handler: async (ctx, { query }) => keys.grantablePermissions(ctx, query.ownerType),
  }),
  defineOperation({
    id: 'getApiKey', method: 'get', path: '/v1/api-keys/{id}', levels: ['M', 'T'], permission: 'api-keys:keys:view', tag,
    summary: 'Get an API key', kind: 'single', params: idParams, response: ApiKeySchema,
    handler: (ctx, { params }) => keys.getApiKey(ctx, params.id),
  }),
  defineOperation({
    id: 'updateApiKey', method: 'patch', path: '/v1/api-keys/{id}', levels: ['M', 'T'], permission: 'api-keys:keys:manage', tag,
    summary: 'Update name, permissions or expiresAt', description: '409 when the key is revoked or expired.',
    kind: 'single', params: idParams, body: UpdateApiKeyBody, response: ApiKeySchema,
    handler: (ctx, { params, body }) => keys.updateApiKey(ctx, params.id, body),
  }),
  defineOperation({
    id: 'deleteApiKey', method: 'delete', path: '/v1/api-keys/{id}', levels: ['M', 'T'], permission: 'api-keys:keys:manage', tag,
    summary: 'Revoke an API key', description: 'Permanent; the record is kept with status revoked.',
    kind: 'single', params: idParams, response: ApiKeySchema,
    handler: (ctx, { params }) => keys.revokeApiKey(ctx, params.id),
  }),
  defineOperation({
    id: 'revokeApiKey', method: 'post', path: '/v1/api-keys/{id}/revoke', levels: ['M', 'T'], permission: 'api-keys:keys:manage', tag,
    summary: 'Revoke an API key', description: 'Same effect as DELETE; returns the key with status revoked.',
    kind: 'single', params: idParams, response: ApiKeySchema,
    handler: (ctx, { params }) => keys.revokeApiKey(ctx, params.id),
  }),
  defineOperation({
    id: 'rotateApiKey', method: 'post', path: '/v1/api-keys/{id}/rotate', levels: ['M', 'T'], permission: 'api-keys:keys:manage', tag,
    summary: 'Rotate an API key',
    description: 'Issues a successor with the same scope, permissions and ipAllowlist; the source stays active for graceHours (default 24).',
    kind: 'single', status: 201, params: idParams, body: RotateApiKeyBody, response: IssuedApiKeySchema, idempotency: alreadyIssued,
    handler: (ctx, { params, body }) => keys.rotateApiKey(ctx, params.id, body),
  }),
];
