import type { Sequelize } from 'sequelize';
import type { KeyOwnerLevel } from '../../domain/level';
import { define, pk, stamps, UUID, STRING, JSONT, BOOLEAN, DATE, type RowModel, type Timestamps } from '../model-kit';

// API keys: publishable and secret keys, stored as hashes.

export interface ApiKeyRow extends Timestamps {
  id: string;
  tenantId: string;
  merchantId: string | null;
  ownerType: KeyOwnerLevel;
  livemode: boolean;
  environment: 'test' | 'live';
  keyType: string;
  inboundFormat: string;
  name: string;
  keyPrefix: string;
  publicKey: string;
  secretHash: string;
  status: 'active' | 'revoked';
  permissions: string[];
  ipAllowlist: string[];
  expiresAt: Date | null;
  revokedAt: Date | null;
  rotatedFromKeyId: string | null;
  createdBy: string | null;
  createdByType: string;
}

export interface ApiKeyModels {
  ApiKey: RowModel<ApiKeyRow>;
}

export function defineApiKeyModels(sequelize: Sequelize): ApiKeyModels {
  return {
    ApiKey: define<ApiKeyRow>(
      sequelize,
      'ApiKey',
      'api_keys',
      {
        id: pk,
        tenantId: UUID,
        merchantId: UUID,
        ownerType: STRING,
        livemode: BOOLEAN,
        environment: STRING,
        keyType: STRING,
        inboundFormat: STRING,
        name: STRING,
        keyPrefix: STRING,
        publicKey: STRING,
        secretHash: STRING,
        status: STRING,
        permissions: JSONT,
        ipAllowlist: JSONT,
        expiresAt: DATE,
        revokedAt: DATE,
        rotatedFromKeyId: UUID,
        createdBy: STRING,
        createdByType: STRING,
        ...stamps,
      },
      { resource: 'API key', tenant: 'tenantId', merchant: 'merchantId', mode: 'livemode' },
    ),
  };
}
