import { inTransaction, type CallerContext } from '../../domain/context';
import { PermissionError, ValidationError, type FieldIssue } from '../../domain/errors';
import { scoped, type ListParams, type Page } from '../../db/scoped';
import type { TenantRow } from '../../db/models';
import { auditRecord, auditedRecord, auditedUpdate } from '../audit/changes';
import { accountMachine, moveRecord } from '../status';
import { mapPage, presentRow, type Presented } from '../present';
import { ensurePlatform } from './platform';
import { newId } from '../../util/ids';

export type TenantStatus = TenantRow['status'];

/** The fields of the Tenant record: listed, so a column added later is not published by accident. */
const TENANT_FIELDS = [
  'id',
  'tenantId',
  'platformId',
  'livemode',
  'name',
  'status',
  'defaultCurrency',
  'defaultLocale',
  'allowedCurrencies',
  'allowedCountries',
  'featureFlags',
  'doorRateLimitPerMinute',
  'contactEmail',
  'supportUrl',
  'logoUrl',
  'termsUrl',
  'privacyPolicyUrl',
  'withdrawalCoolingPeriodHours',
  'withdrawalMakerChecker',
  'createdAt',
  'updatedAt',
  'deletedAt',
] as const satisfies readonly (keyof TenantRow)[];

export type Tenant = Presented<Pick<TenantRow, (typeof TENANT_FIELDS)[number]>>;

export function toTenant(row: TenantRow): Tenant {
  return presentRow(row, TENANT_FIELDS);
}

/** A tenant's audit entries are filed under the tenant itself. */
const TENANT = auditedRecord<TenantRow>({
  model: (ctx) => ctx.db.models.Tenant,
  targetType: 'tenant',
  owner: (row) => ({ tenantId: row.id }),
  render: toTenant,
});

export const DEFAULT_DOOR_RATE_LIMIT = 600;

export interface TenantFields {
  name?: string;
  defaultCurrency?: string | null;
  defaultLocale?: string | null;
  allowedCurrencies?: string[];
  allowedCountries?: string[];
  featureFlags?: Record<string, boolean>;
  doorRateLimitPerMinute?: number;
  contactEmail?: string | null;
  supportUrl?: string | null;
  logoUrl?: string | null;
  termsUrl?: string | null;
  privacyPolicyUrl?: string | null;
  withdrawalCoolingPeriodHours?: number | null;
  withdrawalMakerChecker?: boolean;
}

export type CreateTenantInput = TenantFields & { name: string; livemode?: boolean };

/** Fields only the platform may set: a tenant's own operators cannot raise their limits or features. */
const PLATFORM_ONLY_FIELDS = ['allowedCurrencies', 'allowedCountries', 'featureFlags', 'doorRateLimitPerMinute'] as const;

export async function listTenants(ctx: CallerContext, filters: { status?: TenantStatus }, page: ListParams): Promise<Page<Tenant>> {
  const where = filters.status ? { status: filters.status } : {};
  return mapPage(await scoped(ctx, ctx.db.models.Tenant).list(where, page), toTenant);
}

export async function getTenant(ctx: CallerContext, id: string): Promise<Tenant> {
  return toTenant(await scoped(ctx, ctx.db.models.Tenant).get(id));
}

function checkDefaultCurrency(fields: TenantFields, current?: TenantRow): void {
  const allowed = fields.allowedCurrencies ?? current?.allowedCurrencies ?? [];
  const currency = fields.defaultCurrency === undefined ? current?.defaultCurrency : fields.defaultCurrency;
  if (currency && allowed.length > 0 && !allowed.includes(currency)) {
    throw ValidationError.field('body.defaultCurrency', `must be one of allowedCurrencies (${allowed.join(', ')})`);
  }
}

export async function createTenant(ctx: CallerContext, input: CreateTenantInput): Promise<Tenant> {
  checkDefaultCurrency(input);
  return inTransaction(ctx, async (tx) => {
    const platform = await ensurePlatform(tx);
    const id = newId();
    const row = await scoped(tx, tx.db.models.Tenant).create({
      id,
      tenantId: id,
      platformId: platform.id,
      livemode: input.livemode ?? true,
      name: input.name,
      status: 'active',
      defaultCurrency: input.defaultCurrency ?? null,
      defaultLocale: input.defaultLocale ?? null,
      allowedCurrencies: dedupe(input.allowedCurrencies ?? []),
      allowedCountries: dedupe(input.allowedCountries ?? []),
      featureFlags: input.featureFlags ?? {},
      doorRateLimitPerMinute: input.doorRateLimitPerMinute ?? DEFAULT_DOOR_RATE_LIMIT,
      contactEmail: input.contactEmail ?? null,
      supportUrl: input.supportUrl ?? null,
      logoUrl: input.logoUrl ?? null,
      termsUrl: input.termsUrl ?? null,
      privacyPolicyUrl: input.privacyPolicyUrl ?? null,
      withdrawalCoolingPeriodHours: input.withdrawalCoolingPeriodHours ?? null,
      withdrawalMakerChecker: input.withdrawalMakerChecker ?? false,
    });
    const tenant = toTenant(row);
    await auditRecord(tx, TENANT, row, 'tenant.created', { after: tenant });
    return tenant;
  });
}

export async function updateTenant(ctx: CallerContext, id: string, input: TenantFields): Promise<Tenant> {
  return inTransaction(ctx, async (tx) => {
    const access = scoped(tx, tx.db.models.Tenant);
    const row = await access.get(id, { lock: true });
    if (ctx.level !== 'platform') {
      // a platform-only field sent back as read (the tenant's own value) changes nothing: only a change is refused
      const current = toTenant(row) as unknown as Record<string, unknown>;
      const refused: FieldIssue[] = PLATFORM_ONLY_FIELDS.filter((f) => input[f] !== undefined && !sameValue(input[f], current[f])).map(
        (f) => ({
          path: `body.${f}`,
          message: 'can only be changed by the platform',
        }),
      );
      if (refused.length)
        throw new PermissionError(`Only the platform may change ${refused.map((r) => r.path).join(', ')}.`, 'PLATFORM_ONLY_FIELD', {
          errors: refused,
        });
    }
    checkDefaultCurrency(input, row);
    const changes: Partial<TenantRow> = { ...input } as Partial<TenantRow>;
    if (input.allowedCurrencies) changes.allowedCurrencies = dedupe(input.allowedCurrencies);
    if (input.allowedCountries) changes.allowedCountries = dedupe(input.allowedCountries);
    return toTenant(await auditedUpdate(tx, TENANT, row, changes, { action: 'tenant.updated' }));
  });
}

/** Equal as JSON values (object keys in any order). */
function sameValue(a: unknown, b: unknown): boolean {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canonical)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.entries(v)
              .sort(([x], [y]) => x.localeCompare(y))
              .map(([k, w]) => [k, canonical(w)]),
          )
        : v;
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

/** The account lifecycle: activate, suspend, disable (accountMachine, src/services/status.ts). */
const TENANT_STATUS = accountMachine(TENANT, 'tenant');

export async function changeTenantStatus(ctx: CallerContext, id: string, move: keyof typeof TENANT_STATUS.moves): Promise<Tenant> {
  return toTenant(await moveRecord(ctx, TENANT_STATUS, id, move));
}

function dedupe<T>(values: T[]): T[] {
  return [...new Set(values)];
}
