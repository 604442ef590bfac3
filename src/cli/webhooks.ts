import { Flags } from '@oclif/core';
import { ValidationError } from '../domain/errors';
import { atEndpointLevel, withScope } from './context';

/** Where endpoints are listed or created: a tenant's, one of its merchants', or the platform's own. */
export const endpointScopeFlags = {
  tenant: withScope(
    Flags.string({ description: "Tenant id (tenant endpoints; with --merchant, that merchant's endpoints)", exclusive: ['platform'] }),
    atEndpointLevel,
  ),
  merchant: Flags.string({
    description: "Merchant id: manage this merchant's endpoints (needs --tenant)",
    dependsOn: ['tenant'],
    exclusive: ['platform'],
  }),
  platform: Flags.boolean({
    description: "Platform endpoints (every tenant's events; no --tenant)",
    default: false,
    exclusive: ['tenant', 'merchant'],
  }),
  live: Flags.boolean({ description: 'Live-mode endpoints (default: sandbox/test mode)', default: false }),
};

/** --type of replay: an exact event type, a category wildcard (payment.*) or *, matching a known type. */
export function checkTypeFilter(
  pattern: string,
  known: string[],
  matches: (pattern: string, type: string) => boolean,
  path = '--type',
): string {
  if (!/^(\*|[a-z_]+(\.[a-z_]+)*(\.\*)?)$/.test(pattern)) {
    throw ValidationError.field(path, `"${pattern}" is not an event type, a wildcard such as payment.* or *`);
  }
  if (!known.some((type) => matches(pattern, type))) throw ValidationError.field(path, `"${pattern}" matches no event type`);
  return pattern;
}

export const modeName = (livemode: boolean) => (livemode ? 'live' : 'test');
