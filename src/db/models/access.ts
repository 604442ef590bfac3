import { DataTypes, type Sequelize } from 'sequelize';
import { define, pk, stamps, UUID, STRING, TEXT, JSONT, BOOLEAN, DATE, INTEGER, type RowModel, type Timestamps } from '../model-kit';
import type { Layer } from '../../domain/level';

// Users, roles and invitations (the access area).

export interface UserRow extends Timestamps {
  id: string;
  tenantId: string | null;
  merchantId: string | null;
  layer: Layer;
  externalIdpId: string | null;
  email: string;
  displayName: string | null;
  status: 'pending_invitation' | 'active' | 'disabled';
  entityScope: Record<string, unknown>;
  mfaEnabled: boolean;
  /** an owner holds every permission of its layer, whatever its roles */
  isOwner: boolean;
  lastLoginAt: Date | null;
  createdBy: string | null;
}

export interface RoleRow extends Timestamps {
  id: string;
  /** null for platform roles */
  tenantId: string | null;
  /** set for merchant-layer roles: they belong to one merchant */
  merchantId: string | null;
  layer: Layer;
  name: string;
  description: string | null;
  permissions: string[];
  createdBy: string | null;
}

export interface UserRoleRow {
  id: string;
  tenantId: string | null;
  merchantId: string | null;
  userId: string;
  roleId: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface InvitationRow extends Timestamps {
  id: string;
  tenantId: string | null;
  merchantId: string | null;
  userId: string;
  email: string;
  layer: Layer;
  /** stored state; a pending invitation past expiresAt reads as expired */
  status: 'pending' | 'accepted' | 'canceled';
  /** SHA-256 of the single-use token; the token itself is never stored */
  tokenHash: string;
  expiresAt: Date;
  acceptedAt: Date | null;
  canceledAt: Date | null;
  sentCount: number;
  createdBy: string | null;
}

export interface AccessModels {
  User: RowModel<UserRow>;
  Role: RowModel<RoleRow>;
  UserRole: RowModel<UserRoleRow>;
  Invitation: RowModel<InvitationRow>;
}

const access = { tenant: 'tenantId', merchant: 'merchantId', mode: null, tenantNullable: true } as const;

export function defineAccessModels(sequelize: Sequelize): AccessModels {
  return {
    User: define<UserRow>(
      sequelize,
      'User',
      'users',
      {
        id: pk,
        tenantId: UUID,
        merchantId: UUID,
        layer: STRING,
        externalIdpId: STRING,
        email: STRING,
        displayName: STRING,
        status: STRING,
        entityScope: JSONT,
        mfaEnabled: BOOLEAN,
        isOwner: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        lastLoginAt: DATE,
        createdBy: UUID,
        ...stamps,
      },
      { resource: 'user', ...access },
    ),
    Role: define<RoleRow>(
      sequelize,
      'Role',
      'roles',
      {
        id: pk,
        tenantId: UUID,
        merchantId: UUID,
        layer: STRING,
        name: STRING,
        description: TEXT,
        permissions: JSONT,
        createdBy: STRING,
        ...stamps,
      },
      { resource: 'role', ...access },
    ),
    UserRole: define<UserRoleRow>(
      sequelize,
      'UserRole',
      'user_roles',
      { id: pk, tenantId: UUID, merchantId: UUID, userId: UUID, roleId: UUID, createdAt: DATE, updatedAt: DATE },
      { resource: 'user role', ...access, softDelete: false },
    ),
    Invitation: define<InvitationRow>(
      sequelize,
      'Invitation',
      'invitations',
      {
        id: pk,
        tenantId: UUID,
        merchantId: UUID,
        userId: UUID,
        email: STRING,
        layer: STRING,
        status: STRING,
        tokenHash: STRING,
        expiresAt: DATE,
        acceptedAt: DATE,
        canceledAt: DATE,
        sentCount: INTEGER,
        createdBy: STRING,
        ...stamps,
      },
      { resource: 'invitation', ...access },
    ),
  };
}
