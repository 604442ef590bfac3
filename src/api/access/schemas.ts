import { z } from '../zod';
import { refersTo } from '../references';
import { Email, NullableTimestamp, Timestamp, listQuery } from '../common';
import { LAYERS } from '../../domain/level';

/** A user's, role's or invitation's level, spelled as the wire spells it (a tenant's users are operators). */
const Layer = z.enum(LAYERS);
const UserStatus = z.enum(['pending_invitation', 'active', 'disabled']);
const InvitationStatus = z.enum(['pending', 'accepted', 'canceled', 'expired']);
const PermissionCodes = z.array(z.string().max(100)).max(200);
const RoleIds = z.array(refersTo('role', z.string().uuid())).max(50);

export const EntityScopeSchema = z
  .object({ type: z.string() })
  .catchall(z.unknown())
  .openapi('EntityScope', {
    description:
      'What the user sees within its tenant or merchant: { "type": "all" } (default), or for operator users { "type": "merchants", "merchantIds": [...] }: ' +
      'the user then sees and changes only records of those merchants: records owned by no merchant (tenant keys and endpoints) are invisible, ' +
      "tenant-wide records (the tenant, companies, partners, channels) cannot be changed, and companies are visible only as those merchants' companies. " +
      'A caller limited itself grants only within its own merchants.',
  });

export const UserSchema = z
  .object({
    id: z.string().uuid(),
    tenantId: z.string().uuid().nullable().openapi({ description: 'null for platform users' }),
    merchantId: z.string().uuid().nullable().openapi({ description: 'set for merchant-layer users' }),
    externalIdpId: z.string().nullable().openapi({ description: 'the identity-provider subject, set when the invitation is accepted' }),
    email: z.string(),
    displayName: z.string().nullable(),
    status: UserStatus,
    layer: Layer,
    entityScope: EntityScopeSchema,
    mfaEnabled: z.boolean(),
    isOwner: z.boolean().openapi({ description: 'an owner holds every permission of its layer, whatever its roles' }),
    roleIds: z.array(z.string().uuid()),
    lastLoginAt: NullableTimestamp,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    deletedAt: NullableTimestamp,
    createdBy: z.string().uuid().nullable(),
  })
  .strict()
  .openapi('User');

export const InvitationSchema = z
  .object({
    id: z.string().uuid(),
    tenantId: z.string().uuid().nullable(),
    merchantId: z.string().uuid().nullable(),
    userId: z.string().uuid(),
    email: z.string(),
    layer: Layer,
    status: InvitationStatus.openapi({ description: 'expired: a pending invitation past expiresAt' }),
    expiresAt: Timestamp,
    acceptedAt: NullableTimestamp,
    canceledAt: NullableTimestamp,
    sentCount: z.number().int(),
    createdBy: z.string().nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .strict()
  .openapi('Invitation');

export const IssuedInvitationSchema = InvitationSchema.extend({
  token: z
    .string()
    .openapi({ description: 'The single-use invitation token (inv_…), shown in this answer only; only its SHA-256 is stored.' }),
})
  .strict()
  .openapi('IssuedInvitation');

export const InviteResultSchema = z.object({ user: UserSchema, invitation: IssuedInvitationSchema }).strict().openapi('UserInvitation');

export const RoleSchema = z
  .object({
    id: z.string().uuid(),
    tenantId: z.string().uuid().nullable().openapi({ description: 'null for platform roles' }),
    merchantId: z.string().uuid().nullable().openapi({ description: 'set for merchant-layer roles (they belong to one merchant)' }),
    layer: Layer,
    name: z.string(),
    description: z.string().nullable(),
    permissions: z.array(z.string()),
    createdBy: z.string().nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    deletedAt: NullableTimestamp,
  })
  .strict()
  .openapi('Role');

export const PermissionListSchema = z
  .object({
    layer: Layer,
    permissions: z.array(z.object({ code: z.string(), description: z.string(), grantable: z.boolean() }).strict()),
  })
  .strict()
  .openapi('LayerPermissions');

export const ListUsersQuery = listQuery({
  status: UserStatus.optional(),
  layer: Layer.optional(),
  merchantId: refersTo('merchant', z.string().uuid()).optional(),
  email: z.string().min(1).max(254).optional(),
  roleId: refersTo('role', z.string().uuid()).optional(),
});

export const InviteUserBody = z
  .strictObject({
    email: Email,
    displayName: z.string().trim().min(1).max(200).nullable().optional(),
    roleIds: RoleIds.optional(),
    layer: Layer.optional().openapi({
      description:
        "Defaults to the caller's layer (merchant when a tenant caller gives merchantId). A tenant caller may invite operator or merchant users.",
    }),
    merchantId: refersTo('merchant', z.string().uuid())
      .optional()
      .openapi({ description: 'For merchant-layer users invited by a tenant caller.' }),
    entityScope: EntityScopeSchema.optional(),
    owner: z
      .boolean()
      .optional()
      .openapi({ description: 'Invite an owner (every permission of the layer); only a caller holding the whole layer may.' }),
  })
  .openapi('InviteUserRequest');

export const UpdateUserBody = z
  .strictObject({
    displayName: z.string().trim().min(1).max(200).nullable().optional(),
    roleIds: RoleIds.optional().openapi({ description: "Replaces the user's roles." }),
    entityScope: EntityScopeSchema.optional(),
    mfaEnabled: z.boolean().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'provide at least one of displayName, roleIds, entityScope, mfaEnabled' })
  .openapi('UpdateUserRequest');

export const ListInvitationsQuery = listQuery({
  status: InvitationStatus.optional(),
  userId: refersTo('user', z.string().uuid()).optional(),
  email: z.string().min(1).max(254).optional(),
});

export const ListRolesQuery = listQuery({
  layer: Layer.optional(),
  merchantId: refersTo('merchant', z.string().uuid()).optional(),
});

export const CreateRoleBody = z
  .strictObject({
    name: z.string().trim().min(1).max(100),
    description: z.string().max(1000).nullable().optional(),
    permissions: PermissionCodes,
    layer: Layer.optional().openapi({
      description: "Defaults to the caller's layer; a tenant caller may create merchant roles (with merchantId).",
    }),
    merchantId: refersTo('merchant', z.string().uuid()).optional(),
  })
  .openapi('CreateRoleRequest');

export const UpdateRoleBody = z
  .strictObject({
    name: z.string().trim().min(1).max(100).optional(),
    description: z.string().max(1000).nullable().optional(),
    permissions: PermissionCodes.optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'provide at least one of name, description, permissions' })
  .openapi('UpdateRoleRequest');

export const PermissionsQuery = z.object({
  layer: Layer.optional().openapi({ description: "Defaults to the caller's layer; tenant callers may ask for merchant." }),
});
