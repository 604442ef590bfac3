import { DataTypes, Model, type ModelAttributes, type ModelStatic, type Sequelize } from 'sequelize';

/** How a table is scoped by the caller context: which columns hold tenant, merchant and mode. */
export interface ScopeSpec {
  /** resource name used in 404 messages */
  resource: string;
  tenant: string | null;
  merchant: string | null;
  mode: string | null;
  softDelete: boolean;
  /** rows that may belong to no tenant (platform users, platform-level audit entries) */
  tenantNullable?: boolean;
}

export interface Timestamps {
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
}

export interface PlatformRow {
  id: string;
  name: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface TenantRow extends Timestamps {
  id: string;
  tenantId: string;
  platformId: string;
  livemode: boolean;
  name: string;
  status: 'active' | 'suspended' | 'disabled';
  defaultCurrency: string | null;
  defaultLocale: string | null;
  allowedCurrencies: string[];
  allowedCountries: string[];
  featureFlags: Record<string, boolean>;
  doorRateLimitPerMinute: number;
  contactEmail: string | null;
  supportUrl: string | null;
  logoUrl: string | null;
  termsUrl: string | null;
  privacyPolicyUrl: string | null;
}

export interface CompanyRow extends Timestamps {
  id: string;
  tenantId: string;
  livemode: boolean;
  name: string;
  legalName: string | null;
  legalAddress: string | null;
  country: string;
  registrationNumber: string | null;
  businessType: string | null;
  contactPerson: string | null;
  contactEmail: string | null;
  contactPhone: string | null;
  website: string | null;
  status: string;
}

export interface MerchantRow extends Timestamps {
  id: string;
  tenantId: string;
  companyId: string;
  name: string;
  status: 'active' | 'suspended' | 'disabled';
  liveStatus: 'sandbox' | 'pending_approval' | 'approved';
  defaultCurrency: string | null;
  mcc: string | null;
  website: string | null;
}

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

export interface ApiKeyRow extends Timestamps {
  id: string;
  tenantId: string;
  merchantId: string | null;
  ownerType: 'merchant' | 'tenant';
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

export interface AuditEntryRow extends Timestamps {
  id: string;
  tenantId: string | null;
  merchantId: string | null;
  livemode: boolean;
  actorType: string;
  actorId: string;
  action: string;
  targetType: string;
  targetId: string;
  before: unknown;
  after: unknown;
  requestId: string | null;
}

export interface IdempotencyRow {
  id: string;
  scope: string;
  key: string;
  method: string;
  path: string;
  fingerprint: string;
  state: 'in_progress' | 'completed';
  /** fencing token of the request holding the key: only it may complete or release it */
  owner: string;
  responseStatus: number | null;
  responseBody: unknown;
  lockedUntil: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface WebhookEndpointRow extends Timestamps {
  id: string;
  tenantId: string | null;
  merchantId: string | null;
  level: 'merchant' | 'tenant' | 'platform';
  livemode: boolean;
  url: string;
  events: string[];
  description: string | null;
  status: 'enabled' | 'failing' | 'disabled';
  maxAttempts: number;
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretExpiresAt: Date | null;
  failingSince: Date | null;
  lastSuccessAt: Date | null;
  disabledReason: string | null;
}

export interface EventRow extends Timestamps {
  id: string;
  type: string;
  tenantId: string | null;
  merchantId: string | null;
  livemode: boolean;
  data: Record<string, unknown>;
  apiVersion: string;
}

export interface WebhookDeliveryRow extends Timestamps {
  id: string;
  eventId: string;
  eventType: string;
  endpointId: string;
  tenantId: string | null;
  merchantId: string | null;
  livemode: boolean;
  status: 'pending' | 'succeeded' | 'failed' | 'canceled';
  attemptCount: number;
  maxAttempts: number;
  nextAttemptAt: Date | null;
  lockedUntil: Date | null;
  lockedBy: string | null;
  lastAttemptAt: Date | null;
  lastError: string | null;
  succeededAt: Date | null;
  failedAt: Date | null;
}

export interface WebhookAttemptRow {
  id: string;
  deliveryId: string;
  attempt: number;
  workerId: string | null;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  success: boolean;
  error: string | null;
  responseExcerpt: string | null;
  createdAt: Date;
}

export type RowModel<R extends object> = ModelStatic<Model<R, Partial<R>>> & { scopeSpec: ScopeSpec };

export interface Models {
  Platform: RowModel<PlatformRow>;
  Tenant: RowModel<TenantRow>;
  Company: RowModel<CompanyRow>;
  Merchant: RowModel<MerchantRow>;
  User: RowModel<UserRow>;
  ApiKey: RowModel<ApiKeyRow>;
  AuditEntry: RowModel<AuditEntryRow>;
  Idempotency: RowModel<IdempotencyRow>;
  WebhookEndpoint: RowModel<WebhookEndpointRow>;
  Event: RowModel<EventRow>;
  WebhookDelivery: RowModel<WebhookDeliveryRow>;
  WebhookAttempt: RowModel<WebhookAttemptRow>;
}

const { UUID, STRING, TEXT, JSON: JSONT, BOOLEAN, DATE, INTEGER } = DataTypes;
const pk = { type: UUID, primaryKey: true };
const stamps = { createdAt: DATE, updatedAt: DATE, deletedAt: DATE };

function define<R extends object>(
  sequelize: Sequelize,
  name: string,
  table: string,
  attributes: ModelAttributes,
  scope: Omit<ScopeSpec, 'softDelete'> & { softDelete?: boolean },
): RowModel<R> {
  // Timestamps are written from the injected clock by the scoped data access, never by Sequelize.
  const model = sequelize.define(name, attributes, { tableName: table, timestamps: false }) as unknown as RowModel<R>;
  model.scopeSpec = { softDelete: true, ...scope };
  return model;
}

export function defineModels(sequelize: Sequelize): Models {
  return {
    Platform: define<PlatformRow>(sequelize, 'Platform', 'platforms', { id: pk, name: STRING, createdAt: DATE, updatedAt: DATE }, {
      resource: 'platform', tenant: null, merchant: null, mode: null, softDelete: false,
    }),
    Tenant: define<TenantRow>(
      sequelize,
      'Tenant',
      'tenants',
      {
        id: pk, tenantId: UUID, platformId: UUID, livemode: BOOLEAN, name: STRING, status: STRING,
        defaultCurrency: STRING, defaultLocale: STRING, allowedCurrencies: JSONT, allowedCountries: JSONT,
        featureFlags: JSONT, doorRateLimitPerMinute: INTEGER, contactEmail: STRING, supportUrl: TEXT,
        logoUrl: TEXT, termsUrl: TEXT, privacyPolicyUrl: TEXT, ...stamps,
      },
      // A tenant spans both modes: its record is not filtered by the caller's mode.
      { resource: 'tenant', tenant: 'tenantId', merchant: null, mode: null },
    ),
    Company: define<CompanyRow>(
      sequelize,
      'Company',
      'companies',
      {
        id: pk, tenantId: UUID, livemode: BOOLEAN, name: STRING, legalName: STRING, legalAddress: TEXT,
        country: STRING, registrationNumber: STRING, businessType: STRING, contactPerson: STRING,
        contactEmail: STRING, contactPhone: STRING, website: TEXT, status: STRING, ...stamps,
      },
      { resource: 'company', tenant: 'tenantId', merchant: null, mode: null },
    ),
    Merchant: define<MerchantRow>(
      sequelize,
      'Merchant',
      'merchants',
      {
        id: pk, tenantId: UUID, companyId: UUID, name: STRING, status: STRING, liveStatus: STRING,
        defaultCurrency: STRING, mcc: STRING, website: TEXT, ...stamps,
      },
      { resource: 'merchant', tenant: 'tenantId', merchant: 'id', mode: null },
    ),
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
    ApiKey: define<ApiKeyRow>(
      sequelize,
      'ApiKey',
      'api_keys',
      {
        id: pk, tenantId: UUID, merchantId: UUID, ownerType: STRING, livemode: BOOLEAN, environment: STRING,
        keyType: STRING, inboundFormat: STRING, name: STRING, keyPrefix: STRING, publicKey: STRING,
        secretHash: STRING, status: STRING, permissions: JSONT, ipAllowlist: JSONT, expiresAt: DATE,
        revokedAt: DATE, rotatedFromKeyId: UUID, createdBy: STRING, createdByType: STRING, ...stamps,
      },
      { resource: 'API key', tenant: 'tenantId', merchant: 'merchantId', mode: 'livemode' },
    ),
    AuditEntry: define<AuditEntryRow>(
      sequelize,
      'AuditEntry',
      'audit_entries',
      {
        id: pk, tenantId: UUID, merchantId: UUID, livemode: BOOLEAN, actorType: STRING, actorId: STRING,
        action: STRING, targetType: STRING, targetId: STRING, before: JSONT, after: JSONT, requestId: STRING,
        ...stamps,
      },
      { resource: 'audit entry', tenant: 'tenantId', merchant: 'merchantId', mode: 'livemode', tenantNullable: true },
    ),
    Idempotency: define<IdempotencyRow>(
      sequelize,
      'Idempotency',
      'idempotency_records',
      {
        id: pk, scope: STRING, key: STRING, method: STRING, path: TEXT, fingerprint: STRING, state: STRING, owner: UUID,
        responseStatus: INTEGER, responseBody: JSONT, lockedUntil: DATE, createdAt: DATE, updatedAt: DATE,
      },
      { resource: 'idempotency record', tenant: null, merchant: null, mode: null, softDelete: false },
    ),
    WebhookEndpoint: define<WebhookEndpointRow>(
      sequelize,
      'WebhookEndpoint',
      'webhook_endpoints',
      {
        id: pk, tenantId: UUID, merchantId: UUID, level: STRING, livemode: BOOLEAN, url: TEXT, events: JSONT,
        description: TEXT, status: STRING, maxAttempts: INTEGER, secretSealed: TEXT, previousSecretSealed: TEXT,
        previousSecretExpiresAt: DATE, failingSince: DATE, lastSuccessAt: DATE, disabledReason: TEXT, ...stamps,
      },
      { resource: 'webhook endpoint', tenant: 'tenantId', merchant: 'merchantId', mode: 'livemode', tenantNullable: true },
    ),
    Event: define<EventRow>(
      sequelize,
      'Event',
      'events',
      { id: pk, type: STRING, tenantId: UUID, merchantId: UUID, livemode: BOOLEAN, data: JSONT, apiVersion: STRING, ...stamps },
      { resource: 'event', tenant: 'tenantId', merchant: 'merchantId', mode: 'livemode', tenantNullable: true },
    ),
    WebhookDelivery: define<WebhookDeliveryRow>(
      sequelize,
      'WebhookDelivery',
      'webhook_deliveries',
      {
        id: pk, eventId: UUID, eventType: STRING, endpointId: UUID, tenantId: UUID, merchantId: UUID, livemode: BOOLEAN,
        status: STRING, attemptCount: INTEGER, maxAttempts: INTEGER, nextAttemptAt: DATE, lockedUntil: DATE,
        lockedBy: STRING, lastAttemptAt: DATE, lastError: TEXT, succeededAt: DATE, failedAt: DATE, ...stamps,
      },
      { resource: 'webhook delivery', tenant: 'tenantId', merchant: 'merchantId', mode: 'livemode', tenantNullable: true },
    ),
    WebhookAttempt: define<WebhookAttemptRow>(
      sequelize,
      'WebhookAttempt',
      'webhook_attempts',
      {
        id: pk, deliveryId: UUID, attempt: INTEGER, workerId: STRING, startedAt: DATE, durationMs: INTEGER,
        statusCode: INTEGER, success: BOOLEAN, error: TEXT, responseExcerpt: TEXT, createdAt: DATE,
      },
      { resource: 'webhook attempt', tenant: null, merchant: null, mode: null, softDelete: false },
    ),
  };
}
