import { defineOperation } from '../registry';
import { idParams } from '../common';
import * as tenants from '../../services/tenants/tenants';
import type { AccountMove } from '../../services/status';
import { CreateTenantBody, ListTenantsQuery, TenantSchema, UpdateTenantBody } from './schemas';

const tag = 'Tenants';

const statusMove = (move: AccountMove, summary: string) =>
  defineOperation({
    id: `${move}Tenant`,
    method: 'post',
    path: `/v1/admin/tenants/{id}/${move}`,
    levels: ['P'],
    permission: 'organization:tenants:manage',
    tag,
    summary,
    description: '409 when the current status does not allow the move.',
    kind: 'single',
    params: idParams,
    response: TenantSchema,
    handler: (ctx, { params }) => tenants.changeTenantStatus(ctx, params.id, move),
  });

export const tenantOperations = [
  defineOperation({
    id: 'listTenants',
    method: 'get',
    path: '/v1/admin/tenants',
    levels: ['T', 'P'],
    permission: 'organization:tenants:view',
    tag,
    summary: 'List tenants',
    description: 'A tenant caller sees its own tenant; the platform sees all.',
    kind: 'list',
    query: ListTenantsQuery,
    response: TenantSchema,
    handler: (ctx, { query: { cursor, limit, sortOrder, ...filters } }) => tenants.listTenants(ctx, filters, { cursor, limit, sortOrder }),
  }),
  defineOperation({
    id: 'createTenant',
    method: 'post',
    path: '/v1/admin/tenants',
    levels: ['P'],
    permission: 'organization:tenants:manage',
    tag,
    summary: 'Create a tenant',
    kind: 'single',
    status: 201,
    body: CreateTenantBody,
    response: TenantSchema,
    handler: (ctx, { body }) => tenants.createTenant(ctx, body),
  }),
  defineOperation({
    id: 'getTenant',
    method: 'get',
    path: '/v1/admin/tenants/{id}',
    levels: ['T', 'P'],
    permission: 'organization:tenants:view',
    tag,
    summary: 'Get a tenant',
    kind: 'single',
    params: idParams,
    response: TenantSchema,
    handler: (ctx, { params }) => tenants.getTenant(ctx, params.id),
  }),
  defineOperation({
    id: 'updateTenant',
    method: 'patch',
    path: '/v1/admin/tenants/{id}',
    levels: ['T', 'P'],
    permission: 'organization:tenants:manage',
    tag,
    summary: 'Update a tenant',
    kind: 'single',
    params: idParams,
    body: UpdateTenantBody,
    response: TenantSchema,
    handler: (ctx, { params, body }) => tenants.updateTenant(ctx, params.id, body),
  }),
  statusMove('activate', 'Activate a suspended or disabled tenant'),
  statusMove('suspend', 'Suspend an active tenant'),
  statusMove('disable', 'Disable a tenant'),
];
