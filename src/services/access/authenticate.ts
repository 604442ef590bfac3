import { selectRows } from '../../db/rows';
import ipaddr from 'ipaddr.js';
import type { Runtime } from '../../runtime';
import type { CallerContext } from '../../domain/context';
import { apiKeyContext, clientSecretContext, userContext } from '../../domain/authority';
import { levelOfLayer } from '../../domain/level';
import { AuthenticationError, PermissionError } from '../../domain/errors';
import type { ApiKeyRow, MerchantRow, RoleRow, TenantRow, UserRow } from '../../db/models';
import { effectivePermissions } from './roles';
import { layerPermissions } from '../../domain/permissions';
import { isUuid } from '../../db/scoped';
import { parseSecretKey, apiKeyStatus, verifySecret } from '../api-keys/secrets';
import { parseClientSecret, verifyClientSecret } from '../checkout/client-secret';

export interface Credentials {
  authorization: string | undefined;
  /** client address as Express resolved it under the configured proxy trust */
  ip: string;
  /** `Payplane-Mode: test|live`, honoured for user tokens that carry no mode of their own */
  modeHeader?: string;
  requestId?: string;
}

/**
 * The refusals of a credential that is not what it claims to be: a guess, a typo, a forgery (its secret or signature
 * did not verify, or it is no credential at all). The failed-authentication throttle (src/http/auth-throttle.ts) counts
 * these; a genuine credential refused for its state (revoked, expired, an inactive user, a public key sent by mistake)
 * is not a guess and is not counted.
 */
export const UNVERIFIED_CREDENTIAL_CODES: ReadonlySet<string> = new Set([
  'INVALID_CREDENTIALS',
  'INVALID_API_KEY',
  'INVALID_CLIENT_SECRET',
  'INVALID_TOKEN',
]);

/** The bearer credential of an Authorization header ("Bearer <credential>"), or undefined when it has another form. */
export function bearerOf(header: string): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
}

/**
 * Turns a bearer credential into the caller context: secret API keys (sk_…) and user tokens (our own JWTs,
 * or an OIDC issuer's when configured). Refuses unknown, revoked and expired keys (401), keys used from an
 * address outside their allowlist, and callers whose tenant or merchant is suspended or disabled (403).
 */
export async function authenticate(rt: Runtime, credentials: Credentials): Promise<CallerContext> {
  const header = credentials.authorization;
  if (!header) throw new AuthenticationError('Send the header Authorization: Bearer <secret key or token>.', 'MISSING_CREDENTIALS');
  const bearer = bearerOf(header);
  if (!bearer) throw new AuthenticationError('The Authorization header must be "Bearer <secret key or token>".', 'INVALID_CREDENTIALS');
  if (bearer.startsWith('sk_')) return authenticateKey(rt, bearer, credentials);
  if (bearer.startsWith('cs_')) return authenticateClientSecret(rt, bearer, credentials);
  if (bearer.startsWith('pk_')) {
    throw new AuthenticationError('A public key cannot authenticate API calls; use the secret key (sk_…).', 'PUBLIC_KEY_USED');
  }
  return authenticateUser(rt, bearer, credentials);
}

async function authenticateKey(rt: Runtime, secret: string, credentials: Credentials): Promise<CallerContext> {
  const parsed = parseSecretKey(secret);
  if (!parsed) throw new AuthenticationError('The API key is not valid.', 'INVALID_API_KEY');
  const { ApiKey } = rt.db.models;
  // Authentication precedes any caller scope: the key is found by its non-secret prefix, then verified.
  const key = await rt.db.authCache.read(`key:${parsed.prefix}`, async () => {
    const [found] = await selectRows<ApiKeyRow>(rt.db, ApiKey as never, { keyPrefix: parsed.prefix, deletedAt: null }, { limit: 1 });
    return found ?? null;
  });
  if (!key || !verifySecret(secret, key.secretHash) || key.livemode !== parsed.livemode) {
    throw new AuthenticationError('The API key is not valid.', 'INVALID_API_KEY');
  }
  const status = apiKeyStatus(key, rt.clock.now());
  if (status === 'revoked') throw new AuthenticationError('The API key has been revoked.', 'API_KEY_REVOKED');
  if (status === 'expired') throw new AuthenticationError('The API key has expired.', 'API_KEY_EXPIRED');
  if (key.ipAllowlist.length > 0 && !ipAllowed(credentials.ip, key.ipAllowlist)) {
    throw new PermissionError(`Requests with this API key are not allowed from ${credentials.ip}.`, 'IP_NOT_ALLOWED');
  }
  await assertOwnerActive(rt, key.tenantId, key.merchantId);
  return apiKeyContext(rt, key, credentials.requestId);
}

/**
 * A checkout session's clientSecret (cs_<mode>_<session>_secret_<random>): a merchant-level caller that reaches
 * that one session only (ctx.checkoutSessionId), holding payment-experience:checkout:manage. Unknown secrets are 401.
 */
export async function authenticateClientSecret(
  rt: Runtime,
  secret: string,
  credentials: Pick<Credentials, 'requestId'>,
): Promise<CallerContext> {
  const parsed = parseClientSecret(secret);
  if (!parsed) throw new AuthenticationError('The checkout session client secret is not valid.', 'INVALID_CLIENT_SECRET');
  const [session] = await selectRows<{ id: string; tenantId: string; merchantId: string; livemode: boolean; clientSecretHash: string }>(
    rt.db,
    rt.db.models.CheckoutSession as never,
    { id: parsed.sessionId, deletedAt: null },
    { limit: 1 },
  );
  if (!session || session.livemode !== parsed.livemode || !verifyClientSecret(secret, session.clientSecretHash)) {
    throw new AuthenticationError('The checkout session client secret is not valid.', 'INVALID_CLIENT_SECRET');
  }
  await assertOwnerActive(rt, session.tenantId, session.merchantId);
  return clientSecretContext(rt, session, credentials.requestId);
}

async function authenticateUser(rt: Runtime, token: string, credentials: Credentials): Promise<CallerContext> {
  const verified = await rt.tokens.verify(token);
  const { User } = rt.db.models;
  const where = verified.kind === 'local' ? { id: verified.subject } : { externalIdpId: verified.subject };
  if (verified.kind === 'local' && !isUuid(verified.subject)) {
    throw new AuthenticationError('The token names no known user.', 'UNKNOWN_USER');
  }
  const found = await User.findOne({ where: { ...where, deletedAt: null } });
  const user = found?.get({ plain: true }) as UserRow | undefined;
  if (!user) throw new AuthenticationError('The token names no known user.', 'UNKNOWN_USER');
  // A disabled user, and an invited one that has not accepted yet, cannot authenticate (checked on every request).
  if (user.status !== 'active') throw new AuthenticationError(`The user is ${user.status}.`, 'USER_NOT_ACTIVE');
  const level = levelOfLayer(user.layer);
  if ((level !== 'platform' && !user.tenantId) || (level === 'merchant' && !user.merchantId)) {
    throw new AuthenticationError(`The user has no ${level === 'merchant' ? 'merchant' : 'tenant'} to act for.`, 'USER_WITHOUT_SCOPE');
  }
  if (level !== 'platform') await assertOwnerActive(rt, user.tenantId!, level === 'merchant' ? user.merchantId : null);
  let livemode = verified.livemode;
  if (livemode === undefined) {
    const mode = credentials.modeHeader?.toLowerCase();
    if (mode !== undefined && mode !== 'test' && mode !== 'live') {
      throw new AuthenticationError('The Payplane-Mode header must be test or live.', 'INVALID_MODE');
    }
    livemode = mode !== 'test';
  }
  return userContext(rt, user, {
    livemode,
    permissions: await userPermissions(rt, user),
    credential: 'user_token',
    requestId: credentials.requestId,
  });
}

/**
 * A user's permissions, read on every request so a role change applies at once: an owner holds its whole
 * layer; anyone else the union of its (not deleted) roles' codes, intersected with its layer's set.
 */
export async function userPermissions(rt: Pick<Runtime, 'db'>, user: UserRow): Promise<ReadonlySet<string>> {
  if (user.isOwner) return layerPermissions(user.layer);
  const { UserRole, Role } = rt.db.models;
  const links = await UserRole.findAll({ where: { userId: user.id }, attributes: ['roleId'] });
  if (links.length === 0) return new Set();
  const roles = await Role.findAll({
    where: { id: links.map((l) => l.get('roleId') as string), tenantId: user.tenantId, deletedAt: null },
    attributes: ['layer', 'permissions'],
  });
  return effectivePermissions(
    user,
    roles.map((r) => r.get({ plain: true }) as Pick<RoleRow, 'layer' | 'permissions'>),
  );
}

/** What authentication needs of a tenant: its status (disabled when deleted) and its request rate limit. */
export interface TenantAccess {
  status: string | undefined;
  doorRateLimitPerMinute: number | null;
}

export async function tenantAccess(rt: Pick<Runtime, 'db'>, tenantId: string): Promise<TenantAccess> {
  return rt.db.authCache.read(`tenant:${tenantId}`, async () => {
    const [tenant] = await selectRows<TenantRow>(rt.db, rt.db.models.Tenant as never, { id: tenantId }, { limit: 1 });
    return {
      status: tenant?.deletedAt ? 'disabled' : tenant?.status,
      doorRateLimitPerMinute: tenant?.doorRateLimitPerMinute ?? null,
    };
  });
}

export async function assertOwnerActive(rt: Pick<Runtime, 'db'>, tenantId: string, merchantId: string | null): Promise<void> {
  const tenantStatus = (await tenantAccess(rt, tenantId)).status;
  if (tenantStatus !== 'active') {
    throw new PermissionError(
      `The tenant is ${tenantStatus ?? 'unknown'}; its credentials cannot be used.`,
      `TENANT_${(tenantStatus ?? 'unknown').toUpperCase()}`,
    );
  }
  if (merchantId) {
    const status = await rt.db.authCache.read(`merchant:${merchantId}`, async () => {
      const [merchant] = await selectRows<MerchantRow>(rt.db, rt.db.models.Merchant as never, { id: merchantId }, { limit: 1 });
      return merchant?.deletedAt ? 'disabled' : (merchant?.status ?? null);
    });
    if (status !== 'active') {
      throw new PermissionError(
        `The merchant is ${status ?? 'unknown'}; its credentials cannot be used.`,
        `MERCHANT_${(status ?? 'unknown').toUpperCase()}`,
      );
    }
  }
}

/** Whether the address matches any IP or CIDR entry of the allowlist (IPv4-mapped IPv6 is read as IPv4). */
export function ipAllowed(ip: string, allowlist: string[]): boolean {
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    address = ipaddr.process(ip);
  } catch {
    return false;
  }
  return allowlist.some((entry) => {
    try {
      const [range, bits] = entry.includes('/') ? ipaddr.parseCIDR(entry) : [ipaddr.process(entry), address.kind() === 'ipv4' ? 32 : 128];
      return range.kind() === address.kind() && address.match(range, bits);
    } catch {
      return false;
    }
  });
}

export function isValidIpEntry(entry: string): boolean {
  try {
    if (entry.includes('/')) ipaddr.parseCIDR(entry);
    else ipaddr.parse(entry);
    return true;
  } catch {
    return false;
  }
}
