import type { Sequelize } from 'sequelize';
import { define, pk, stamps, UUID, STRING, TEXT, JSONT, BOOLEAN, DATE, INTEGER, type RowModel, type Timestamps } from '../model-kit';

// The platform record and its tenants.

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

export interface TenantModels {
  Platform: RowModel<PlatformRow>;
  Tenant: RowModel<TenantRow>;
}

export function defineTenantModels(sequelize: Sequelize): TenantModels {
  return {
    Platform: define<PlatformRow>(
      sequelize,
      'Platform',
      'platforms',
      { id: pk, name: STRING, createdAt: DATE, updatedAt: DATE },
      {
        resource: 'platform',
        tenant: null,
        merchant: null,
        mode: null,
        softDelete: false,
      },
    ),
    Tenant: define<TenantRow>(
      sequelize,
      'Tenant',
      'tenants',
      {
        id: pk,
        tenantId: UUID,
        platformId: UUID,
        livemode: BOOLEAN,
        name: STRING,
        status: STRING,
        defaultCurrency: STRING,
        defaultLocale: STRING,
        allowedCurrencies: JSONT,
        allowedCountries: JSONT,
        featureFlags: JSONT,
        doorRateLimitPerMinute: INTEGER,
        contactEmail: STRING,
        supportUrl: TEXT,
        logoUrl: TEXT,
        termsUrl: TEXT,
        privacyPolicyUrl: TEXT,
        withdrawalCoolingPeriodHours: INTEGER,
        withdrawalMakerChecker: BOOLEAN,
        ...stamps,
      },
      {
        resource: 'tenant',
        tenant: 'tenantId',
        merchant: null,
        modeExempt:
          'a tenant spans both modes: its livemode says whether it may hold live keys (false: a sandbox-only tenant), ' +
          'it is not the mode the record lives in; callers of either mode read their own tenant',
      },
    ),
  };
}
