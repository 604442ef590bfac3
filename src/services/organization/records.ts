import type { CallerContext } from '../../domain/context';
import type { CompanyRow, MerchantRow } from '../../db/models';
import { createCompanyRow } from './companies';
import { createMerchantRow } from './merchants';

// Record-level helpers the foundation uses for the sandbox and tests (merchant-owned keys need a merchant).
// They go through the same services as the API (companies.ts, merchants.ts beside this file) and are audited, but
// emit no event: provisioning a sandbox is not a business event.

export interface CreateCompanyInput {
  name: string;
  country: string;
  legalName?: string;
  livemode?: boolean;
}

export async function createCompanyRecord(ctx: CallerContext, input: CreateCompanyInput): Promise<CompanyRow> {
  const { livemode, ...fields } = input;
  return createCompanyRow(ctx, fields, { livemode });
}

export interface CreateMerchantInput {
  companyId: string;
  name: string;
  defaultCurrency?: string;
  liveStatus?: MerchantRow['liveStatus'];
}

export async function createMerchantRecord(ctx: CallerContext, input: CreateMerchantInput): Promise<MerchantRow> {
  const { liveStatus, ...fields } = input;
  return createMerchantRow(ctx, fields, { liveStatus });
}
