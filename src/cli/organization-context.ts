import type { Runtime } from '../runtime';
import { operatorContext } from '../runtime';
import type { CallerContext } from '../domain/context';
import { NotFoundError } from '../domain/errors';
import { isUuid } from '../db/scoped';
import { tenantOrPlatformContext } from './scope';

/**
 * Contexts of the organization commands. The terminal acts with the database's authority: on one company or
 * merchant it acts as an operator of the record's own tenant (so tenant-level rules, like asking for live
 * approval, apply as they do over the API); lists and creates act for the platform, or for --tenant.
 */
export function listContext(rt: Runtime, tenantId: string | undefined, livemode: boolean): CallerContext {
  return tenantOrPlatformContext(rt, tenantId, livemode);
}

async function tenantOf(rt: Runtime, model: 'Company' | 'Merchant', id: string): Promise<string> {
  const table = model === 'Company' ? rt.db.models.Company : rt.db.models.Merchant;
  const row = isUuid(id) ? await (table as typeof rt.db.models.Merchant).findOne({ where: { id, deletedAt: null }, attributes: ['tenantId'] }) : null;
  if (!row) throw new NotFoundError(model === 'Company' ? 'company' : 'merchant', id);
  return row.get('tenantId') as string;
}

export async function contextForCompany(rt: Runtime, id: string, livemode = false): Promise<CallerContext> {
  return operatorContext(rt, { level: 'tenant', tenantId: await tenantOf(rt, 'Company', id), livemode });
}

export async function contextForMerchant(rt: Runtime, id: string, livemode = false): Promise<CallerContext> {
  return operatorContext(rt, { level: 'tenant', tenantId: await tenantOf(rt, 'Merchant', id), livemode });
}
