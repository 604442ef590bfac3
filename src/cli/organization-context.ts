import type { Runtime } from '../runtime';
import { operatorContext } from '../runtime';
import type { CallerContext } from '../domain/context';
import { NotFoundError } from '../domain/errors';
import { isUuid } from '../db/scoped';
import { tenantOrPlatformContext } from './scope';

/**
 * Contexts of the organization commands. The terminal acts with the database's authority: on one company or
 * merchant it acts as an operator of the record's own tenant (so tenant-level rules, like asking for live
 * approval, apply as they do over the API); lists and creates act for the platform, or for --tenant. A caller works
 * in one mode: on a company, the company's own mode (a company belongs to the mode it was created in); lists,
 * creates and merchants (which span both modes) in sandbox mode unless --live.
 */
export function listContext(rt: Runtime, tenantId: string | undefined, livemode: boolean): CallerContext {
  return tenantOrPlatformContext(rt, tenantId, livemode);
}

async function ownerOf(rt: Runtime, model: 'Company' | 'Merchant', id: string): Promise<{ tenantId: string; livemode?: boolean }> {
  const table = model === 'Company' ? rt.db.models.Company : rt.db.models.Merchant;
  const attributes = model === 'Company' ? ['tenantId', 'livemode'] : ['tenantId'];
  const row = isUuid(id) ? await (table as typeof rt.db.models.Merchant).findOne({ where: { id, deletedAt: null }, attributes }) : null;
  if (!row) throw new NotFoundError(model === 'Company' ? 'company' : 'merchant', id);
  return row.get({ plain: true }) as { tenantId: string; livemode?: boolean };
}

/** An operator of the company's tenant, in the company's mode. */
export async function contextForCompany(rt: Runtime, id: string): Promise<CallerContext> {
  const { tenantId, livemode } = await ownerOf(rt, 'Company', id);
  return operatorContext(rt, { level: 'tenant', tenantId, livemode: livemode === true });
}

export async function contextForMerchant(rt: Runtime, id: string, livemode = false): Promise<CallerContext> {
  return operatorContext(rt, { level: 'tenant', tenantId: (await ownerOf(rt, 'Merchant', id)).tenantId, livemode });
}
