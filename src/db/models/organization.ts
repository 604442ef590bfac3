import type { Sequelize } from 'sequelize';
import { define, pk, stamps, UUID, STRING, TEXT, BOOLEAN, JSONT, type RowModel, type Timestamps } from '../model-kit';

// Companies and merchants (the organization area).

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
  status: 'active' | 'disabled';
  /** name and legal name lower-cased, for the case-insensitive `search` filter (migration 0003) */
  searchText: string | null;
}

/** A merchant's own 3DS settings (the terminal's 3DS configuration decides how 3DS is executed). */
export interface MerchantThreeDsConfig {
  enabled: boolean;
  challengePreference: 'no_preference' | 'no_challenge' | 'challenge_requested' | 'challenge_mandated';
  exemptions: ('low_value' | 'transaction_risk_analysis' | 'trusted_beneficiary' | 'recurring' | 'secure_corporate')[];
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
  checkoutHosting: 'self_hosted' | 'provider_hosted';
  processingMode: 'principal' | 'passthrough';
  /** null on rows written before migration 0003 filled it: read as the default */
  threeDsConfig: MerchantThreeDsConfig | null;
}

export interface OrganizationModels {
  Company: RowModel<CompanyRow>;
  Merchant: RowModel<MerchantRow>;
}

export function defineOrganizationModels(sequelize: Sequelize): OrganizationModels {
  return {
    Company: define<CompanyRow>(
      sequelize,
      'Company',
      'companies',
      {
        id: pk,
        tenantId: UUID,
        livemode: BOOLEAN,
        name: TEXT,
        legalName: TEXT,
        legalAddress: TEXT,
        country: STRING,
        registrationNumber: STRING,
        businessType: STRING,
        contactPerson: STRING,
        contactEmail: STRING,
        contactPhone: STRING,
        website: TEXT,
        status: STRING,
        searchText: TEXT,
        ...stamps,
      },
      {
        resource: 'company',
        tenant: 'tenantId',
        merchant: null,
        mode: 'livemode',
        throughMerchants: { table: 'merchants', column: 'companyId' },
      },
    ),
    Merchant: define<MerchantRow>(
      sequelize,
      'Merchant',
      'merchants',
      {
        id: pk,
        tenantId: UUID,
        companyId: UUID,
        name: STRING,
        status: STRING,
        liveStatus: STRING,
        defaultCurrency: STRING,
        mcc: STRING,
        website: TEXT,
        checkoutHosting: STRING,
        processingMode: STRING,
        threeDsConfig: JSONT,
        ...stamps,
      },
      { resource: 'merchant', tenant: 'tenantId', merchant: 'id', mode: null },
    ),
  };
}
