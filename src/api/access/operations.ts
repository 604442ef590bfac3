import { pathRecord } from '../references';
import { ConflictError } from '../../domain/errors';
import { defineOperation, type IdempotencyPolicy, type Operation } from '../registry';
import { idParams } from '../common';
import * as users from '../../services/access/users';
import * as roles from '../../services/access/roles';
import * as invitations from '../../services/access/invitations';
import {
  CreateRoleBody, InvitationSchema, InviteResultSchema, InviteUserBody, IssuedInvitationSchema, ListInvitationsQuery, ListRolesQuery,
  ListUsersQuery, PermissionListSchema, PermissionsQuery, RoleSchema, UpdateRoleBody, UpdateUserBody, UserSchema,
} from './schemas';

const L = ['M', 'T', 'P'] as const;
const levels = [...L];

/**
 * An invitation token is shown once: replaying the Idempotency-Key of an invite or a resend answers 409
 * INVITATION_ALREADY_ISSUED naming the invitation, never the token again (as API keys do with their secret).
 */
function invitationIssued(idOf: (data: Record<string, unknown>) => string): IdempotencyPolicy {
  return {
    store: (body) => ({ id: idOf((body as { data: Record<string, unknown> }).data) }),
    replay: (stored) => {
      const id = (stored as { id: string }).id;
      throw new ConflictError('INVITATION_ALREADY_ISSUED', `An invitation token (invitation ${id}) was already issued for this Idempotency-Key; it is not shown again.`, {
        instance: id,
        hint: 'Resend the invitation for a new token.',
      });
    },
  };
}

/** Users, roles, invitations. */
export const accessOperations: Operation[] = [
  defineOperation({
    id: 'listUsers', method: 'get', path: '/v1/users', levels, permission: 'access:users:view', tag: 'Users',
    summary: 'List users in the caller\'s scope',
    description: 'A merchant caller sees its merchant\'s users, a tenant caller its tenant\'s (operator and merchant layers), a platform caller every user.',
    kind: 'list', query: ListUsersQuery, response: UserSchema,
    handler: (ctx, { query: { cursor, limit, sortOrder, ...filters } }) => users.listUsers(ctx, filters, { cursor, limit, sortOrder }),
  }),
  defineOperation({
    id: 'inviteUser', method: 'post', path: '/v1/users/invite', levels, permission: 'access:users:manage', tag: 'Users',
    summary: 'Invite a user by email with roles',
    description:
      'Creates the user in pending_invitation and an invitation valid 7 days. The invitation token is in this answer only (never again, not even on an Idempotency-Key replay: 409 INVITATION_ALREADY_ISSUED; resend issues a new one). ' +
      'Roles must be of the user\'s layer (and merchant) and hold only codes the caller holds (403 PERMISSION_NOT_GRANTABLE).',
    kind: 'single', status: 201, body: InviteUserBody, response: InviteResultSchema,
    idempotency: invitationIssued((data) => (data.invitation as { id: string }).id),
    handler: (ctx, { body }) => invitations.inviteUser(ctx, body),
  }),
  defineOperation({
    id: 'getUser', method: 'get', path: '/v1/users/{id}', levels, permission: 'access:users:view', tag: 'Users',
    summary: 'Get a user', kind: 'single', params: idParams, response: UserSchema,
    handler: (ctx, { params }) => users.getUser(ctx, params.id),
  }),
  defineOperation({
    id: 'updateUser', method: 'patch', path: '/v1/users/{id}', levels, permission: 'access:users:manage', tag: 'Users',
    summary: 'Update displayName, roles, entityScope, mfaEnabled',
    description: 'roleIds replaces the user\'s roles, under the same grant rule as invite. A caller of the user\'s own layer must hold every permission the user holds (403 USER_NOT_MANAGEABLE).',
    kind: 'single', params: pathRecord('user'), body: UpdateUserBody, response: UserSchema,
    handler: (ctx, { params, body }) => users.updateUser(ctx, params.id, body),
  }),
  defineOperation({
    id: 'enableUser', method: 'post', path: '/v1/users/{id}/enable', levels, permission: 'access:users:manage', tag: 'Users',
    summary: 'Enable a disabled user', description: '409 unless the user is disabled.',
    kind: 'single', params: idParams, response: UserSchema,
    handler: (ctx, { params }) => users.changeUserStatus(ctx, params.id, 'enable'),
  }),
  defineOperation({
    id: 'disableUser', method: 'post', path: '/v1/users/{id}/disable', levels, permission: 'access:users:manage', tag: 'Users',
    summary: 'Disable an active user', description: 'Its tokens stop working at once. 409 unless the user is active, and for the caller itself.',
    kind: 'single', params: idParams, response: UserSchema,
    handler: (ctx, { params }) => users.changeUserStatus(ctx, params.id, 'disable'),
  }),
  defineOperation({
    id: 'deleteUser', method: 'delete', path: '/v1/users/{id}', levels, permission: 'access:users:manage', tag: 'Users',
    summary: 'Soft delete a user', description: 'Its tokens stop working at once, its pending invitations are canceled. 409 for the caller itself.',
    kind: 'single', params: idParams, response: UserSchema,
    handler: (ctx, { params }) => users.deleteUser(ctx, params.id),
  }),
  defineOperation({
    id: 'listInvitations', method: 'get', path: '/v1/invitations', levels, permission: 'access:users:view', tag: 'Users',
    summary: 'List invitations', description: 'Never the token.',
    kind: 'list', query: ListInvitationsQuery, response: InvitationSchema,
    handler: (ctx, { query: { cursor, limit, sortOrder, ...filters } }) => invitations.listInvitations(ctx, filters, { cursor, limit, sortOrder }),
  }),
  defineOperation({
    id: 'cancelInvitation', method: 'post', path: '/v1/invitations/{id}/cancel', levels, permission: 'access:users:manage', tag: 'Users',
    summary: 'Cancel a pending invitation', description: '409 for an accepted, canceled or expired invitation.',
    kind: 'single', params: idParams, response: InvitationSchema,
    handler: (ctx, { params }) => invitations.cancelInvitation(ctx, params.id),
  }),
  defineOperation({
    id: 'resendInvitation', method: 'post', path: '/v1/invitations/{id}/resend', levels, permission: 'access:users:manage', tag: 'Users',
    summary: 'Resend an invitation (new token, new expiry)',
    description: 'For a pending or expired invitation: a new token (in this answer only) valid 7 days; the old token stops working. 409 otherwise.',
    kind: 'single', params: idParams, response: IssuedInvitationSchema, idempotency: invitationIssued((data) => data.id as string),
    handler: (ctx, { params }) => invitations.resendInvitation(ctx, params.id),
  }),
  defineOperation({
    id: 'createRole', method: 'post', path: '/v1/roles', levels, permission: 'access:roles:manage', tag: 'Roles',
    summary: 'Create a role from permission codes of the caller\'s layer',
    description:
      'A code outside the role\'s layer is 400 naming body.permissions[i]; a code the caller lacks 403 PERMISSION_NOT_GRANTABLE. ' +
      'Tenant callers may create merchant-layer roles for one of their merchants (layer merchant, merchantId).',
    kind: 'single', status: 201, body: CreateRoleBody, response: RoleSchema,
    handler: (ctx, { body }) => roles.createRole(ctx, body),
  }),
  defineOperation({
    id: 'listRoles', method: 'get', path: '/v1/roles', levels, permission: 'access:roles:view', tag: 'Roles',
    summary: 'List roles', kind: 'list', query: ListRolesQuery, response: RoleSchema,
    handler: (ctx, { query: { cursor, limit, sortOrder, ...filters } }) => roles.listRoles(ctx, filters, { cursor, limit, sortOrder }),
  }),
  defineOperation({
    id: 'getRole', method: 'get', path: '/v1/roles/{id}', levels, permission: 'access:roles:view', tag: 'Roles',
    summary: 'Get a role', kind: 'single', params: idParams, response: RoleSchema,
    handler: (ctx, { params }) => roles.getRole(ctx, params.id),
  }),
  defineOperation({
    id: 'updateRole', method: 'patch', path: '/v1/roles/{id}', levels, permission: 'access:roles:manage', tag: 'Roles',
    summary: 'Update a role', description: 'Changing permissions needs the caller to hold both the old and the new codes. Applies to its users at once.',
    kind: 'single', params: idParams, body: UpdateRoleBody, response: RoleSchema,
    handler: (ctx, { params, body }) => roles.updateRole(ctx, params.id, body),
  }),
  defineOperation({
    id: 'deleteRole', method: 'delete', path: '/v1/roles/{id}', levels, permission: 'access:roles:manage', tag: 'Roles',
    summary: 'Soft delete a role', description: '409 ROLE_IN_USE while the role is assigned to a user.',
    kind: 'single', params: idParams, response: RoleSchema,
    handler: (ctx, { params }) => roles.deleteRole(ctx, params.id),
  }),
  defineOperation({
    id: 'listPermissions', method: 'get', path: '/v1/permissions', levels, permission: 'access:roles:view', tag: 'Roles',
    summary: 'Permission codes available to the caller\'s layer',
    description: 'Each with its description and whether the caller may grant it (holds it).',
    kind: 'single', query: PermissionsQuery, response: PermissionListSchema,
    handler: async (ctx, { query }) => roles.listPermissions(ctx, query.layer),
  }),
];
