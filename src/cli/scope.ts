import type { Runtime } from '../runtime';
import { operatorContext } from '../runtime';
import type { CallerContext } from '../domain/context';
import { NotFoundError } from '../domain/errors';
import { isUuid } from '../db/scoped';

/**
 * The context in which an operator acts on one API key: the key's own tenant, owner and mode. The terminal
 * has the database's authority, so the key is located first and the command then runs inside its scope.
 */
export async function contextForApiKey(rt: Runtime, id: string): Promise<CallerContext> {
  const key = isUuid(id) ? await rt.db.models.ApiKey.findOne({ where: { id, deletedAt: null } }) : null;
  if (!key) throw new NotFoundError('API key', id);
  return operatorContext(rt, { level: 'tenant', tenantId: key.get('tenantId') as string, livemode: key.get('livemode') as boolean });
}

export function platformContext(rt: Runtime): CallerContext {
  return operatorContext(rt, { level: 'platform', tenantId: null, livemode: true });
}

/** A tenant's operator when a tenant is named (e.g. by --tenant), else the platform, in the given mode. */
export function tenantOrPlatformContext(rt: Runtime, tenantId: string | undefined, livemode: boolean): CallerContext {
  return tenantId ? tenantContext(rt, tenantId, livemode) : operatorContext(rt, { level: 'platform', tenantId: null, livemode });
}

export function tenantContext(rt: Runtime, tenantId: string, livemode: boolean): CallerContext {
  return operatorContext(rt, { level: 'tenant', tenantId, livemode });
}

/** Acting as one merchant of the tenant; 404 when the merchant is not the tenant's. */
export async function merchantContext(rt: Runtime, tenantId: string, merchantId: string, livemode: boolean): Promise<CallerContext> {
  const merchant = isUuid(merchantId) && isUuid(tenantId) ? await rt.db.models.Merchant.findOne({ where: { id: merchantId, tenantId, deletedAt: null } }) : null;
  if (!merchant) throw new NotFoundError('merchant', merchantId);
  return operatorContext(rt, { level: 'merchant', tenantId, merchantId, livemode });
}
