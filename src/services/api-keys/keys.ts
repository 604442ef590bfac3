import { inMode } from '../../domain/authority';
import { Op } from 'sequelize';
import { inTransaction, type CallerContext } from '../../domain/context';
import { layerOf, type KeyOwnerLevel } from '../../domain/level';
import { ConflictError, PermissionError, ValidationError, NotFoundError, type FieldIssue } from '../../domain/errors';
import { scoped, type ListParams, type Page } from '../../db/scoped';
import type { ApiKeyRow } from '../../db/models';
import { auditRecord, auditedRecord, auditedUpdate } from '../audit/changes';
import { allows, grantable, isKnownPermission, layerPermissions } from '../../domain/permissions';
import { apiKeyStatus, generateKeyPair } from './secrets';
import { isValidIpEntry } from '../access/authenticate';
import { filterWhere, iso, mapPage } from '../present';
import { statusMachine, transition } from '../status';

export type ApiKeyStatus = 'active' | 'revoked' | 'expired';

/** The API key record of the specification; `secretKey` only in the create and rotate answers. */
export interface ApiKey {
  id: string;
  tenantId: string;
  livemode: boolean;
  owner: { type: KeyOwnerLevel; merchantId?: string; tenantId: string };
  environment: 'test' | 'live';
  keyType: string;
  inboundFormat: string;
  publicKey: string;
  name: string;
  status: ApiKeyStatus;
  permissions: string[];
  ipAllowlist: string[];
  expiresAt: string | null;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
  revokedAt: string | null;
  rotatedFromKeyId: string | null;
  createdBy: string | null;
  createdByType: string;
}

export type IssuedApiKey = ApiKey & { secretKey: string };

export function toApiKey(row: ApiKeyRow, now: Date): ApiKey {
  return {
    id: row.id,
    tenantId: row.tenantId,
    livemode: row.livemode,
    owner:
      row.ownerType === 'merchant'
        ? { type: 'merchant', merchantId: row.merchantId!, tenantId: row.tenantId }
        : { type: 'tenant', tenantId: row.tenantId },
    environment: row.environment,
    keyType: row.keyType,
    inboundFormat: row.inboundFormat,
    publicKey: row.publicKey,
    name: row.name,
    status: apiKeyStatus(row, now),
    permissions: row.permissions,
    ipAllowlist: row.ipAllowlist,
    expiresAt: iso(row.expiresAt),
    createdAt: iso(row.createdAt)!,
    updatedAt: iso(row.updatedAt)!,
    deletedAt: iso(row.deletedAt),
    revokedAt: iso(row.revokedAt),
    rotatedFromKeyId: row.rotatedFromKeyId,
    createdBy: row.createdBy,
    createdByType: row.createdByType,
  };
}

export interface ApiKeyFilters {
  status?: ApiKeyStatus;
  livemode?: boolean;
  merchantId?: string;
  createdBy?: string;
}

export async function listApiKeys(ctx: CallerContext, filters: ApiKeyFilters, page: ListParams): Promise<Page<ApiKey>> {
  const now = ctx.clock.now();
  const access = scoped(ctx, ctx.db.models.ApiKey);
  if (filters.livemode !== undefined && filters.livemode !== ctx.livemode) {
    // Rows always belong to the caller's mode: asking for the other mode is an empty page, where no cursor can point.
    if (page.cursor !== undefined) throw ValidationError.field('query.cursor', 'is not a cursor of this list', 'INVALID_CURSOR');
    return { data: [], pagination: { nextCursor: null, prevCursor: null, hasMore: false, totalCount: 0 } };
  }
  const where: Record<string | symbol, unknown> = filterWhere(filters, ['merchantId', 'createdBy']);
  if (filters.status === 'revoked') where.status = 'revoked';
  if (filters.status === 'active') {
    where.status = 'active';
    where[Op.or] = [{ expiresAt: null }, { expiresAt: { [Op.gt]: now } }];
  }
  if (filters.status === 'expired') {
    where.status = 'active';
    where.expiresAt = { [Op.lte]: now };
  }
  return mapPage(await access.list(where, page), (row) => toApiKey(row, now));
}

export async function getApiKey(ctx: CallerContext, id: string): Promise<ApiKey> {
  return toApiKey(await scoped(ctx, ctx.db.models.ApiKey).get(id), ctx.clock.now());
}

export interface CreateApiKeyInput {
  name?: string;
  ownerType?: KeyOwnerLevel;
  merchantId?: string;
  livemode?: boolean;
  permissions?: string[];
  ipAllowlist?: string[];
  expiresAt?: string | null;
}

/** The permission codes a key of ownerType may carry when the caller issues it. */
export function grantablePermissions(ctx: CallerContext, ownerType?: KeyOwnerLevel): { ownerType: KeyOwnerLevel; permissions: string[] } {
  const type = ownerType ?? (ctx.level === 'merchant' ? 'merchant' : 'tenant');
  assertMayOwn(ctx, type, 'query.ownerType');
  return { ownerType: type, permissions: grantable(layerOf(type), ctx.permissions) };
}

function assertMayOwn(ctx: CallerContext, ownerType: KeyOwnerLevel, field: string): void {
  if (ctx.level === 'merchant' && ownerType !== 'merchant') {
    throw new PermissionError('A merchant caller can only issue keys owned by its own merchant.', 'OWNER_TYPE_NOT_ALLOWED', {
      errors: [{ path: field, message: 'must be merchant for a merchant caller' }],
    });
  }
}

/**
 * Checks requested codes against the owner layer (400) and against the issuing caller's own (403). Codes the key
 * already carries (`kept`) are not granted by this write: a caller sends back the list it read.
 */
function checkPermissions(ctx: CallerContext, ownerType: KeyOwnerLevel, requested: string[], field: string, kept: string[] = []): string[] {
  const layer = layerPermissions(layerOf(ownerType));
  const invalid: FieldIssue[] = [];
  requested.forEach((code, i) => {
    if (!isKnownPermission(code)) invalid.push({ path: `${field}[${i}]`, message: `unknown permission code "${code}"` });
    else if (!layer.has(code))
      invalid.push({
        path: `${field}[${i}]`,
        message: `"${code}" is not in the ${layerOf(ownerType)} layer a ${ownerType} key draws from`,
      });
  });
  if (invalid.length)
    throw new ValidationError(`Invalid permissions: ${invalid.map((i) => i.message).join('; ')}`, invalid, 'INVALID_PERMISSIONS');
  const notHeld: FieldIssue[] = [];
  requested.forEach((code, i) => {
    if (!kept.includes(code) && !allows(ctx.permissions, code))
      notHeld.push({ path: `${field}[${i}]`, message: `the caller does not hold "${code}"` });
  });
  if (notHeld.length) {
    throw new PermissionError(
      `A key cannot carry permissions its issuer lacks: ${notHeld.map((i) => i.message).join('; ')}`,
      'PERMISSION_NOT_GRANTABLE',
      {
        errors: notHeld,
      },
    );
  }
  return [...new Set(requested)].sort();
}

function checkIpAllowlist(entries: string[], field: string): string[] {
  const invalid = entries.flatMap((entry, i) =>
    isValidIpEntry(entry) ? [] : [{ path: `${field}[${i}]`, message: `"${entry}" is not an IP address or CIDR range` }],
  );
  if (invalid.length) throw new ValidationError('Invalid ipAllowlist entries.', invalid, 'INVALID_IP_ALLOWLIST');
  return [...new Set(entries)];
}

const MAX_LIFETIME_MS = 10 * 366 * 86_400_000;

function checkExpiry(ctx: CallerContext, expiresAt: string | null | undefined, field: string): Date | null {
  if (expiresAt === undefined || expiresAt === null) return null;
  const at = new Date(expiresAt);
  const now = ctx.clock.now().getTime();
  if (Number.isNaN(at.getTime())) throw ValidationError.field(field, 'must be an ISO 8601 date-time');
  if (at.getTime() <= now) throw ValidationError.field(field, 'must be in the future');
  if (at.getTime() > now + MAX_LIFETIME_MS) throw ValidationError.field(field, 'must be within 10 years');
  return at;
}

/** Whether the tenant and merchant may hold live keys (a sandbox-only tenant or a merchant not approved for live may not). */
async function assertModeAllowed(ctx: CallerContext, livemode: boolean, merchantId: string | null): Promise<void> {
  if (!livemode) return;
  const tenant = await scoped(ctx, ctx.db.models.Tenant).get(ctx.tenantId!);
  if (!tenant.livemode) {
    throw new PermissionError('This tenant is a sandbox tenant: it cannot hold live keys.', 'TENANT_SANDBOX_ONLY');
  }
  if (merchantId) {
    const merchant = await scoped(ctx, ctx.db.models.Merchant).get(merchantId);
    if (merchant.liveStatus !== 'approved') {
      throw new PermissionError('The merchant is not approved for live mode yet; issue a sandbox key.', 'MERCHANT_NOT_LIVE', {
        hint: 'Request live approval for the merchant first.',
      });
    }
  }
}

export async function createApiKey(ctx: CallerContext, input: CreateApiKeyInput): Promise<IssuedApiKey> {
  const ownerType: KeyOwnerLevel = input.ownerType ?? (ctx.level === 'merchant' || input.merchantId ? 'merchant' : 'tenant');
  assertMayOwn(ctx, ownerType, 'body.ownerType');
  let merchantId: string | null = null;
  if (ownerType === 'merchant') {
    merchantId = ctx.level === 'merchant' ? ctx.merchantId : (input.merchantId ?? null);
    if (!merchantId) throw ValidationError.field('body.merchantId', 'is required for a merchant-owned key');
    if (ctx.level === 'merchant' && input.merchantId && input.merchantId !== ctx.merchantId) {
      throw new NotFoundError('merchant', input.merchantId, { errors: [{ path: 'body.merchantId', message: 'no such merchant' }] });
    }
  } else if (input.merchantId) {
    throw ValidationError.field('body.merchantId', 'is only allowed with ownerType merchant');
  }
  const livemode = input.livemode ?? ctx.livemode;
  if (ctx.credential === 'secret_key' && livemode !== ctx.livemode) {
    throw new PermissionError(
      `A ${ctx.livemode ? 'live' : 'sandbox'} secret key can only issue ${ctx.livemode ? 'live' : 'sandbox'} keys.`,
      'LIVEMODE_MISMATCH',
      { errors: [{ path: 'body.livemode', message: `must be ${ctx.livemode} for this caller` }] },
    );
  }
  const permissions =
    input.permissions === undefined
      ? grantable(layerOf(ownerType), ctx.permissions)
      : checkPermissions(ctx, ownerType, input.permissions, 'body.permissions');
  const ipAllowlist = checkIpAllowlist(input.ipAllowlist ?? [], 'body.ipAllowlist');
  const expiresAt = checkExpiry(ctx, input.expiresAt, 'body.expiresAt');

  return inTransaction(ctx, async (tx) => {
    if (merchantId) {
      const merchant = await scoped(tx, tx.db.models.Merchant).find(merchantId);
      if (!merchant)
        throw new NotFoundError('merchant', merchantId, { errors: [{ path: 'body.merchantId', message: 'no such merchant' }] });
    }
    await assertModeAllowed(tx, livemode, merchantId);
    return issueKey(inMode(tx, livemode, 'a key of the mode asked for (a user or the terminal may issue one of the other mode)'), {
      ownerType,
      merchantId,
      livemode,
      name: input.name ?? `${ownerType === 'merchant' ? 'Merchant' : 'Tenant'} key`,
      permissions,
      ipAllowlist,
      expiresAt,
      rotatedFromKeyId: null,
    });
  });
}

interface IssueSpec {
  ownerType: KeyOwnerLevel;
  merchantId: string | null;
  livemode: boolean;
  name: string;
  permissions: string[];
  ipAllowlist: string[];
  expiresAt: Date | null;
  rotatedFromKeyId: string | null;
}

async function issueKey(ctx: CallerContext, spec: IssueSpec): Promise<IssuedApiKey> {
  const generated = generateKeyPair(spec.livemode);
  const row = await scoped(ctx, ctx.db.models.ApiKey).create({
    merchantId: spec.merchantId,
    ownerType: spec.ownerType,
    livemode: spec.livemode,
    environment: spec.livemode ? 'live' : 'test',
    keyType: 'public',
    inboundFormat: 'service_native',
    name: spec.name,
    keyPrefix: generated.prefix,
    publicKey: generated.publicKey,
    secretHash: generated.secretHash,
    status: 'active',
    permissions: spec.permissions,
    ipAllowlist: spec.ipAllowlist,
    expiresAt: spec.expiresAt,
    revokedAt: null,
    rotatedFromKeyId: spec.rotatedFromKeyId,
    createdBy: ctx.actor.type === 'api_key' || ctx.actor.type === 'user' ? ctx.actor.id : null,
    createdByType: ctx.actor.type,
  });
  const key = toApiKey(row, ctx.clock.now());
  await auditRecord(ctx, API_KEY, row, spec.rotatedFromKeyId ? 'api_key.rotated' : 'api_key.created', { after: key });
  return { ...key, secretKey: generated.secretKey };
}

const API_KEY = auditedRecord<ApiKeyRow>({
  model: (ctx) => ctx.db.models.ApiKey,
  targetType: 'api_key',
  owner: (row) => ({ tenantId: row.tenantId, merchantId: row.merchantId, livemode: row.livemode }),
  render: toApiKey,
});

/** A key is issued active and revoked for good (an expired key is an active one past expiresAt). */
const API_KEY_STATUS = statusMachine({
  record: API_KEY,
  moves: { revoke: { from: ['active'], to: 'revoked', action: 'api_key.revoked' } },
  // a revocation checks the key first: only a concurrent one reaches the machine's refusal
  refused: () => new ConflictError('API_KEY_REVOKED', 'The API key is already revoked.'),
});

/** Loads a key for a state change, locked in the transaction; 409 unless it is active. */
async function activeKeyForChange(ctx: CallerContext, id: string, verb: string): Promise<ApiKeyRow> {
  const row = await scoped(ctx, ctx.db.models.ApiKey).get(id, { lock: true });
  const status = apiKeyStatus(row, ctx.clock.now());
  if (status !== 'active') {
    throw new ConflictError(`API_KEY_${status.toUpperCase()}`, `The API key is ${status}; it cannot be ${verb}.`);
  }
  return row;
}

export interface UpdateApiKeyInput {
  name?: string;
  permissions?: string[];
  expiresAt?: string | null;
}

export async function updateApiKey(ctx: CallerContext, id: string, input: UpdateApiKeyInput): Promise<ApiKey> {
  return inTransaction(ctx, async (tx) => {
    const row = await activeKeyForChange(tx, id, 'updated');
    const changes: Partial<ApiKeyRow> = {};
    if (input.name !== undefined) changes.name = input.name;
    if (input.permissions !== undefined)
      changes.permissions = checkPermissions(tx, row.ownerType, input.permissions, 'body.permissions', row.permissions);
    // the expiry sent back as read changes nothing
    const sameExpiry =
      (input.expiresAt ?? null) === null
        ? row.expiresAt === null
        : row.expiresAt !== null && new Date(input.expiresAt!).getTime() === new Date(row.expiresAt).getTime();
    if (input.expiresAt !== undefined && !sameExpiry) {
      // Extending a key's life is as strong as issuing it: the caller must hold what the key carries.
      checkPermissions(tx, row.ownerType, row.permissions, 'permissions');
      const successor = await tx.db.models.ApiKey.findOne({
        where: { rotatedFromKeyId: row.id },
        attributes: ['id'],
        transaction: tx.transaction,
      });
      if (successor) {
        throw new ConflictError('API_KEY_ROTATED', 'The key was rotated; its grace period cannot be changed. Revoke it to end it now.');
      }
      changes.expiresAt = checkExpiry(tx, input.expiresAt, 'body.expiresAt');
    }
    const now = tx.clock.now();
    const updated = await auditedUpdate(tx, API_KEY, row, changes, {
      action: 'api_key.updated',
      expect: { status: 'active' },
      now,
      refused: () => new ConflictError('API_KEY_REVOKED', 'The API key was revoked meanwhile; it cannot be updated.'),
    });
    return toApiKey(updated, now);
  });
}

/** Revokes a key for good: it can no longer authenticate; the record stays readable with status revoked. */
export async function revokeApiKey(ctx: CallerContext, id: string): Promise<ApiKey> {
  return inTransaction(ctx, async (tx) => {
    const row = await activeKeyForChange(tx, id, 'revoked');
    const now = tx.clock.now();
    const updated = await transition(tx, API_KEY_STATUS, row, 'revoke', { changes: { revokedAt: now }, render: (r) => toApiKey(r, now) });
    return toApiKey(updated, now);
  });
}

export const DEFAULT_GRACE_HOURS = 24;

/**
 * Issues a successor with the source's owner, mode, permissions and ipAllowlist; the source stays active for
 * graceHours (0 ends it at once), then expires. The caller must hold every permission the key carries.
 */
export async function rotateApiKey(ctx: CallerContext, id: string, input: { graceHours?: number }): Promise<IssuedApiKey> {
  const graceHours = input.graceHours ?? DEFAULT_GRACE_HOURS;
  return inTransaction(ctx, async (tx) => {
    const source = await activeKeyForChange(tx, id, 'rotated');
    const permissions = checkPermissions(tx, source.ownerType, source.permissions, 'permissions');
    const now = tx.clock.now();
    const graceEnd = new Date(now.getTime() + graceHours * 3_600_000);
    const expiresAt = source.expiresAt && new Date(source.expiresAt) < graceEnd ? new Date(source.expiresAt) : graceEnd;
    await auditedUpdate(
      tx,
      API_KEY,
      source,
      { expiresAt },
      {
        action: 'api_key.rotation_grace_started',
        expect: { status: 'active' },
        now,
        refused: () => new ConflictError('API_KEY_REVOKED', 'The API key was revoked meanwhile; it cannot be rotated.'),
      },
    );
    return issueKey(tx, {
      ownerType: source.ownerType,
      merchantId: source.merchantId,
      livemode: source.livemode,
      name: source.name,
      permissions,
      ipAllowlist: source.ipAllowlist,
      // the successor keeps the source's own expiry, never the grace deadline set just now
      expiresAt: source.expiresAt ? new Date(source.expiresAt) : null,
      rotatedFromKeyId: source.id,
    });
  });
}
