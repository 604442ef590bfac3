import type { AccessScopeValues } from './access-flags';
import type { Runtime } from '../runtime';
import { operatorContext } from '../runtime';
import type { CallerContext, Level } from '../domain/context';
import { AuthenticationError, NotFoundError } from '../domain/errors';
import { isUuid } from '../db/scoped';
import { assertOwnerActive, userPermissions } from '../services/access/authenticate';
import { userContext } from '../domain/authority';
import type { UserRow } from '../db/models';

const LEVEL_OF: Record<UserRow['layer'], Level> = { merchant: 'merchant', operator: 'tenant', platform: 'platform' };

async function findRow<T>(rt: Runtime, model: 'User' | 'Role' | 'Invitation' | 'Merchant', id: string, resource: string): Promise<T> {
  const found = isUuid(id) ? await (rt.db.models[model] as unknown as { findOne(o: object): Promise<{ get(o: object): unknown } | null> }).findOne({ where: { id, deletedAt: null } }) : null;
  if (!found) throw new NotFoundError(resource, id);
  return found.get({ plain: true }) as T;
}

/** Acting as a user: its level, tenant, merchant and permissions; refused unless the user is active. */
export async function contextAsUser(rt: Runtime, userId: string, livemode: boolean): Promise<CallerContext> {
  const user = await findRow<UserRow>(rt, 'User', userId, 'user');
  if (user.status !== 'active') throw new AuthenticationError(`The user is ${user.status}.`, 'USER_NOT_ACTIVE');
  const level = LEVEL_OF[user.layer];
  // exactly what the user's own token would get: active tenant and merchant, permissions, entity scope
  if (level !== 'platform') await assertOwnerActive(rt, user.tenantId!, level === 'merchant' ? user.merchantId : null);
  return userContext(rt, user, { livemode, permissions: await userPermissions(rt, user), credential: 'cli' });
}

export async function contextFromFlags(rt: Runtime, flags: AccessScopeValues): Promise<CallerContext> {
  const livemode = flags.live ?? false;
  if (flags['as-user']) return contextAsUser(rt, flags['as-user'], livemode);
  if (flags.merchant) {
    const merchant = await findRow<{ tenantId: string }>(rt, 'Merchant', flags.merchant, 'merchant');
    if (flags.tenant && flags.tenant !== merchant.tenantId) throw new NotFoundError('merchant', flags.merchant);
    return operatorContext(rt, { level: 'merchant', tenantId: merchant.tenantId, merchantId: flags.merchant, livemode });
  }
  if (flags.tenant) return operatorContext(rt, { level: 'tenant', tenantId: flags.tenant, livemode });
  return operatorContext(rt, { level: 'platform', tenantId: null, livemode });
}

/** The context owning a record (its merchant, tenant or the platform), unless --as-user says who acts. */
async function contextForOwner(rt: Runtime, row: { layer: UserRow['layer']; tenantId: string | null; merchantId: string | null }, flags: AccessScopeValues): Promise<CallerContext> {
  const livemode = flags.live ?? false;
  if (flags['as-user']) return contextAsUser(rt, flags['as-user'], livemode);
  return operatorContext(rt, { level: LEVEL_OF[row.layer], tenantId: row.tenantId, merchantId: row.merchantId, livemode });
}

export async function contextForUser(rt: Runtime, id: string, flags: AccessScopeValues): Promise<CallerContext> {
  if (flags['as-user']) return contextAsUser(rt, flags['as-user'], flags.live ?? false);
  return contextForOwner(rt, await findRow<UserRow>(rt, 'User', id, 'user'), flags);
}

export async function contextForRole(rt: Runtime, id: string, flags: AccessScopeValues): Promise<CallerContext> {
  if (flags['as-user']) return contextAsUser(rt, flags['as-user'], flags.live ?? false);
  return contextForOwner(rt, await findRow<UserRow>(rt, 'Role', id, 'role'), flags);
}

export async function contextForInvitation(rt: Runtime, id: string, flags: AccessScopeValues): Promise<CallerContext> {
  if (flags['as-user']) return contextAsUser(rt, flags['as-user'], flags.live ?? false);
  return contextForOwner(rt, await findRow<UserRow>(rt, 'Invitation', id, 'invitation'), flags);
}
