import { Flags } from '@oclif/core';
import type { Runtime } from '../runtime';
import type { CallerContext } from '../domain/context';
import { NotFoundError, ValidationError } from '../domain/errors';
import { isUuid } from '../db/scoped';
import { operatorContext } from '../runtime';

/** Where endpoints are listed or created: a tenant's, one of its merchants', or the platform's own. */
export const endpointScopeFlags = {
  tenant: Flags.string({ description: 'Tenant id (tenant endpoints; with --merchant, that merchant\'s endpoints)', exclusive: ['platform'] }),
  merchant: Flags.string({ description: 'Merchant id: manage this merchant\'s endpoints (needs --tenant)', dependsOn: ['tenant'], exclusive: ['platform'] }),
  platform: Flags.boolean({ description: 'Platform endpoints (every tenant\'s events; no --tenant)', default: false, exclusive: ['tenant', 'merchant'] }),
  live: Flags.boolean({ description: 'Live-mode endpoints (default: sandbox/test mode)', default: false }),
};

export interface EndpointScopeValues {
  tenant?: string;
  merchant?: string;
  platform: boolean;
  live: boolean;
}

export function requireUuid(value: string, path: string): string {
  if (!isUuid(value)) throw ValidationError.field(path, 'must be a UUID');
  return value;
}

/**
 * The context of an operator managing endpoints at one level: --platform, else --tenant (tenant level) and
 * --merchant (merchant level). The tenant and merchant must exist.
 */
export async function endpointScopeContext(rt: Runtime, flags: EndpointScopeValues): Promise<CallerContext> {
  if (flags.platform) return operatorContext(rt, { level: 'platform', tenantId: null, livemode: flags.live });
  if (!flags.tenant) {
    throw new ValidationError('Missing --tenant.', [{ path: '--tenant', message: 'is required (or --platform for platform endpoints)' }], 'MISSING_FLAG', {
      hint: 'Pass --tenant <id> (and --merchant <id> for a merchant\'s endpoints), or --platform.',
    });
  }
  const tenantId = requireUuid(flags.tenant, '--tenant');
  const tenant = await rt.db.models.Tenant.findOne({ where: { id: tenantId, deletedAt: null } });
  if (!tenant) throw new NotFoundError('tenant', tenantId);
  if (!flags.merchant) return operatorContext(rt, { level: 'tenant', tenantId, livemode: flags.live });
  const merchantId = requireUuid(flags.merchant, '--merchant');
  const merchant = await rt.db.models.Merchant.findOne({ where: { id: merchantId, tenantId, deletedAt: null } });
  if (!merchant) throw new NotFoundError('merchant', merchantId);
  return operatorContext(rt, { level: 'merchant', tenantId, merchantId, livemode: flags.live });
}

/**
 * The context in which an operator acts on one endpoint: the endpoint's own level, tenant, merchant and mode
 * (the terminal has the database's authority; the endpoint is located first, as `keys` commands do).
 */
export async function contextForEndpoint(rt: Runtime, id: string): Promise<CallerContext> {
  const row = isUuid(id) ? await rt.db.models.WebhookEndpoint.findOne({ where: { id, deletedAt: null } }) : null;
  if (!row) throw new NotFoundError('webhook endpoint', id);
  return operatorContext(rt, {
    level: row.get('level') as CallerContext['level'],
    tenantId: row.get('tenantId') as string | null,
    merchantId: row.get('merchantId') as string | null,
    livemode: row.get('livemode') as boolean,
  });
}

/** The context in which an operator acts on one delivery record: platform level, in the delivery's mode. */
export async function contextForDelivery(rt: Runtime, id: string): Promise<CallerContext> {
  const row = isUuid(id) ? await rt.db.models.WebhookDelivery.findOne({ where: { id, deletedAt: null } }) : null;
  if (!row) throw new NotFoundError('webhook delivery', id);
  return operatorContext(rt, { level: 'platform', tenantId: null, livemode: row.get('livemode') as boolean });
}

/** --type of replay: an exact event type, a category wildcard (payment.*) or *, matching a known type. */
export function checkTypeFilter(pattern: string, known: string[], matches: (pattern: string, type: string) => boolean, path = '--type'): string {
  if (!/^(\*|[a-z_]+(\.[a-z_]+)*(\.\*)?)$/.test(pattern)) {
    throw ValidationError.field(path, `"${pattern}" is not an event type, a wildcard such as payment.* or *`);
  }
  if (!known.some((type) => matches(pattern, type))) throw ValidationError.field(path, `"${pattern}" matches no event type`);
  return pattern;
}

export const modeName = (livemode: boolean) => (livemode ? 'live' : 'test');
