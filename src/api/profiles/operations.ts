import { defineOperation, type Operation } from '../registry';
import { idParams } from '../common';
import * as profiles from '../../services/profiles';
import {
  CreateIntegrationProfileBody,
  IntegrationProfileSchema,
  ListIntegrationProfilesQuery,
  UpdateIntegrationProfileBody,
} from './schemas';

const tag = 'Integration profiles';
const manage = 'processing:integration-profiles:manage';
const view = 'processing:integration-profiles:view';

/** Integration profiles. */
export const profileOperations: Operation[] = [
  defineOperation({
    id: 'createIntegrationProfile',
    method: 'post',
    path: '/v1/admin/integration-profiles',
    levels: ['T', 'P'],
    permission: manage,
    tag,
    summary: "Create a merchant's integration profile for one mode",
    description:
      "The merchant must be one the caller sees (404 otherwise); the profile belongs to the merchant's tenant. One profile per merchant and mode (409 INTEGRATION_PROFILE_EXISTS). Starts enabled unless status says otherwise.",
    kind: 'single',
    status: 201,
    body: CreateIntegrationProfileBody,
    response: IntegrationProfileSchema,
    handler: (ctx, { body }) => profiles.createProfile(ctx, body),
  }),
  defineOperation({
    id: 'listIntegrationProfiles',
    method: 'get',
    path: '/v1/admin/integration-profiles',
    levels: ['T', 'P'],
    permission: view,
    tag,
    summary: 'List integration profiles',
    kind: 'list',
    query: ListIntegrationProfilesQuery,
    response: IntegrationProfileSchema,
    handler: (ctx, { query: { cursor, limit, sortOrder, ...filters } }) =>
      profiles.listProfiles(ctx, filters, { cursor, limit, sortOrder }),
  }),
  defineOperation({
    id: 'getIntegrationProfile',
    method: 'get',
    path: '/v1/admin/integration-profiles/{id}',
    levels: ['T', 'P'],
    permission: view,
    tag,
    summary: 'Get an integration profile',
    kind: 'single',
    params: idParams,
    response: IntegrationProfileSchema,
    handler: (ctx, { params }) => profiles.getProfile(ctx, params.id),
  }),
  defineOperation({
    id: 'updateIntegrationProfile',
    method: 'patch',
    path: '/v1/admin/integration-profiles/{id}',
    levels: ['T', 'P'],
    permission: manage,
    tag,
    summary: 'Update an integration profile',
    description: 'Changes the given fields, status (enabled or disabled) included; merchantId and mode are fixed.',
    kind: 'single',
    params: idParams,
    body: UpdateIntegrationProfileBody,
    response: IntegrationProfileSchema,
    handler: (ctx, { params, body }) => profiles.updateProfile(ctx, params.id, body),
  }),
];
