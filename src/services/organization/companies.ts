import { Op, fn, col, where as sqlWhere } from 'sequelize';
import { inTransaction, type CallerContext } from '../../domain/context';
import { NotFoundError, ValidationError } from '../../domain/errors';
import { scoped, type ListParams, type Page } from '../../db/scoped';
import type { CompanyRow } from '../../db/models';
import { companySearchText } from '../../db/migrations/0003_organization';
import { auditRecord, auditedRecord, updateRecord } from '../audit/changes';
import { disableOnly, moveRecord } from '../status';
import { mapPage, presentRow, type Presented } from '../present';

/** The fields of the Company record (the specification's, plus status): listed, so no column leaks by accident. */
const COMPANY_FIELDS = [
  'id',
  'tenantId',
  'livemode',
  'name',
  'legalName',
  'legalAddress',
  'country',
  'registrationNumber',
  'businessType',
  'contactPerson',
  'contactEmail',
  'contactPhone',
  'website',
  'status',
  'createdAt',
  'updatedAt',
  'deletedAt',
] as const satisfies readonly (keyof CompanyRow)[];

export type Company = Presented<Pick<CompanyRow, (typeof COMPANY_FIELDS)[number]>>;
export type CompanyStatus = CompanyRow['status'];

export function toCompany(row: CompanyRow): Company {
  return presentRow(row, COMPANY_FIELDS);
}

export interface CompanyFields {
  legalName?: string | null;
  legalAddress?: string | null;
  registrationNumber?: string | null;
  businessType?: string | null;
  contactPerson?: string | null;
  contactEmail?: string | null;
  contactPhone?: string | null;
  website?: string | null;
}

export type CreateCompanyInput = CompanyFields & { name: string; country: string; tenantId?: string };
export type UpdateCompanyInput = CompanyFields & { name?: string; country?: string };

function access(ctx: CallerContext) {
  return scoped(ctx, ctx.db.models.Company);
}

const COMPANY = auditedRecord<CompanyRow>({
  model: (ctx) => ctx.db.models.Company,
  targetType: 'company',
  owner: (row) => ({ tenantId: row.tenantId, merchantId: null }),
  render: toCompany,
});

const COMPANY_STATUS = disableOnly(COMPANY, 'company.disabled', 'company', 'companies');

/** The tenant a new record goes to: the caller's own, or for the platform the one named in the body. */
export async function targetTenant(ctx: CallerContext, tenantId: string | undefined, field = 'body.tenantId'): Promise<string> {
  if (ctx.level === 'platform') {
    if (!tenantId) throw ValidationError.field(field, 'is required for platform callers');
    const tenant = await scoped(ctx, ctx.db.models.Tenant).find(tenantId);
    if (!tenant) throw new NotFoundError('tenant', tenantId, { errors: [{ path: field, message: 'no such tenant' }] });
    return tenant.id;
  }
  if (tenantId && tenantId !== ctx.tenantId)
    throw new NotFoundError('tenant', tenantId, { errors: [{ path: field, message: 'no such tenant' }] });
  return ctx.tenantId!;
}

/**
 * Creates a company in the caller's mode (`options.livemode`, from the services that provision records, must name
 * the same mode: a company of the other mode would not exist for its creator). Audited; no event (the catalog has
 * no company events).
 */
export async function createCompany(ctx: CallerContext, input: CreateCompanyInput, options: { livemode?: boolean } = {}): Promise<Company> {
  return toCompany(await createCompanyRow(ctx, input, options));
}

export async function createCompanyRow(
  ctx: CallerContext,
  input: CreateCompanyInput,
  options: { livemode?: boolean } = {},
): Promise<CompanyRow> {
  return inTransaction(ctx, async (tx) => {
    const tenantId = await targetTenant(tx, input.tenantId);
    const legalName = input.legalName === undefined ? input.name : input.legalName;
    const row = await access(tx).create({
      tenantId,
      livemode: options.livemode ?? tx.livemode,
      name: input.name,
      legalName,
      legalAddress: input.legalAddress ?? null,
      country: input.country,
      registrationNumber: input.registrationNumber ?? null,
      businessType: input.businessType ?? null,
      contactPerson: input.contactPerson ?? null,
      contactEmail: input.contactEmail ?? null,
      contactPhone: input.contactPhone ?? null,
      website: input.website ?? null,
      status: 'active',
      searchText: companySearchText(input.name, legalName),
    });
    await auditRecord(tx, COMPANY, row, 'company.created', { after: toCompany(row) });
    return row;
  });
}

export interface CompanyFilters {
  search?: string;
  country?: string;
  livemode?: boolean;
  status?: CompanyStatus;
  tenantId?: string;
}

/**
 * Companies of the caller's mode, filtered; `search` matches name or legalName, case-insensitively. A livemode filter
 * naming the other mode finds nothing (the scope keeps the caller's mode: an empty page).
 */
export async function listCompanies(ctx: CallerContext, filters: CompanyFilters, page: ListParams): Promise<Page<Company>> {
  const where: Record<string | symbol, unknown> = {};
  if (filters.livemode !== undefined) where.livemode = filters.livemode;
  if (filters.country) where.country = filters.country;
  if (filters.status) where.status = filters.status;
  if (filters.tenantId) where.tenantId = filters.tenantId;
  if (filters.search !== undefined) {
    // A literal substring (no LIKE wildcards) of the lower-cased search text: the same on SQLite and Postgres.
    const position = ctx.db.dialect === 'postgres' ? 'strpos' : 'instr';
    where[Op.and] = [sqlWhere(fn(position, col('searchText'), filters.search.toLowerCase()), Op.gt, 0)];
  }
  return mapPage(await access(ctx).list(where, page), toCompany);
}

export async function getCompany(ctx: CallerContext, id: string): Promise<Company> {
  return toCompany(await access(ctx).get(id));
}

export async function updateCompany(ctx: CallerContext, id: string, input: UpdateCompanyInput): Promise<Company> {
  return toCompany(
    await updateRecord(
      ctx,
      COMPANY,
      id,
      (row) => {
        const changes: Partial<CompanyRow> = {};
        for (const [k, v] of Object.entries(input)) if (v !== undefined) (changes as Record<string, unknown>)[k] = v;
        if (changes.name !== undefined || changes.legalName !== undefined) {
          changes.searchText = companySearchText(
            changes.name ?? row.name,
            changes.legalName === undefined ? row.legalName : changes.legalName,
          );
        }
        return changes;
      },
      { action: 'company.updated' },
    ),
  );
}

/** active to disabled (409 otherwise). The company's merchants stay as they are; it takes no new merchants. */
export async function disableCompany(ctx: CallerContext, id: string): Promise<Company> {
  return toCompany(await moveRecord(ctx, COMPANY_STATUS, id, 'disable'));
}
