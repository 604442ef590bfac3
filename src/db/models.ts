import type { Sequelize } from 'sequelize';
import { define, pk, stamps, UUID, STRING, TEXT, JSONT, BOOLEAN, DATE, INTEGER, type RowModel, type Timestamps } from './model-kit';
import { defineOrganizationModels, type OrganizationModels } from './models-organization';
import { definePartnerModels, type PartnerModels } from './models-partners';
import { defineAccessModels, type AccessModels } from './models-access';
import { defineKybModels, type KybModels } from './models-kyb';
import { defineProcessingModels, type ProcessingModels } from './models-processing';
import { defineFeeModels, type FeeModels } from './models-fees';
import { defineProfileModels, type ProfileModels } from './models-profiles';
import { defineRoutingModels, type RoutingModels } from './models-routing';
import { defineCheckoutModels, type CheckoutModels } from './models-checkout';
import { definePaymentModels, type PaymentModels } from './models-payments';
import { defineLedgerModels, type LedgerModels } from './models-ledger';
import { defineSandboxModels, type SandboxModels } from './models-sandbox';
import { defineWithdrawalModels, type WithdrawalModels } from './models-withdrawals';
import { defineRiskModels, type RiskModels } from './models-risk';

export type { RowModel, ScopeSpec, Timestamps } from './model-kit';
export type * from './models-organization';
export type * from './models-partners';
export type * from './models-access';
export type * from './models-kyb';
export type * from './models-processing';
export type * from './models-fees';
export type * from './models-profiles';
export type * from './models-routing';
export type * from './models-checkout';
export type * from './models-payments';
export type * from './models-ledger';
export type * from './models-sandbox';
export type * from './models-risk';

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
  /** hours a new withdrawal method (or new details) cools before use; null: the platform default */
  withdrawalCoolingPeriodHours: number | null;
  /** maker-checker on withdrawals: the creator cannot approve, the approver cannot execute */
  withdrawalMakerChecker: boolean;
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
  /** the operating-system account of an operator at the terminal (os:<name>); null for other actors */
  actorName: string | null;
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


/** Every table's model: the core ones here, each area's in its own file. */
export interface Models extends OrganizationModels, PartnerModels, AccessModels, KybModels, ProcessingModels, FeeModels, ProfileModels,
  RoutingModels, CheckoutModels, PaymentModels, LedgerModels, SandboxModels, WithdrawalModels, RiskModels {
  Platform: RowModel<PlatformRow>;
  Tenant: RowModel<TenantRow>;
  ApiKey: RowModel<ApiKeyRow>;
  AuditEntry: RowModel<AuditEntryRow>;
  Idempotency: RowModel<IdempotencyRow>;
  WebhookEndpoint: RowModel<WebhookEndpointRow>;
  Event: RowModel<EventRow>;
  WebhookDelivery: RowModel<WebhookDeliveryRow>;
  WebhookAttempt: RowModel<WebhookAttemptRow>;
}

export function defineModels(sequelize: Sequelize): Models {
  return {
    ...defineOrganizationModels(sequelize),
    ...definePartnerModels(sequelize),
    ...defineAccessModels(sequelize),
    ...defineKybModels(sequelize),
    ...defineProcessingModels(sequelize),
    ...defineFeeModels(sequelize),
    ...defineProfileModels(sequelize),
    ...defineRoutingModels(sequelize),
    ...defineCheckoutModels(sequelize),
    ...definePaymentModels(sequelize),
    ...defineLedgerModels(sequelize),
    ...defineSandboxModels(sequelize),
    ...defineWithdrawalModels(sequelize),
    ...defineRiskModels(sequelize),
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
        logoUrl: TEXT, termsUrl: TEXT, privacyPolicyUrl: TEXT, withdrawalCoolingPeriodHours: INTEGER, withdrawalMakerChecker: BOOLEAN, ...stamps,
      },
      {
        resource: 'tenant', tenant: 'tenantId', merchant: null,
        modeExempt: 'a tenant spans both modes: its livemode says whether it may hold live keys (false: a sandbox-only tenant), '
          + 'it is not the mode the record lives in; callers of either mode read their own tenant',
      },
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
        id: pk, tenantId: UUID, merchantId: UUID, livemode: BOOLEAN, actorType: STRING, actorId: STRING, actorName: STRING,
        action: STRING, targetType: STRING, targetId: STRING, before: JSONT, after: JSONT, requestId: STRING,
        ...stamps,
      },
      { resource: 'audit entry', tenant: 'tenantId', merchant: 'merchantId', mode: 'livemode', tenantNullable: true, writtenBySystem: true },
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
