import { Args, Flags } from '@oclif/core';
import type { Runtime } from '../runtime';
import { userContext } from '../domain/authority';
import { levelOfLayer } from '../domain/level';
import { COMMAND_RECORDS } from '../domain/record-kinds';
import { operatorContext } from '../services/access/operators';
import type { CallerContext, Level } from '../domain/context';
import { AuthenticationError, NotFoundError, ValidationError } from '../domain/errors';
import { isUuid } from '../db/scoped';
import type { UserRow } from '../db/models';
import type { ScopeSpec } from '../db/model-kit';
import { requireId } from './validate';

/**
 * Where a command acts: every caller context of the terminal is made here, through the one operator constructor
 * (`operatorContext`). The terminal has the database's authority: a command acts at the level its flags name
 * (--tenant, --merchant, --platform, --as-user), or at the one its record decides (a key, a company, a merchant, an
 * endpoint, a user, a payment, a withdrawal, …: the record is found first, then the command runs inside its owner's
 * scope). The argument and flag types below carry that rule with them (`recordArg`, `withScope`, `scopeFlag`), a
 * command placed by neither declares `scopeOf` (`atPlatform`); `BaseCommand.scope()` resolves them, the one way a
 * command finds where it acts (test/cli/scope.test.ts).
 */

// ------------------------------------------------------------------------------------------------ who acts

const MAX_OPERATOR = 100;

/** The operator's name from --operator / PAYPLANE_OPERATOR; undefined leaves the OS user name. */
export function operatorName(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const name = value.trim();
  if (!name) throw ValidationError.field('--operator', 'must not be blank');
  if (name.length > MAX_OPERATOR) throw ValidationError.field('--operator', `must be at most ${MAX_OPERATOR} characters`);
  if (/[\u0000-\u001f\u007f]/.test(name)) throw ValidationError.field('--operator', 'must not contain control characters');
  return name;
}

// ------------------------------------------------------------------------------------------------ levels

/** The platform's operator (every tenant), in live mode unless told otherwise. */
export function platformContext(rt: Runtime, livemode = true): CallerContext {
  return operatorContext(rt, { level: 'platform', tenantId: null, livemode });
}

/** A tenant's operator; `operator` names who acts (--operator), else the OS user. */
export function tenantContext(rt: Runtime, tenantId: string, livemode: boolean, operator?: string): CallerContext {
  return operatorContext(rt, { level: 'tenant', tenantId, livemode, operator: operatorName(operator) });
}

/** A tenant's operator when a tenant is named (e.g. by --tenant), else the platform, in the given mode. */
export function tenantOrPlatformContext(rt: Runtime, tenantId: string | undefined, livemode: boolean): CallerContext {
  return tenantId ? tenantContext(rt, tenantId, livemode) : platformContext(rt, livemode);
}

/** Acting as one merchant of the tenant; 404 when the merchant is not the tenant's. */
export async function merchantContext(rt: Runtime, tenantId: string, merchantId: string, livemode: boolean): Promise<CallerContext> {
  const merchant =
    isUuid(merchantId) && isUuid(tenantId)
      ? await rt.db.models.Merchant.findOne({ where: { id: merchantId, tenantId, deletedAt: null } })
      : null;
  if (!merchant) throw new NotFoundError('merchant', merchantId);
  return operatorContext(rt, { level: 'merchant', tenantId, merchantId, livemode });
}

/** --tenant checked: a tenant id (400 naming --tenant otherwise) of a tenant that exists (404 otherwise). */
async function existingTenant(rt: Runtime, tenantId: string): Promise<void> {
  requireId(tenantId, 'tenant', '--tenant');
  if (!(await rt.db.models.Tenant.findOne({ where: { id: tenantId, deletedAt: null }, attributes: ['id'] })))
    throw new NotFoundError('tenant', tenantId);
}

/** Reads as the operator of --tenant when one is named (checked), else as the platform, in the given mode. */
export async function readContext(rt: Runtime, tenantId: string | undefined, livemode: boolean): Promise<CallerContext> {
  if (tenantId !== undefined) await existingTenant(rt, tenantId);
  return tenantOrPlatformContext(rt, tenantId, livemode);
}

/**
 * The named operator (--operator, else the OS user) of --tenant (checked), in live mode with --live: its platform
 * user is the actor (created on first use), the audit trail names the account.
 */
export async function operatorOfTenant(
  rt: Runtime,
  tenantId: string,
  flags: { live?: boolean; operator?: string },
): Promise<CallerContext> {
  requireId(tenantId, 'tenant', '--tenant');
  const name = operatorName(flags.operator);
  await existingTenant(rt, tenantId);
  return tenantContext(rt, tenantId, flags.live ?? false, name);
}

// ------------------------------------------------------------------------------------------------ records that decide

/** Where a payment, refund, withdrawal or payout lives. */
export interface Located {
  id: string;
  tenantId: string;
  merchantId: string;
  livemode: boolean;
}

const LOCATED = {
  payment: { model: COMMAND_RECORDS.payment.model, path: 'PAYMENT_ID', checksTenant: false },
  refund: { model: COMMAND_RECORDS.refund.model, path: 'ID', checksTenant: false },
  withdrawal: { model: COMMAND_RECORDS.withdrawal.model, path: 'ID', checksTenant: true },
  dispute: { model: COMMAND_RECORDS.dispute.model, path: 'ID', checksTenant: true },
  settlement: { model: COMMAND_RECORDS.settlement.model, path: 'ID', checksTenant: true },
  payout: { model: COMMAND_RECORDS.payout.model, path: 'ID', checksTenant: true },
} as const;

/**
 * Where a payment, refund or withdrawal lives (tenant, merchant, mode), found by id with the database's authority; the
 * command then acts inside that scope. 404 when there is no such record (or it is not --tenant's when one is named).
 */
async function locate(rt: Runtime, kind: keyof typeof LOCATED, id: string, tenantId?: string): Promise<Located> {
  const { model, path, checksTenant } = LOCATED[kind];
  requireId(id, kind, path);
  if (checksTenant && tenantId !== undefined) requireId(tenantId, 'tenant', '--tenant');
  const table = rt.db.models[model] as unknown as { findOne(o: object): Promise<{ get(key: string | object): unknown } | null> };
  const row = await table.findOne({ where: { id }, attributes: ['id', 'tenantId', 'merchantId', 'livemode'] });
  if (!row || (tenantId && row.get('tenantId') !== tenantId)) throw new NotFoundError(kind, id);
  return row.get({ plain: true }) as Located;
}

/** Changes act at the tenant level of the record, in its mode, as the tenant's operator (named by --operator). */
function actContext(rt: Runtime, where: { tenantId: string; livemode: boolean }, operator?: string): CallerContext {
  return tenantContext(rt, where.tenantId, where.livemode, operator);
}

/** The kinds of money records a command finds by id (`locate`). */
export type LocatedKind = keyof typeof LOCATED;

function isLocated(kind: string): kind is LocatedKind {
  return Object.prototype.hasOwnProperty.call(LOCATED, kind);
}

/** Where a command on a money record acts (recordArg): found first (and checked against --tenant), then read or acted on. */
async function locatedContext(
  rt: Runtime,
  kind: LocatedKind,
  id: string,
  flags: Record<string, unknown>,
  reads: boolean,
): Promise<CallerContext> {
  const tenant = typeof flags.tenant === 'string' ? flags.tenant : undefined;
  const where = await locate(rt, kind, id, tenant);
  return reads ? readContext(rt, tenant, where.livemode) : actContext(rt, where, flags.operator as string | undefined);
}

/** The flags that say who acts on an access record (users, roles, invitations). */
export interface AccessScopeValues {
  tenant?: string;
  merchant?: string;
  'as-user'?: string;
  live?: boolean;
}

type Row = Record<string, unknown>;

/** A record by id (not soft-deleted); 404 naming `resource` when the id is no uuid or there is no such record. */
async function findRow(
  rt: Runtime,
  model: 'ApiKey' | 'Company' | 'Merchant' | 'User' | 'Role' | 'Invitation' | 'WebhookEndpoint' | 'WebhookDelivery',
  id: string,
  resource: string,
): Promise<Row> {
  const table = rt.db.models[model] as unknown as { findOne(o: object): Promise<{ get(o: object): unknown } | null> };
  const found = isUuid(id) ? await table.findOne({ where: { id, deletedAt: null } }) : null;
  if (!found) throw new NotFoundError(resource, id);
  return found.get({ plain: true }) as Row;
}

/** Acting as a user: its level, tenant, merchant and permissions; refused unless the user is active. */
export async function contextAsUser(rt: Runtime, userId: string, livemode: boolean): Promise<CallerContext> {
  const user = (await findRow(rt, 'User', userId, 'user')) as unknown as UserRow;
  if (user.status !== 'active') throw new AuthenticationError(`The user is ${user.status}.`, 'USER_NOT_ACTIVE');
  const level = levelOfLayer(user.layer);
  // exactly what the user's own token would get: active tenant and merchant, permissions, entity scope
  // loaded for --as-user only: authentication brings the API keys', sessions' and tokens' code
  const { assertOwnerActive, userPermissions } =
    require('../services/access/authenticate') as typeof import('../services/access/authenticate');
  if (level !== 'platform') await assertOwnerActive(rt, user.tenantId!, level === 'merchant' ? user.merchantId : null);
  return userContext(rt, user, { livemode, permissions: await userPermissions(rt, user), credential: 'cli' });
}

/** An access record's owner (its merchant, tenant or the platform), unless --as-user says who acts. */
async function accessOwner(
  rt: Runtime,
  model: 'User' | 'Role' | 'Invitation',
  resource: string,
  id: string,
  flags: AccessScopeValues,
): Promise<CallerContext> {
  const livemode = flags.live ?? false;
  if (flags['as-user']) return contextAsUser(rt, flags['as-user'], livemode);
  const row = (await findRow(rt, model, id, resource)) as { layer: UserRow['layer']; tenantId: string | null; merchantId: string | null };
  return operatorContext(rt, { level: levelOfLayer(row.layer), tenantId: row.tenantId, merchantId: row.merchantId, livemode });
}

/** The records whose owner decides where a command on them acts, and how. */
const OWNERS = {
  /** an API key: the key's own tenant and mode */
  apiKey: async (rt: Runtime, id: string) => {
    const key = await findRow(rt, 'ApiKey', id, 'API key');
    return tenantContext(rt, key.tenantId as string, key.livemode as boolean);
  },
  /** a company: an operator of its tenant, in the company's mode (a company belongs to the mode it was created in) */
  company: async (rt: Runtime, id: string) => {
    const company = await findRow(rt, 'Company', id, 'company');
    return tenantContext(rt, company.tenantId as string, company.livemode === true);
  },
  /** a merchant: an operator of its tenant (tenant-level rules, like asking for live approval, apply as over the API) */
  merchant: async (rt: Runtime, id: string, flags: { live?: boolean }) =>
    tenantContext(rt, (await findRow(rt, 'Merchant', id, 'merchant')).tenantId as string, flags.live ?? false),
  /** a webhook endpoint: its own level, tenant, merchant and mode */
  webhookEndpoint: async (rt: Runtime, id: string) => {
    const row = await findRow(rt, 'WebhookEndpoint', id, 'webhook endpoint');
    return operatorContext(rt, {
      level: row.level as Level,
      tenantId: row.tenantId as string | null,
      merchantId: row.merchantId as string | null,
      livemode: row.livemode as boolean,
    });
  },
  /** a delivery record: the platform, in the delivery's mode */
  webhookDelivery: async (rt: Runtime, id: string) =>
    platformContext(rt, (await findRow(rt, 'WebhookDelivery', id, 'webhook delivery')).livemode as boolean),
  user: (rt: Runtime, id: string, flags: AccessScopeValues) => accessOwner(rt, 'User', 'user', id, flags),
  role: (rt: Runtime, id: string, flags: AccessScopeValues) => accessOwner(rt, 'Role', 'role', id, flags),
  invitation: (rt: Runtime, id: string, flags: AccessScopeValues) => accessOwner(rt, 'Invitation', 'invitation', id, flags),
};

export type RecordKind = keyof typeof OWNERS;

/** The context of a command on one record: its owner's (404 when there is no such record). */
export function recordContext(rt: Runtime, kind: RecordKind, id: string, flags: AccessScopeValues = {}): Promise<CallerContext> {
  return OWNERS[kind](rt, id, flags);
}

/** Where a users/roles command acts: --as-user, else --merchant (its tenant found from it), else --tenant, else the platform. */
export async function accessContext(rt: Runtime, flags: AccessScopeValues): Promise<CallerContext> {
  const livemode = flags.live ?? false;
  if (flags['as-user']) return contextAsUser(rt, flags['as-user'], livemode);
  if (flags.merchant) {
    const merchant = await findRow(rt, 'Merchant', flags.merchant, 'merchant');
    if (flags.tenant && flags.tenant !== merchant.tenantId) throw new NotFoundError('merchant', flags.merchant);
    return operatorContext(rt, { level: 'merchant', tenantId: merchant.tenantId as string, merchantId: flags.merchant, livemode });
  }
  return tenantOrPlatformContext(rt, flags.tenant, livemode);
}

/** Where webhook endpoints are listed or created. */
export interface EndpointScopeValues {
  tenant?: string;
  merchant?: string;
  platform: boolean;
  live: boolean;
}

/**
 * The context of an operator managing endpoints at one level: --platform, else --tenant (tenant level) and
 * --merchant (merchant level). The tenant and merchant must exist.
 */
export async function endpointScopeContext(rt: Runtime, flags: EndpointScopeValues): Promise<CallerContext> {
  if (flags.platform) return platformContext(rt, flags.live);
  if (!flags.tenant) {
    throw new ValidationError(
      'Missing --tenant.',
      [{ path: '--tenant', message: 'is required (or --platform for platform endpoints)' }],
      'MISSING_FLAG',
      {
        hint: "Pass --tenant <id> (and --merchant <id> for a merchant's endpoints), or --platform.",
      },
    );
  }
  const tenantId = requireUuid(flags.tenant, '--tenant');
  const tenant = await rt.db.models.Tenant.findOne({ where: { id: tenantId, deletedAt: null } });
  if (!tenant) throw new NotFoundError('tenant', tenantId);
  if (!flags.merchant) return tenantContext(rt, tenantId, flags.live);
  return merchantContext(rt, tenantId, requireUuid(flags.merchant, '--merchant'), flags.live);
}

/**
 * --tenant and --merchant of a sandbox-facing command (events trigger, tail and resend, webhooks listen): when --tenant
 * is not given, the saved sandbox's tenant and merchant (<home>/sandbox.json, written by `serve` on an empty database
 * and by `sandbox init`), as long as it is this database's; a missing sandbox is a usage error naming --tenant.
 */
export async function sandboxDefaults(
  rt: Runtime,
  flags: { tenant?: string; merchant?: string },
  otherwise = 'pass --tenant <id> [--merchant <id>]',
): Promise<{ tenant: string; merchant?: string; fromSandbox: boolean }> {
  if (flags.tenant !== undefined) return { tenant: flags.tenant, merchant: flags.merchant, fromSandbox: false };
  // loaded on use: the sandbox service pulls in the provisioning code no other command needs
  const { savedSandbox, sandboxFile } = require('../services/sandbox/provision') as typeof import('../services/sandbox/provision');
  const sandbox = savedSandbox(rt.config);
  if (!sandbox) {
    throw new ValidationError(
      'Missing --tenant.',
      [{ path: '--tenant', message: `is required: no sandbox of this database in ${sandboxFile(rt)}` }],
      'MISSING_FLAG',
      {
        hint: `Start the sandbox first (\`npm start\` or \`payplane sandbox init\`), or ${otherwise}.`,
      },
    );
  }
  return { tenant: sandbox.tenantId, merchant: flags.merchant ?? sandbox.merchantId, fromSandbox: true };
}

/** Where endpoints are listed or created (`endpointScopeContext`): --platform, else --tenant [--merchant]. */
export const atEndpointLevel: ScopeOf = (rt, _tenant, flags) => endpointScopeContext(rt, flags as unknown as EndpointScopeValues);

/** As atEndpointLevel, the saved sandbox's tenant and merchant when neither --tenant nor --platform is given (webhooks listen). */
export const atEndpointLevelOrSandbox: ScopeOf = async (rt, _tenant, flags) => {
  const scope = { ...flags } as unknown as EndpointScopeValues;
  if (!scope.tenant && !scope.platform) {
    const { tenant, merchant } = await sandboxDefaults(rt, scope, 'pass --tenant <id> [--merchant <id>] or --platform');
    Object.assign(scope, { tenant, merchant });
  }
  return endpointScopeContext(rt, scope);
};

/** Deliveries: --tenant [--merchant] (the deliveries to their endpoints), else every tenant's, as the platform. */
export const atDeliveryLevel: ScopeOf = (rt, tenant, flags) =>
  endpointScopeContext(rt, { tenant, merchant: flags.merchant as string | undefined, platform: !tenant, live: flags.live === true });

/** Events followed (events tail): --tenant [--merchant], --merchant alone, else the saved sandbox's merchant; in the mode --live says. */
export const atTailLevel: ScopeOf = async (rt, _tenant, flags) => {
  const live = flags.live === true;
  let tenant = flags.tenant as string | undefined;
  let merchant = flags.merchant as string | undefined;
  if (tenant === undefined && merchant === undefined) ({ tenant, merchant } = await sandboxDefaults(rt, {}));
  if (tenant === undefined) return accessContext(rt, { merchant, live });
  return endpointScopeContext(rt, { tenant, merchant, platform: false, live });
};

/** Events resent: --platform, else --tenant [--merchant], else --merchant alone (its tenant found from it), else the sandbox's tenant. */
export const atResendLevel: ScopeOf = async (rt, _tenant, flags) => {
  const { platform, live, merchant } = flags as { platform: boolean; live: boolean; merchant?: string };
  let tenant = flags.tenant as string | undefined;
  if (!platform && tenant === undefined && merchant !== undefined) return accessContext(rt, { merchant, live });
  // the sandbox's tenant only: its tenant-level events are resent too, and its merchant's endpoints still receive theirs
  if (!platform && tenant === undefined)
    tenant = (await sandboxDefaults(rt, {}, 'pass --tenant <id> [--merchant <id>], --merchant <id> or --platform')).tenant;
  return endpointScopeContext(rt, { platform, tenant, merchant, live });
};

/** Sample events (events trigger): --tenant, else the saved sandbox's, in sandbox mode. */
export const atSandboxTenant: ScopeOf = async (rt, _tenant, flags) => {
  const scope = await sandboxDefaults(rt, flags as { tenant?: string; merchant?: string });
  return tenantContext(rt, requireUuid(scope.tenant, '--tenant'), false);
};

/** A tenant's context narrowed to one of its merchants (404 when the merchant is not the tenant's), in the same mode. */
export function ofMerchant(rt: Runtime, ctx: CallerContext, merchantId: string): Promise<CallerContext> {
  return merchantContext(rt, ctx.tenantId!, merchantId, ctx.livemode);
}

export function requireUuid(value: string, path: string): string {
  if (!isUuid(value)) throw ValidationError.field(path, 'must be a UUID');
  return value;
}

// ------------------------------------------------------------------------------------------------ argument and flag types

/** Resolves the value of a scope-carrying argument or flag to the context the command acts in. */
export type ScopeOf = (
  rt: Runtime,
  value: string | undefined,
  flags: Record<string, unknown>,
  livemode: boolean | undefined,
) => Promise<CallerContext>;

/**
 * The records a command names by id, by kind: their table, and whether a merchant can own one (the table has a merchant
 * column, or a company's merchants), from the registry of record kinds (src/domain/record-kinds.ts). Every kind takes
 * --tenant, the kinds a merchant can own --merchant too (`ownerFlags`); a merchant record is its own merchant, a tenant
 * record its own tenant.
 */
const RECORD_TABLES = COMMAND_RECORDS;

/** A kind of record a command names by id (ownedArg); RecordKind are those whose owner also decides where it acts. */
export type OwnedKind = keyof typeof RECORD_TABLES;

/** The kind of record an argument names (ownedArg, recordArg): BaseCommand checks --tenant and --merchant against it. */
export interface OwnedArgument {
  owner: OwnedKind;
}

/**
 * The id of one record (`payplane terminals get ID`): with --tenant or --merchant (`ownerFlags`) the record must be
 * theirs, else it is not found (exit 4). BaseCommand checks it (assertOwner) as the command opens the database, before
 * anything is read or changed; the command acts where it always does.
 */
export function ownedArg(kind: OwnedKind, options: { description: string; required: true; name?: string }) {
  const owned: OwnedArgument = { owner: kind };
  return Object.assign(Args.custom<string>({ parse: async (id) => id })(options), owned);
}

/**
 * The id of a record whose owner decides where the command acts (`payplane merchants get ID`, `payplane payments
 * capture ID`): the command asks `this.scope()` for its context. --tenant and --merchant are checked as for every
 * ownedArg. A money record (a payment, refund, dispute, payout, statement or withdrawal) is acted on as its tenant's
 * operator (--operator names who, on the commands that have it), in its mode; a command that only `reads` one reads
 * as --tenant's operator when one is named, else as the platform (which sees the operator's fields), in its mode.
 */
export function recordArg(
  kind: RecordKind | LocatedKind,
  options: { description: string; required: true; name?: string; reads?: boolean },
) {
  const { reads, ...arg } = options;
  const scope: ScopeOf = isLocated(kind)
    ? (rt, id, flags) => locatedContext(rt, kind, id!, flags, reads === true)
    : (rt, id, flags) => recordContext(rt, kind, id!, flags as AccessScopeValues);
  return Object.assign(ownedArg(kind, arg), { scope });
}

/**
 * --tenant and --merchant on a command about one record (`webhooks endpoints get ID --tenant T --merchant M`), as
 * everywhere: the record must be that tenant's and that merchant's, else it is not found (404), as over the API a
 * record outside the caller's scope is. A record of no tenant (the platform's) is no tenant's; one of no merchant
 * (the tenant's own) no merchant's; a company is the company of its merchants. --merchant is not checked on a kind
 * no merchant owns (there it may be a field of the command). A malformed flag is a usage error naming it (exit 2); a
 * malformed id is left to the command, which reports it as it always has.
 */
export async function assertOwner(
  rt: Runtime,
  kind: OwnedKind,
  id: string,
  flags: { tenant?: unknown; merchant?: unknown },
): Promise<void> {
  const { model: name, merchant: merchantOwns } = RECORD_TABLES[kind];
  const tenant = typeof flags.tenant === 'string' ? flags.tenant : undefined;
  const merchant = merchantOwns && typeof flags.merchant === 'string' ? flags.merchant : undefined;
  if (tenant === undefined && merchant === undefined) return;
  if (tenant !== undefined) requireId(tenant, 'tenant', '--tenant');
  if (merchant !== undefined) requireId(merchant, 'merchant', '--merchant');
  if (!isUuid(id)) return;
  const model = rt.db.models[name] as unknown as { scopeSpec: ScopeSpec; findOne(o: object): Promise<Row | null> };
  const spec = model.scopeSpec;
  const row = await model.findOne({ where: { id, ...(spec.softDelete ? { deletedAt: null } : {}) }, raw: true });
  if (!row) throw new NotFoundError(spec.resource, id);
  if (tenant !== undefined && (!spec.tenant || row[spec.tenant] !== tenant)) throw new NotFoundError(spec.resource, id);
  if (merchant === undefined) return;
  if (spec.merchant) {
    if (row[spec.merchant] !== merchant) throw new NotFoundError(spec.resource, id);
  } else if (spec.throughMerchants) {
    // a company: a merchant caller of the API sees the company of its merchant (and no other)
    const of = await rt.db.models.Merchant.findOne({
      where: { id: merchant, [spec.throughMerchants.column]: id, deletedAt: null },
      attributes: ['id'],
    });
    if (!of) throw new NotFoundError(spec.resource, id);
  } else {
    throw new NotFoundError(spec.resource, id);
  }
}

/** --tenant and --merchant of the commands on one record (ownedArg, recordArg): they check whose the record is (assertOwner). */
export const recordOwnerFlags = {
  tenant: Flags.string({ description: "Only if the record is this tenant's (else not found, exit 4)" }),
  merchant: Flags.string({ description: "Only if the record is this merchant's (else not found, exit 4)" }),
};

/** The owner flags of a kind of record: --tenant, and --merchant where a merchant can own one. */
export function ownerFlags<K extends OwnedKind>(
  kind: K,
): (typeof RECORD_TABLES)[K]['merchant'] extends true ? typeof recordOwnerFlags : Pick<typeof recordOwnerFlags, 'tenant'> {
  const flags = RECORD_TABLES[kind].merchant ? recordOwnerFlags : { tenant: recordOwnerFlags.tenant };
  return flags as never;
}

/** A flag (a string) that says where the command acts: `scope` makes the context of its value (and the other flags). */
export function scopeFlag(description: string, scope: ScopeOf) {
  return Object.assign(Flags.custom<string>({ parse: async (value) => value })({ description }), { scope });
}

/** The same flag (its description, options and all), now saying where the command acts: `scope` makes the context. */
export function withScope<F extends object>(flag: F, scope: ScopeOf): F & { scope: ScopeOf } {
  return { ...flag, scope };
}

/**
 * Where a command acts that no argument or flag places (BaseCommand's static `scopeOf`): the platform's operator, in
 * live mode, or in the mode given, or in the mode --live says (`'live-flag'`).
 */
export function atPlatform(mode: boolean | 'live-flag' = true): ScopeOf {
  return async (rt, _value, flags) => platformContext(rt, mode === 'live-flag' ? flags.live === true : mode);
}

/** --tenant checked, as its operator (--operator names who, --live the mode): `operatorOfTenant`. */
export const asOperatorOfTenant: ScopeOf = (rt, tenantId, flags) =>
  operatorOfTenant(rt, tenantId as string, flags as { live?: boolean; operator?: string });

/** --tenant as the tenant's operator (unchecked), else the platform, in the mode --live says. */
export const asTenantOrPlatform: ScopeOf = async (rt, tenantId, flags) => tenantOrPlatformContext(rt, tenantId, flags.live === true);

/** --tenant checked, as its operator (`asOperatorOfTenant`), else the platform, in the mode --live says. */
export const asOperatorOfTenantOrPlatform: ScopeOf = async (rt, tenantId, flags, livemode) =>
  tenantId !== undefined ? asOperatorOfTenant(rt, tenantId, flags, livemode) : platformContext(rt, flags.live === true);

/** --tenant as its operator (unchecked), in the mode --live says. */
export const asTenant: ScopeOf = async (rt, tenantId, flags) => tenantContext(rt, tenantId as string, flags.live === true);

/** --tenant as its operator (unchecked), in the mode --live says; with --merchant, acting as that merchant of the tenant. */
export const asTenantOrItsMerchant: ScopeOf = (rt, tenantId, flags) =>
  typeof flags.merchant === 'string'
    ? merchantContext(rt, tenantId as string, flags.merchant, flags.live === true)
    : Promise.resolve(tenantContext(rt, tenantId as string, flags.live === true));

/** --tenant as its operator in sandbox mode, else the platform (live): where a fee is quoted. */
export const asQuotingTenant: ScopeOf = async (rt, tenantId) => (tenantId ? tenantContext(rt, tenantId, false) : platformContext(rt));

/** A flag naming a record whose owner decides where the command acts (`merchants create --company ID`). */
export function recordFlagScope(kind: RecordKind, flag: string): ScopeOf {
  return (rt, id, flags) => recordContext(rt, kind, requireId(id as string, kind, `--${flag}`), flags as AccessScopeValues);
}

/** --tenant as a reading scope (`readContext`): the tenant's operator (checked), else the platform, in the mode --live says. */
export const asReader: ScopeOf = (rt, tenantId, flags, livemode) =>
  readContext(rt, tenantId, livemode ?? (flags.live as boolean | undefined) ?? false);

/** --tenant as a reading scope: the tenant's operator (checked: 400 for no uuid, 404 for no tenant), else the platform. */
export function readAsTenantFlag(description: string) {
  return scopeFlag(description, asReader);
}

/** --tenant, --merchant, --as-user and --live of the users and roles commands: who acts (accessContext, from all four). */
export const accessScopeFlags = {
  tenant: scopeFlag('Act as the tenant (operator level)', (rt, _tenant, flags) => accessContext(rt, flags as AccessScopeValues)),
  merchant: Flags.string({ description: 'Act as this merchant (merchant level; its tenant is found from it)' }),
  'as-user': Flags.string({ description: "Act as this active user, with its scope and its roles' permissions" }),
  live: Flags.boolean({ description: 'Write audit entries in live mode (default: test mode)', default: false }),
};
