import { inTransaction, type CallerContext } from '../../domain/context';
import { ConflictError, NotFoundError, ValidationError } from '../../domain/errors';
import { scoped, type ListParams, type Page } from '../../db/scoped';
import type { MerchantRow, MerchantThreeDsConfig } from '../../db/models';
import { DEFAULT_THREE_DS_CONFIG } from '../../db/migrations/0003_organization';
import { auditRecord, auditedRecord, updateRecord } from '../audit/changes';
import { accountMachine, moveRecord, startIn, statusMachine, type AccountMove, type Move } from '../status';
import { filterWhere, mapPage, presentRow, type Presented } from '../present';
import { emitEvent } from '../webhooks/events';
import { companyHasApprovedKyb } from '../kyb/submissions';

const MERCHANT_FIELDS = [
  'id',
  'tenantId',
  'companyId',
  'name',
  'status',
  'liveStatus',
  'defaultCurrency',
  'mcc',
  'website',
  'checkoutHosting',
  'processingMode',
  'threeDsConfig',
  'createdAt',
  'updatedAt',
  'deletedAt',
] as const satisfies readonly (keyof MerchantRow)[];

export type MerchantStatus = MerchantRow['status'];
export type LiveStatus = MerchantRow['liveStatus'];
export type Merchant = Omit<Presented<Pick<MerchantRow, (typeof MERCHANT_FIELDS)[number]>>, 'threeDsConfig'> & {
  threeDsConfig: MerchantThreeDsConfig;
};

export function threeDsConfigOf(row: MerchantRow): MerchantThreeDsConfig {
  const stored = typeof row.threeDsConfig === 'string' ? (JSON.parse(row.threeDsConfig) as MerchantThreeDsConfig) : row.threeDsConfig;
  const config = { ...(DEFAULT_THREE_DS_CONFIG as MerchantThreeDsConfig), ...(stored ?? {}) };
  return { enabled: config.enabled, challengePreference: config.challengePreference, exemptions: [...config.exemptions] };
}

export function toMerchant(row: MerchantRow): Merchant {
  return { ...presentRow(row, MERCHANT_FIELDS), threeDsConfig: threeDsConfigOf(row) };
}

function access(ctx: CallerContext) {
  return scoped(ctx, ctx.db.models.Merchant);
}

const MERCHANT = auditedRecord<MerchantRow>({
  model: (ctx) => ctx.db.models.Merchant,
  targetType: 'merchant',
  owner: (row) => ({ tenantId: row.tenantId, merchantId: row.id }),
  render: toMerchant,
});

export interface CreateMerchantInput {
  companyId: string;
  name: string;
  defaultCurrency?: string;
  mcc?: string;
  website?: string;
}

/** The default currency must be one of the tenant's allowed currencies when the tenant restricts them. */
async function checkCurrency(ctx: CallerContext, tenantId: string, currency: string | null | undefined): Promise<void> {
  if (!currency) return;
  const tenant = await scoped(ctx, ctx.db.models.Tenant).find(tenantId);
  const allowed = tenant?.allowedCurrencies ?? [];
  if (allowed.length > 0 && !allowed.includes(currency)) {
    throw ValidationError.field('body.defaultCurrency', `must be one of the tenant's allowed currencies (${allowed.join(', ')})`);
  }
}

/**
 * The merchant row of a create (the API's and the sandbox's). `options.liveStatus` lets the sandbox and tests
 * provision an approved merchant; `options.event` emits merchant.created in the same transaction.
 */
export async function createMerchantRow(
  ctx: CallerContext,
  input: CreateMerchantInput,
  options: { liveStatus?: LiveStatus; event?: boolean } = {},
): Promise<MerchantRow> {
  return inTransaction(ctx, async (tx) => {
    const company = await scoped(tx, tx.db.models.Company).find(input.companyId, { lock: true });
    if (!company) throw new NotFoundError('company', input.companyId, { errors: [{ path: 'body.companyId', message: 'no such company' }] });
    if (company.status !== 'active') {
      throw new ConflictError('COMPANY_DISABLED', `Company ${company.id} is ${company.status}: it takes no new merchants.`);
    }
    await checkCurrency(tx, company.tenantId, input.defaultCurrency);
    const row = await access(tx).create({
      tenantId: company.tenantId,
      companyId: company.id,
      name: input.name,
      status: 'active',
      liveStatus: startIn(LIVE_STATUS, options.liveStatus ?? 'sandbox'),
      defaultCurrency: input.defaultCurrency ?? null,
      mcc: input.mcc ?? null,
      website: input.website ?? null,
      checkoutHosting: 'self_hosted',
      processingMode: 'principal',
      threeDsConfig: { ...(DEFAULT_THREE_DS_CONFIG as MerchantThreeDsConfig) },
    });
    await auditRecord(tx, MERCHANT, row, 'merchant.created', { after: toMerchant(row) });
    if (options.event) {
      await emitEvent(tx, {
        type: 'merchant.created',
        data: toMerchant(row) as unknown as Record<string, unknown>,
        tenantId: row.tenantId,
        merchantId: row.id,
      });
    }
    return row;
  });
}

/** Creates an active merchant in sandbox (live keys refused until approved for live); emits merchant.created. */
export async function createMerchant(ctx: CallerContext, input: CreateMerchantInput): Promise<Merchant> {
  return toMerchant(await createMerchantRow(ctx, input, { event: true }));
}

export interface MerchantFilters {
  companyId?: string;
  status?: MerchantStatus;
  liveStatus?: LiveStatus;
}

/** Merchants in the caller's scope (a merchant caller sees itself only). Merchants span both modes. */
export async function listMerchants(ctx: CallerContext, filters: MerchantFilters, page: ListParams): Promise<Page<Merchant>> {
  return mapPage(await access(ctx).list(filterWhere(filters, ['companyId', 'status', 'liveStatus']), page), toMerchant);
}

/** The merchants of one company (404 when the company is not visible to the caller). */
export async function listCompanyMerchants(
  ctx: CallerContext,
  companyId: string,
  filters: Omit<MerchantFilters, 'companyId'>,
  page: ListParams,
): Promise<Page<Merchant>> {
  await scoped(ctx, ctx.db.models.Company).get(companyId);
  return listMerchants(ctx, { ...filters, companyId }, page);
}

export async function getMerchant(ctx: CallerContext, id: string): Promise<Merchant> {
  return toMerchant(await access(ctx).get(id));
}

export interface UpdateMerchantInput {
  name?: string;
  defaultCurrency?: string | null;
  mcc?: string | null;
  website?: string | null;
}

async function change(
  ctx: CallerContext,
  id: string,
  action: string,
  compute: (row: MerchantRow, tx: CallerContext) => Promise<Partial<MerchantRow>> | Partial<MerchantRow>,
): Promise<Merchant> {
  return toMerchant(await updateRecord(ctx, MERCHANT, id, compute, { action: `merchant.${action}` }));
}

export async function updateMerchant(ctx: CallerContext, id: string, input: UpdateMerchantInput): Promise<Merchant> {
  return change(ctx, id, 'updated', async (row, tx) => {
    await checkCurrency(tx, row.tenantId, input.defaultCurrency);
    const changes: Partial<MerchantRow> = {};
    if (input.name !== undefined) changes.name = input.name;
    if (input.defaultCurrency !== undefined) changes.defaultCurrency = input.defaultCurrency;
    if (input.mcc !== undefined) changes.mcc = input.mcc;
    if (input.website !== undefined) changes.website = input.website;
    return changes;
  });
}

export async function getThreeDsConfig(ctx: CallerContext, id: string): Promise<MerchantThreeDsConfig> {
  return threeDsConfigOf(await access(ctx).get(id));
}

export interface ThreeDsConfigInput {
  enabled: boolean;
  challengePreference?: MerchantThreeDsConfig['challengePreference'];
  exemptions?: MerchantThreeDsConfig['exemptions'];
}

/** Replaces the whole 3DS configuration; omitted fields take their defaults. */
export async function putThreeDsConfig(ctx: CallerContext, id: string, input: ThreeDsConfigInput): Promise<Merchant> {
  const config: MerchantThreeDsConfig = {
    enabled: input.enabled,
    challengePreference: input.challengePreference ?? 'no_preference',
    exemptions: [...new Set(input.exemptions ?? [])],
  };
  return change(ctx, id, 'three_ds_config_updated', () => ({ threeDsConfig: config }));
}

export async function setCheckoutHosting(
  ctx: CallerContext,
  id: string,
  checkoutHosting: MerchantRow['checkoutHosting'],
): Promise<Merchant> {
  return change(ctx, id, 'checkout_hosting_updated', () => ({ checkoutHosting }));
}

export async function setProcessingMode(ctx: CallerContext, id: string, processingMode: MerchantRow['processingMode']): Promise<Merchant> {
  return change(ctx, id, 'processing_mode_updated', () => ({ processingMode }));
}

// ------------------------------------------------------------------------------------------- state moves

/** The account lifecycle: activate, suspend, disable (accountMachine, src/services/status.ts). */
const MERCHANT_STATUS = accountMachine(MERCHANT, 'merchant');

/** activate, suspend, disable: a suspended or disabled merchant's keys and users stop working at once (403). */
export async function changeMerchantStatus(ctx: CallerContext, id: string, move: AccountMove): Promise<Merchant> {
  return toMerchant(await moveRecord(ctx, MERCHANT_STATUS, id, move));
}

export type LiveMove = 'request' | 'approve' | 'reject';

const LIVE_VERBS: Record<LiveMove, string> = {
  request: 'request live approval',
  approve: 'be approved for live',
  reject: 'have its live approval rejected',
};

const LIVE_STATUS = statusMachine({
  record: MERCHANT,
  field: 'liveStatus',
  moves: {
    request: { from: ['sandbox'], to: 'pending_approval', action: 'merchant.live_approval_requested' },
    approve: { from: ['sandbox', 'pending_approval'], to: 'approved', action: 'merchant.live_approved' },
    reject: { from: ['pending_approval'], to: 'sandbox', action: 'merchant.live_rejected' },
  } satisfies Record<LiveMove, Move<MerchantRow, LiveStatus>>,
  refused: (row, move, spec) =>
    new ConflictError('INVALID_STATE_TRANSITION', `A merchant in liveStatus ${row.liveStatus} cannot ${LIVE_VERBS[move]}.`, {
      hint: `This applies to merchants in liveStatus ${spec.from.join(' or ')}.`,
    }),
});

/**
 * Live approval: request (sandbox to pending_approval), approve (sandbox or pending_approval to approved; needs an
 * approved KYB submission of the merchant's company, 409 KYB_NOT_APPROVED otherwise), reject (pending_approval
 * back to sandbox). Any other start state is 409 INVALID_STATE_TRANSITION.
 */
export async function changeLiveStatus(ctx: CallerContext, id: string, move: LiveMove): Promise<Merchant> {
  return toMerchant(
    await moveRecord(ctx, LIVE_STATUS, id, move, {
      check: async (row, tx) => {
        if (row.status === 'disabled') throw new ConflictError('MERCHANT_DISABLED', 'The merchant is disabled; activate it first.');
        if (move === 'approve' && !(await companyHasApprovedKyb(tx, row.companyId))) {
          throw new ConflictError(
            'KYB_NOT_APPROVED',
            `Company ${row.companyId} has no approved KYB submission; the merchant cannot go live yet.`,
            {
              hint: 'The company submits KYB and a reviewer approves it first.',
            },
          );
        }
      },
    }),
  );
}
