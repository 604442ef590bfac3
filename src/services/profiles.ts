import { UniqueConstraintError } from 'sequelize';
import { inTransaction, type CallerContext } from '../domain/context';
import { ConflictError, NotFoundError } from '../domain/errors';
import { scoped, type ListParams, type Page } from '../db/scoped';
import type { IntegrationProfileMode, IntegrationProfileRow, IntegrationProfileStatus } from '../db/models';
import { auditRecord, auditedRecord, auditedUpdate, givenFields, lockedRecord } from './audit/changes';
import { refusedMove, statusMachine, transition } from './status';
import { mapPage, presentRow, type Presented } from './present';

// Integration profiles: how one merchant integrates in one mode. sessionLifetime (seconds) bounds checkout
// session expiry; cascadingEnabled, maxDeclineAttempts and cascadePolicy drive cascading in the payment path.

const PROFILE_FIELDS = [
  'id',
  'merchantId',
  'tenantId',
  'mode',
  'status',
  'returnUrl',
  'sessionLifetime',
  'maxDeclineAttempts',
  'cascadingEnabled',
  'cascadePolicy',
  'defaultLocale',
  'createdAt',
  'updatedAt',
  'deletedAt',
] as const satisfies readonly (keyof IntegrationProfileRow)[];
export type IntegrationProfile = Presented<Pick<IntegrationProfileRow, (typeof PROFILE_FIELDS)[number]>>;

export const DEFAULT_MAX_DECLINE_ATTEMPTS = 3;

export function toProfile(row: IntegrationProfileRow): IntegrationProfile {
  return presentRow(row, PROFILE_FIELDS);
}

export interface ProfileFields {
  status?: IntegrationProfileStatus;
  returnUrl?: string | null;
  sessionLifetime?: number;
  maxDeclineAttempts?: number;
  cascadingEnabled?: boolean;
  cascadePolicy?: Record<string, unknown>;
  defaultLocale?: string | null;
}

export type CreateProfileInput = ProfileFields & { merchantId: string; mode: IntegrationProfileMode; sessionLifetime: number };

export interface ProfileFilters {
  tenantId?: string;
  merchantId?: string;
  mode?: IntegrationProfileMode;
  status?: IntegrationProfileStatus;
}

export async function listProfiles(ctx: CallerContext, filters: ProfileFilters, page: ListParams): Promise<Page<IntegrationProfile>> {
  const where: Record<string, unknown> = {};
  for (const key of ['tenantId', 'merchantId', 'mode', 'status'] as const) if (filters[key]) where[key] = filters[key];
  return mapPage(await scoped(ctx, ctx.db.models.IntegrationProfile).list(where, page), toProfile);
}

export async function getProfile(ctx: CallerContext, id: string): Promise<IntegrationProfile> {
  return toProfile(await scoped(ctx, ctx.db.models.IntegrationProfile).get(id));
}

/** The merchant's profile for a mode, or null: what the checkout and payment paths read. */
export async function findProfileFor(
  ctx: CallerContext,
  merchantId: string,
  mode: IntegrationProfileMode,
): Promise<IntegrationProfile | null> {
  const row = await scoped(ctx, ctx.db.models.IntegrationProfile).findOne({ merchantId, mode });
  return row ? toProfile(row) : null;
}

const PROFILE = auditedRecord<IntegrationProfileRow>({
  model: (ctx) => ctx.db.models.IntegrationProfile,
  targetType: 'integration_profile',
  owner: (row) => ({ tenantId: row.tenantId, merchantId: row.merchantId }),
  render: toProfile,
});

/** enabled <-> disabled, by an update of the profile (one audit entry for the whole update). */
const PROFILE_STATUS = statusMachine<IntegrationProfileRow, 'enable' | 'disable', IntegrationProfileStatus>({
  record: PROFILE,
  moves: {
    enable: { from: ['disabled'], to: 'enabled', action: 'integration_profile.updated' },
    disable: { from: ['enabled'], to: 'disabled', action: 'integration_profile.updated' },
  },
  refused: refusedMove('integration profile'),
});

const duplicate = (mode: string) =>
  new ConflictError('INTEGRATION_PROFILE_EXISTS', `The merchant already has an integration profile for mode ${mode}.`, {
    hint: 'Update the existing profile instead (PATCH /v1/admin/integration-profiles/{id}).',
  });

export async function createProfile(ctx: CallerContext, input: CreateProfileInput): Promise<IntegrationProfile> {
  try {
    return await inTransaction(ctx, async (tx) => {
      const merchant = await scoped(tx, tx.db.models.Merchant).find(input.merchantId);
      if (!merchant)
        throw new NotFoundError('merchant', input.merchantId, { errors: [{ path: 'body.merchantId', message: 'no such merchant' }] });
      const access = scoped(tx, tx.db.models.IntegrationProfile);
      if (await access.findOne({ merchantId: merchant.id, mode: input.mode })) throw duplicate(input.mode);
      const row = await access.create({
        tenantId: merchant.tenantId,
        merchantId: merchant.id,
        mode: input.mode,
        status: input.status === 'disabled' ? 'disabled' : 'enabled',
        returnUrl: input.returnUrl ?? null,
        sessionLifetime: input.sessionLifetime,
        maxDeclineAttempts: input.maxDeclineAttempts ?? DEFAULT_MAX_DECLINE_ATTEMPTS,
        cascadingEnabled: input.cascadingEnabled ?? false,
        cascadePolicy: input.cascadePolicy ?? {},
        defaultLocale: input.defaultLocale ?? null,
      });
      const profile = toProfile(row);
      await auditRecord(tx, PROFILE, row, 'integration_profile.created', { after: profile });
      return profile;
    });
  } catch (error) {
    // two concurrent creates: the unique index on (merchantId, mode) lets one win
    if (error instanceof UniqueConstraintError) throw duplicate(input.mode);
    throw error;
  }
}

/** Changes the given fields (status included); cascadePolicy replaces the whole object. */
export async function updateProfile(ctx: CallerContext, id: string, input: ProfileFields): Promise<IntegrationProfile> {
  const fields = ['returnUrl', 'sessionLifetime', 'maxDeclineAttempts', 'cascadingEnabled', 'cascadePolicy', 'defaultLocale'] as const;
  return inTransaction(ctx, async (tx) => {
    const row = await lockedRecord(tx, PROFILE, id);
    const changes: Partial<IntegrationProfileRow> = givenFields(input, fields);
    if (input.status !== undefined && input.status !== row.status) {
      return toProfile(await transition(tx, PROFILE_STATUS, row, input.status === 'enabled' ? 'enable' : 'disable', { changes }));
    }
    return toProfile(await auditedUpdate(tx, PROFILE, row, changes, { action: 'integration_profile.updated' }));
  });
}
