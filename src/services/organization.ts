import { inTransaction, type CallerContext } from '../domain/context';
import { scoped } from '../db/scoped';
import type { CompanyRow, MerchantRow } from '../db/models';
import { recordAudit } from './audit';

// The organization area (companies, merchants, users) is built out in its own issue; these are the records
// the foundation needs for the sandbox and for merchant-owned keys, created through the same scoped access.

export interface CreateCompanyInput {
  name: string;
  country: string;
  legalName?: string;
  livemode?: boolean;
}

export async function createCompanyRecord(ctx: CallerContext, input: CreateCompanyInput): Promise<CompanyRow> {
  return inTransaction(ctx, async (tx) => {
    const row = await scoped(tx, tx.db.models.Company).create({
      name: input.name, legalName: input.legalName ?? input.name, country: input.country, livemode: input.livemode ?? tx.livemode,
      legalAddress: null, registrationNumber: null, businessType: null, contactPerson: null, contactEmail: null,
      contactPhone: null, website: null, status: 'active',
    });
    await recordAudit(tx, { action: 'company.created', targetType: 'company', targetId: row.id, tenantId: row.tenantId, after: row });
    return row;
  });
}

export interface CreateMerchantInput {
  companyId: string;
  name: string;
  defaultCurrency?: string;
  liveStatus?: MerchantRow['liveStatus'];
}

export async function createMerchantRecord(ctx: CallerContext, input: CreateMerchantInput): Promise<MerchantRow> {
  return inTransaction(ctx, async (tx) => {
    await scoped(tx, tx.db.models.Company).get(input.companyId);
    const row = await scoped(tx, tx.db.models.Merchant).create({
      companyId: input.companyId, name: input.name, status: 'active', liveStatus: input.liveStatus ?? 'sandbox',
      defaultCurrency: input.defaultCurrency ?? null, mcc: null, website: null,
    });
    await recordAudit(tx, { action: 'merchant.created', targetType: 'merchant', targetId: row.id, tenantId: row.tenantId, merchantId: row.id, after: row });
    return row;
  });
}
