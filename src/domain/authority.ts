import type { Actor, CallerContext } from './context';
import { InternalError } from './errors';
import { layerOf, levelOfLayer, type Level } from './level';
import { layerPermissions } from './permissions';
import type { ApiKeyRow } from '../db/models/api-keys';
import type { UserRow } from '../db/models/access';

/**
 * Authority: the one place a caller context is made or its scope changed, so that who may act where is decided once.
 * Every constructor of a CallerContext lives here: from an API key, a user token, a checkout session's client secret,
 * an invitation token, the operator at the terminal (its actor and provisioning: src/services/access/operators.ts), and the platform's own work (jobs, the dispatcher, the payment path); a context
 * already made is lifted to tenant or platform level by `elevate` only. Contexts are read-only; the transaction and
 * the request's origin are set through src/domain/context.ts (withTransaction, withRequest).
 * test/unit/authority.test.ts fails when a context is built, or spread into a new one, anywhere else.
 */

/** What every context carries of the process: the database, the clock, the configuration and the sealer (a Runtime has them). */
export type ContextSources = Pick<CallerContext, 'db' | 'clock' | 'config' | 'sealer'>;

const SYSTEM_ACTOR: Actor = { type: 'system', id: 'system' };

function sources(rt: ContextSources): ContextSources {
  return { db: rt.db, clock: rt.clock, config: rt.config, sealer: rt.sealer };
}

// ------------------------------------------------------------------------------------------ credentials

/** The merchants an operator's entityScope limits it to (undefined: the whole tenant). */
export function merchantScopeOf(user: UserRow): ReadonlySet<string> | undefined {
  const scope = user.entityScope as { type?: string; merchantIds?: unknown };
  if (scope?.type !== 'merchants') return undefined;
  return new Set(Array.isArray(scope.merchantIds) ? scope.merchantIds.filter((id): id is string => typeof id === 'string') : []);
}

/** A secret API key's caller (the key verified, its owner active): its owner's level, the key's permissions within that layer. */
export function apiKeyContext(
  rt: ContextSources,
  key: Pick<ApiKeyRow, 'id' | 'tenantId' | 'merchantId' | 'ownerType' | 'livemode' | 'permissions'>,
  requestId?: string,
): CallerContext {
  const level: Level = key.ownerType;
  const layerSet = layerPermissions(layerOf(level));
  return {
    ...sources(rt),
    level,
    tenantId: key.tenantId,
    merchantId: key.ownerType === 'merchant' ? key.merchantId : null,
    livemode: key.livemode,
    actor: { type: 'api_key', id: key.id },
    permissions: new Set(key.permissions.filter((p) => layerSet.has(p))),
    credential: 'secret_key',
    requestId,
  };
}

/**
 * A user's context (its token verified, or the CLI's --as-user): its level, tenant, merchant, entity scope and the
 * permissions given; `credential` says how it came (user_token over the API, cli at the terminal).
 */
export function userContext(
  rt: ContextSources,
  user: UserRow,
  grant: { livemode: boolean; permissions: ReadonlySet<string>; credential: 'user_token' | 'cli'; requestId?: string },
): CallerContext {
  const level = levelOfLayer(user.layer);
  return {
    ...sources(rt),
    level,
    tenantId: level === 'platform' ? null : user.tenantId,
    merchantId: level === 'merchant' ? (user.merchantId ?? null) : null,
    merchantScope: level === 'tenant' ? merchantScopeOf(user) : undefined,
    livemode: grant.livemode,
    actor: { type: 'user', id: user.id },
    permissions: grant.permissions,
    credential: grant.credential,
    requestId: grant.requestId,
  };
}

/**
 * A checkout session's client secret (verified): a merchant-level caller that reaches that one session only
 * (checkoutSessionId), holding payment-experience:checkout:manage.
 */
export function clientSecretContext(
  rt: ContextSources,
  session: { id: string; tenantId: string; merchantId: string; livemode: boolean },
  requestId?: string,
): CallerContext {
  return {
    ...sources(rt),
    level: 'merchant',
    tenantId: session.tenantId,
    merchantId: session.merchantId,
    livemode: session.livemode,
    actor: { type: 'checkout_session', id: session.id },
    permissions: new Set(['payment-experience:checkout:manage']),
    credential: 'client_secret',
    checkoutSessionId: session.id,
    requestId,
  };
}

/**
 * An invitation token's caller before the invitation is found: the token is its only credential, so it looks the
 * invitation up across tenants (platform level, live mode, no permissions) as the system actor invitation-acceptance.
 */
export function invitationTokenContext(rt: ContextSources): CallerContext {
  return {
    ...sources(rt),
    level: 'platform',
    tenantId: null,
    merchantId: null,
    livemode: true,
    actor: { type: 'system', id: 'invitation-acceptance' },
    permissions: new Set(),
    credential: 'system',
  };
}

/** The invitation's acceptance, once the invitation is found: it acts as the invited user, in the invitation's mode. */
export function invitedUserContext(lookup: CallerContext, userId: string, livemode: boolean): CallerContext {
  return { ...lookup, livemode, actor: { type: 'user', id: userId } };
}

// ------------------------------------------------------------------------------------------ the terminal

export interface OperatorScope {
  level?: Level;
  tenantId: string | null;
  merchantId?: string | null;
  livemode: boolean;
}

/**
 * The caller context of an operator at the terminal, acting as `actor` (the operator's user:
 * src/services/access/operators.ts operatorContext): admin commands run with the database's own authority, acting at
 * the given level with every permission of that layer.
 */
export function terminalContext(rt: ContextSources, scope: OperatorScope, actor: Actor): CallerContext {
  const level = scope.level ?? (scope.merchantId ? 'merchant' : scope.tenantId ? 'tenant' : 'platform');
  return {
    ...sources(rt),
    level,
    tenantId: level === 'platform' ? null : scope.tenantId,
    merchantId: level === 'merchant' ? (scope.merchantId ?? null) : null,
    livemode: scope.livemode,
    actor,
    permissions: layerPermissions(layerOf(level)),
    credential: 'cli',
  };
}

// ------------------------------------------------------------------------------------------ the platform's own work

/**
 * The context of the platform's own background work (dispatcher, schedulers): platform level, so it reads
 * across tenants in one mode; what it writes names its tenant explicitly. Actor: system.
 */
export function systemContext(rt: ContextSources, livemode: boolean): CallerContext {
  return {
    ...sources(rt),
    level: 'platform',
    tenantId: null,
    merchantId: null,
    livemode,
    actor: SYSTEM_ACTOR,
    permissions: layerPermissions('platform'),
    credential: 'system',
  };
}

/**
 * A tenant-level context for the payment path's own work (reading terminals, fees, routing of the payment's tenant),
 * outside any transaction; it keeps the request's id and origin. Actor: system unless given.
 */
export function processingContext(
  base: ContextSources & { requestId?: string; origin?: string },
  tenantId: string,
  livemode: boolean,
  actor: Actor = SYSTEM_ACTOR,
): CallerContext {
  return {
    ...sources(base),
    requestId: base.requestId,
    origin: base.origin,
    level: 'tenant',
    tenantId,
    merchantId: null,
    livemode,
    actor,
    permissions: new Set(),
    credential: 'system',
  };
}

// ------------------------------------------------------------------------------------------ changing the scope

/** A string literal (not a computed string): the reason an elevation is written down for readers. */
type Literal<R extends string> = string extends R ? never : R;

export interface ElevationScope {
  /** the tenant a tenant-level context acts for (default: the context's own) */
  tenantId?: string;
  /** the mode (default: the context's own) */
  livemode?: boolean;
}

/**
 * The same caller, scope and transaction in the other mode, for a record it may write there although it works in
 * this one (a user token or the terminal issuing an API key of the other mode): ScopedAccess writes a row in its
 * context's mode only. `reason` says why, for the reader of the call.
 */
export function inMode<R extends string>(ctx: CallerContext, livemode: boolean, reason: Literal<R>): CallerContext {
  void reason;
  return livemode === ctx.livemode ? ctx : { ...ctx, livemode };
}

/**
 * The one way to lift a context to tenant or platform level (or to point a platform context at one tenant), for
 * work the caller's own scope does not cover: the ledger's writes, a tenant's configuration read for a merchant's
 * payment, the company-wide KYB rule. The merchant and the entity scope are cleared; the caller's actor,
 * permissions, credential, transaction and request stay. `reason` says why, for the reader of the call.
 */
export function elevate<R extends string>(
  ctx: CallerContext,
  level: 'tenant' | 'platform',
  reason: Literal<R>,
  scope: ElevationScope = {},
): CallerContext {
  const tenantId = level === 'platform' ? null : (scope.tenantId ?? ctx.tenantId);
  if (level === 'tenant' && !tenantId)
    throw new InternalError(`a tenant-level context needs a tenant (${reason})`, 'CONTEXT_WITHOUT_TENANT');
  return { ...ctx, level, tenantId, merchantId: null, merchantScope: undefined, livemode: scope.livemode ?? ctx.livemode };
}
