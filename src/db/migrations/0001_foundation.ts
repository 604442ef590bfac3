import { DataTypes, type QueryInterface } from 'sequelize';
import { id, uuid, str, text, json, bool, date, stamps } from './columns';

export async function up(qi: QueryInterface): Promise<void> {
  await qi.createTable('platforms', { id, name: str(false), createdAt: date(false), updatedAt: date(false) });

  await qi.createTable('tenants', {
    id,
    tenantId: uuid(false),
    platformId: uuid(false),
    livemode: bool(true),
    name: str(false),
    status: str(false),
    defaultCurrency: str(),
    defaultLocale: str(),
    allowedCurrencies: json(false),
    allowedCountries: json(false),
    featureFlags: json(false),
    doorRateLimitPerMinute: { type: DataTypes.INTEGER, allowNull: false },
    contactEmail: str(),
    supportUrl: text(),
    logoUrl: text(),
    termsUrl: text(),
    privacyPolicyUrl: text(),
    ...stamps,
  });
  await qi.addIndex('tenants', ['createdAt', 'id']);
  await qi.addIndex('tenants', ['status', 'createdAt']);

  await qi.createTable('companies', {
    id,
    tenantId: uuid(false),
    livemode: bool(false),
    name: str(false),
    legalName: str(),
    legalAddress: text(),
    country: str(false),
    registrationNumber: str(),
    businessType: str(),
    contactPerson: str(),
    contactEmail: str(),
    contactPhone: str(),
    website: text(),
    status: str(false),
    ...stamps,
  });
  await qi.addIndex('companies', ['tenantId', 'createdAt', 'id']);

  await qi.createTable('merchants', {
    id,
    tenantId: uuid(false),
    companyId: uuid(false),
    name: str(false),
    status: str(false),
    liveStatus: str(false),
    defaultCurrency: str(),
    mcc: str(),
    website: text(),
    ...stamps,
  });
  await qi.addIndex('merchants', ['tenantId', 'createdAt', 'id']);

  await qi.createTable('users', {
    id,
    tenantId: uuid(),
    merchantId: uuid(),
    layer: str(false),
    externalIdpId: str(),
    email: str(false),
    displayName: str(),
    status: str(false),
    entityScope: json(false),
    mfaEnabled: bool(false),
    lastLoginAt: date(),
    createdBy: uuid(),
    ...stamps,
  });
  await qi.addIndex('users', ['externalIdpId'], { unique: true });
  await qi.addIndex('users', ['tenantId', 'createdAt', 'id']);

  await qi.createTable('api_keys', {
    id,
    tenantId: uuid(false),
    merchantId: uuid(),
    ownerType: str(false),
    livemode: bool(false),
    environment: str(false),
    keyType: str(false),
    inboundFormat: str(false),
    name: str(false),
    keyPrefix: str(false),
    publicKey: str(false),
    secretHash: str(false),
    status: str(false),
    permissions: json(false),
    ipAllowlist: json(false),
    expiresAt: date(),
    revokedAt: date(),
    rotatedFromKeyId: uuid(),
    createdBy: str(),
    createdByType: str(false),
    ...stamps,
  });
  await qi.addIndex('api_keys', ['keyPrefix'], { unique: true });
  await qi.addIndex('api_keys', ['publicKey'], { unique: true });
  await qi.addIndex('api_keys', ['tenantId', 'livemode', 'createdAt', 'id']);
  await qi.addIndex('api_keys', ['tenantId', 'merchantId', 'livemode', 'createdAt']);

  await qi.createTable('audit_entries', {
    id,
    tenantId: uuid(),
    merchantId: uuid(),
    livemode: bool(false),
    actorType: str(false),
    actorId: str(false),
    action: str(false),
    targetType: str(false),
    targetId: str(false),
    before: json(),
    after: json(),
    requestId: str(),
    createdAt: date(false),
    updatedAt: date(false),
    deletedAt: date(),
  });
  await qi.addIndex('audit_entries', ['tenantId', 'livemode', 'createdAt', 'id']);
  await qi.addIndex('audit_entries', ['targetId']);

  await qi.createTable('idempotency_records', {
    id,
    scope: str(false),
    key: { type: DataTypes.STRING(128), allowNull: false },
    method: str(false),
    path: text(false),
    fingerprint: str(false),
    state: str(false),
    owner: { type: DataTypes.UUID, allowNull: false },
    responseStatus: { type: DataTypes.INTEGER, allowNull: true },
    responseBody: json(),
    lockedUntil: date(),
    createdAt: date(false),
    updatedAt: date(false),
  });
  await qi.addIndex('idempotency_records', ['scope', 'key'], { unique: true });
  await qi.addIndex('idempotency_records', ['createdAt']);
}

export async function down(qi: QueryInterface): Promise<void> {
  for (const table of ['idempotency_records', 'audit_entries', 'api_keys', 'users', 'merchants', 'companies', 'tenants', 'platforms']) {
    await qi.dropTable(table);
  }
}
