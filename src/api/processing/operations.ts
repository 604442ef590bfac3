import { pathRecord } from '../references';
import { defineOperation, type Operation } from '../registry';
import { idParams } from '../common';
import * as providers from '../../services/processing/providers';
import { rotateCredentials } from '../../services/processing/terminals/credentials';
import { createTerminalLimit, disableTerminalLimit, listTerminalLimits } from '../../services/processing/terminals/limits';
import { addMpiAccount, deleteMpiAccount, updateMpiAccount } from '../../services/processing/terminals/mpi-accounts';
import {
  createRestriction, disableRestriction, listRestrictions, updateRestriction,
} from '../../services/processing/terminals/restrictions';
import { createTerminal, disableTerminal, getTerminal, listTerminals, updateTerminal } from '../../services/processing/terminals/terminals';
import { getThreeDsConfig, putThreeDsConfig } from '../../services/processing/terminals/three-ds';
import { CreateLimitBody, LimitSchema, ListLimitsQuery, limitParams } from '../limits/schemas';
import {
  AdjustCapabilitiesBody, CreateRestrictionBody, CreateTerminalBody, ListProvidersQuery, ListRestrictionsQuery, ListTerminalsQuery, MpiAccountBody,
  ProviderIntegrationSchema, PutThreeDsConfigBody, RestrictionSchema, RotateCredentialsBody, SetProviderStatusBody, TerminalSchema, ThreeDsConfigSchema,
  UpdateMpiAccountBody, UpdateRestrictionBody, UpdateTerminalBody, brandParams, restrictionParams,
} from './schemas';

const T_P: ('T' | 'P')[] = ['T', 'P'];
const VIEW = 'processing:terminals:view';
const MANAGE = 'processing:terminals:manage';
const NEVER = 'Credentials are never returned: a terminal shows its credentialBindingId only.';

const MpiAccountSchema = ThreeDsConfigSchema.shape.mpiAccounts.element;

const providerOps = [
  defineOperation({
    id: 'listProviderIntegrations', method: 'get', path: '/v1/admin/provider-integrations', levels: T_P, permission: 'processing:providers:view',
    tag: 'Provider integrations', summary: 'List the connector catalog', description: 'Platform-wide: every caller sees the same catalog, with the platform\'s adjustments applied.',
    kind: 'list', query: ListProvidersQuery, response: ProviderIntegrationSchema,
    handler: (ctx, { query: { cursor, limit, sortOrder, ...filters } }) => providers.listProviders(ctx, filters, { cursor, limit, sortOrder }),
  }),
  defineOperation({
    id: 'getProviderIntegration', method: 'get', path: '/v1/admin/provider-integrations/{id}', levels: T_P, permission: 'processing:providers:view',
    tag: 'Provider integrations', summary: 'Get a provider integration', kind: 'single', params: idParams, response: ProviderIntegrationSchema,
    handler: (ctx, { params }) => providers.getProvider(ctx, params.id),
  }),
  defineOperation({
    id: 'setProviderIntegrationStatus', method: 'patch', path: '/v1/admin/provider-integrations/{id}/status', levels: ['P'], permission: 'processing:providers:manage',
    tag: 'Provider integrations', summary: 'Set a provider integration\'s status (available, maintenance or deprecated)',
    description: 'Any of the three to any other; audited. Routing skips providers in maintenance or deprecated; a deprecated provider takes no new terminals.',
    kind: 'single', params: idParams, body: SetProviderStatusBody, response: ProviderIntegrationSchema,
    handler: (ctx, { params, body }) => providers.setProviderStatus(ctx, params.id, body.status),
  }),
  defineOperation({
    id: 'adjustProviderIntegrationCapabilities', method: 'patch', path: '/v1/admin/provider-integrations/{id}/capabilities', levels: ['P'],
    permission: 'processing:providers:manage', tag: 'Provider integrations', summary: 'Overlay capability adjustments on a provider integration (audited)',
    kind: 'single', params: idParams, body: AdjustCapabilitiesBody, response: ProviderIntegrationSchema,
    handler: (ctx, { params, body }) => providers.adjustCapabilities(ctx, params.id, body),
  }),
];

const terminalOps = [
  defineOperation({
    id: 'createTerminal', method: 'post', path: '/v1/admin/terminals', levels: T_P, permission: MANAGE, tag: 'Terminals',
    summary: 'Create a terminal (credentials stored encrypted, never returned)',
    description: `Starts active. Platform callers name the tenant (tenantId). credentials are checked against the provider's credentialSchema (400 naming the field) and sealed. ${NEVER} 409 PROVIDER_DEPRECATED for a deprecated provider.`,
    kind: 'single', status: 201, body: CreateTerminalBody, response: TerminalSchema,
    handler: (ctx, { body }) => createTerminal(ctx, body),
  }),
  defineOperation({
    id: 'listTerminals', method: 'get', path: '/v1/admin/terminals', levels: T_P, permission: VIEW, tag: 'Terminals', summary: 'List terminals',
    kind: 'list', query: ListTerminalsQuery, response: TerminalSchema,
    handler: (ctx, { query: { cursor, limit, sortOrder, ...filters } }) => listTerminals(ctx, filters, { cursor, limit, sortOrder }),
  }),
  defineOperation({
    id: 'getTerminal', method: 'get', path: '/v1/admin/terminals/{id}', levels: T_P, permission: VIEW, tag: 'Terminals', summary: 'Get a terminal',
    description: NEVER, kind: 'single', params: idParams, response: TerminalSchema,
    handler: (ctx, { params }) => getTerminal(ctx, params.id),
  }),
  defineOperation({
    id: 'updateTerminal', method: 'patch', path: '/v1/admin/terminals/{id}', levels: T_P, permission: MANAGE, tag: 'Terminals', summary: 'Update a terminal',
    description: '409 TERMINAL_DISABLED for a disabled terminal.', kind: 'single', params: pathRecord('terminal'), body: UpdateTerminalBody, response: TerminalSchema,
    handler: (ctx, { params, body }) => updateTerminal(ctx, params.id, body),
  }),
  defineOperation({
    id: 'disableTerminal', method: 'post', path: '/v1/admin/terminals/{id}/disable', levels: T_P, permission: MANAGE, tag: 'Terminals',
    summary: 'Disable a terminal', description: '409 INVALID_STATE_TRANSITION when already disabled. A disabled terminal is read-only.',
    kind: 'single', params: idParams, response: TerminalSchema,
    handler: (ctx, { params }) => disableTerminal(ctx, params.id),
  }),
  defineOperation({
    id: 'rotateTerminalCredentials', method: 'post', path: '/v1/admin/terminals/{id}/rotate-credentials', levels: T_P, permission: MANAGE, tag: 'Terminals',
    summary: 'Replace the credential binding', description: `A new binding (new credentialBindingId) with the given credentials, checked against the provider's credentialSchema. ${NEVER}`,
    kind: 'single', params: idParams, body: RotateCredentialsBody, response: TerminalSchema,
    handler: (ctx, { params, body }) => rotateCredentials(ctx, params.id, body.credentials),
  }),
  defineOperation({
    id: 'getTerminalThreeDsConfig', method: 'get', path: '/v1/admin/terminals/{id}/3ds-config', levels: T_P, permission: VIEW, tag: 'Terminals',
    summary: 'Get a terminal\'s 3DS configuration', description: 'MPI accounts show their mcc and preferredVersion (defaults filled in).',
    kind: 'single', params: idParams, response: ThreeDsConfigSchema,
    handler: (ctx, { params }) => getThreeDsConfig(ctx, params.id),
  }),
  defineOperation({
    id: 'putTerminalThreeDsConfig', method: 'put', path: '/v1/admin/terminals/{id}/3ds-config', levels: T_P, permission: MANAGE, tag: 'Terminals',
    summary: 'Replace a terminal\'s 3DS configuration', kind: 'single', params: idParams, body: PutThreeDsConfigBody, response: TerminalSchema,
    handler: (ctx, { params, body }) => putThreeDsConfig(ctx, params.id, body),
  }),
  defineOperation({
    id: 'addTerminalMpiAccount', method: 'post', path: '/v1/admin/terminals/{id}/3ds-config/mpi-accounts', levels: T_P, permission: MANAGE, tag: 'Terminals',
    summary: 'Add an MPI account', description: 'One per brand (a brand of the terminal): 409 MPI_ACCOUNT_EXISTS when the brand has one.',
    kind: 'single', status: 201, params: idParams, body: MpiAccountBody, response: MpiAccountSchema,
    handler: (ctx, { params, body }) => addMpiAccount(ctx, params.id, body),
  }),
  defineOperation({
    id: 'updateTerminalMpiAccount', method: 'patch', path: '/v1/admin/terminals/{id}/3ds-config/mpi-accounts/{brand}', levels: T_P, permission: MANAGE,
    tag: 'Terminals', summary: 'Update the MPI account of a brand', kind: 'single', params: brandParams, body: UpdateMpiAccountBody, response: MpiAccountSchema,
    handler: (ctx, { params, body }) => updateMpiAccount(ctx, params.id, params.brand, body),
  }),
  defineOperation({
    id: 'deleteTerminalMpiAccount', method: 'delete', path: '/v1/admin/terminals/{id}/3ds-config/mpi-accounts/{brand}', levels: T_P, permission: MANAGE,
    tag: 'Terminals', summary: 'Delete the MPI account of a brand', description: 'Answers with the terminal.',
    kind: 'single', params: brandParams, response: TerminalSchema,
    handler: (ctx, { params }) => deleteMpiAccount(ctx, params.id, params.brand),
  }),
  defineOperation({
    id: 'createTerminalRestriction', method: 'post', path: '/v1/admin/terminals/{id}/restrictions', levels: T_P, permission: MANAGE, tag: 'Terminals',
    summary: 'Create a terminal restriction', kind: 'single', status: 201, params: idParams, body: CreateRestrictionBody, response: RestrictionSchema,
    handler: (ctx, { params, body }) => createRestriction(ctx, params.id, body),
  }),
  defineOperation({
    id: 'listTerminalRestrictions', method: 'get', path: '/v1/admin/terminals/{id}/restrictions', levels: T_P, permission: VIEW, tag: 'Terminals',
    summary: 'List a terminal\'s restrictions', kind: 'list', params: idParams, query: ListRestrictionsQuery, response: RestrictionSchema,
    handler: (ctx, { params, query: { cursor, limit, sortOrder, ...filters } }) => listRestrictions(ctx, params.id, filters, { cursor, limit, sortOrder }),
  }),
  defineOperation({
    id: 'updateTerminalRestriction', method: 'patch', path: '/v1/admin/terminals/{id}/restrictions/{restrictionId}', levels: T_P, permission: MANAGE,
    tag: 'Terminals', summary: 'Update a terminal restriction', description: '409 INVALID_STATE_TRANSITION for a disabled restriction.',
    kind: 'single', params: restrictionParams, body: UpdateRestrictionBody, response: RestrictionSchema,
    handler: (ctx, { params, body }) => updateRestriction(ctx, params.id, params.restrictionId, body),
  }),
  defineOperation({
    id: 'disableTerminalRestriction', method: 'post', path: '/v1/admin/terminals/{id}/restrictions/{restrictionId}/disable', levels: T_P, permission: MANAGE,
    tag: 'Terminals', summary: 'Disable a terminal restriction', description: '409 INVALID_STATE_TRANSITION when already disabled.',
    kind: 'single', params: restrictionParams, response: RestrictionSchema,
    handler: (ctx, { params }) => disableRestriction(ctx, params.id, params.restrictionId),
  }),
  defineOperation({
    id: 'createTerminalLimit', method: 'post', path: '/v1/admin/terminals/{id}/limits', levels: T_P, permission: MANAGE, tag: 'Terminals',
    summary: 'Create a terminal limit', description: 'period, metric and threshold required; currency (required for volume) must be one of the terminal\'s supportedCurrencies.',
    kind: 'single', status: 201, params: idParams, body: CreateLimitBody, response: LimitSchema,
    handler: (ctx, { params, body }) => createTerminalLimit(ctx, params.id, body),
  }),
  defineOperation({
    id: 'listTerminalLimits', method: 'get', path: '/v1/admin/terminals/{id}/limits', levels: T_P, permission: VIEW, tag: 'Terminals',
    summary: 'List a terminal\'s limits', kind: 'list', params: idParams, query: ListLimitsQuery, response: LimitSchema,
    handler: (ctx, { params, query: { cursor, limit, sortOrder, ...filters } }) => listTerminalLimits(ctx, params.id, filters, { cursor, limit, sortOrder }),
  }),
  defineOperation({
    id: 'disableTerminalLimit', method: 'post', path: '/v1/admin/terminals/{id}/limits/{limitId}/disable', levels: T_P, permission: MANAGE, tag: 'Terminals',
    summary: 'Disable a terminal limit', description: '409 INVALID_STATE_TRANSITION when already disabled.',
    kind: 'single', params: limitParams, response: LimitSchema,
    handler: (ctx, { params }) => disableTerminalLimit(ctx, params.id, params.limitId),
  }),
];


/** Provider integrations and terminals. */
export const processingOperations: Operation[] = [...providerOps, ...terminalOps];
