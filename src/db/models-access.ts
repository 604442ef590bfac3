import type { Sequelize } from 'sequelize';
import { define, pk, stamps, UUID, STRING, JSONT, BOOLEAN, DATE, type RowModel, type Timestamps } from './model-kit';

// Users, roles and invitations (the access area).

export interface UserRow extends Timestamps {
  id: string;
  tenantId: string | null;
  merchantId: string | null;
  layer: 'merchant' | 'operator' | 'platform';
  externalIdpId: string | null;
  email: string;
  displayName: string | null;
  status: string;
  entityScope: Record<string, unknown>;
  mfaEnabled: boolean;
  lastLoginAt: Date | null;
  createdBy: string | null;
}

export interface AccessModels {
  User: RowModel<UserRow>;
}

export function defineAccessModels(sequelize: Sequelize): AccessModels {
  return {
    User: define<UserRow>(
      sequelize,
      'User',
      'users',
      {
        id: pk, tenantId: UUID, merchantId: UUID, layer: STRING, externalIdpId: STRING, email: STRING,
        displayName: STRING, status: STRING, entityScope: JSONT, mfaEnabled: BOOLEAN, lastLoginAt: DATE,
        createdBy: UUID, ...stamps,
      },
      { resource: 'user', tenant: 'tenantId', merchant: 'merchantId', mode: null, tenantNullable: true },
    ),
  };
}
