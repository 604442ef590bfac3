import type { Sequelize } from 'sequelize';
import { define, pk, stamps, UUID, STRING, TEXT, BOOLEAN, type RowModel, type Timestamps } from './model-kit';

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
  };
}
