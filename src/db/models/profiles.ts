import type { Sequelize } from 'sequelize';
import { define, pk, stamps, UUID, STRING, JSONT, BOOLEAN, INTEGER, type RowModel, type Timestamps } from '../model-kit';

// Integration profiles: how one merchant integrates in one mode (checkout, api, hosted_page): session lifetime,
// return URL, locale and the cascading settings the payment path reads.

export type IntegrationProfileMode = 'checkout' | 'api' | 'hosted_page';
export type IntegrationProfileStatus = 'enabled' | 'disabled';

export interface IntegrationProfileRow extends Timestamps {
  id: string;
  tenantId: string;
  merchantId: string;
  mode: IntegrationProfileMode;
  status: IntegrationProfileStatus;
  returnUrl: string | null;
  /** seconds; bounds the expiry of checkout sessions created under this profile */
  sessionLifetime: number;
  maxDeclineAttempts: number;
  cascadingEnabled: boolean;
  cascadePolicy: Record<string, unknown>;
  defaultLocale: string | null;
}

export interface ProfileModels {
  IntegrationProfile: RowModel<IntegrationProfileRow>;
}

export function defineProfileModels(sequelize: Sequelize): ProfileModels {
  return {
    IntegrationProfile: define<IntegrationProfileRow>(
      sequelize,
      'IntegrationProfile',
      'integration_profiles',
      {
        id: pk,
        tenantId: UUID,
        merchantId: UUID,
        mode: STRING,
        status: STRING,
        returnUrl: STRING(2048),
        sessionLifetime: INTEGER,
        maxDeclineAttempts: INTEGER,
        cascadingEnabled: BOOLEAN,
        cascadePolicy: JSONT,
        defaultLocale: STRING,
        ...stamps,
      },
      // a merchant's record in both modes (mode-agnostic, as merchants are)
      { resource: 'integration profile', tenant: 'tenantId', merchant: 'merchantId', mode: null },
    ),
  };
}
