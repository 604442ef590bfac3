import { Flags } from '@oclif/core';
import { ValidationError } from '../domain/errors';
import { renderRecord } from './output';
import type { IntegrationProfile } from '../services/profiles';
import { nullable } from './flags';

// Shared pieces of the `integration-profiles` commands. The terminal acts with the platform's authority (as
// `tenants` and `partners` do): a profile belongs to its merchant's tenant.

export const PROFILE_MODES = ['checkout', 'api', 'hosted_page'];
export const PROFILE_STATUSES = ['enabled', 'disabled'];

/** The fields create and update share. */
export const profileFieldFlags = {
  'session-lifetime': Flags.integer({ description: 'Seconds a checkout session may stay open (60 to 86400)' }),
  status: Flags.string({ description: 'enabled or disabled', options: PROFILE_STATUSES }),
  'return-url': Flags.string({ description: 'https URL the customer returns to' }),
  'max-decline-attempts': Flags.integer({ description: 'Declines tolerated per payment (1 to 10; default 3)' }),
  cascading: Flags.boolean({ description: 'Cascade a declined payment to the next terminal (--no-cascading turns it off)', allowNo: true }),
  'cascade-policy': Flags.string({ description: 'Cascade policy as a JSON object, e.g. \'{"onCodes":["05"]}\'' }),
  'default-locale': Flags.string({ description: 'BCP 47 language tag, e.g. de-DE' }),
};

/** Flags whose name is not the kebab-case of the field. */
export const profileFlagNames = { merchantId: 'merchant', cascadingEnabled: 'cascading' };

export interface ProfileFlagValues {
  'session-lifetime'?: number;
  status?: string;
  'return-url'?: string;
  'max-decline-attempts'?: number;
  cascading?: boolean;
  'cascade-policy'?: string;
  'default-locale'?: string;
}

function parsePolicy(value: string | undefined): unknown {
  if (value === undefined) return undefined;
  try {
    return JSON.parse(value);
  } catch {
    throw ValidationError.field('--cascade-policy', 'must be a JSON object');
  }
}

/** The body fields from the flags, not yet validated (validateWith does that with the API's schema). */
export function profileFields(flags: ProfileFlagValues): Record<string, unknown> {
  return {
    sessionLifetime: flags['session-lifetime'],
    status: flags.status,
    returnUrl: nullable(flags['return-url']),
    maxDeclineAttempts: flags['max-decline-attempts'],
    cascadingEnabled: flags.cascading,
    cascadePolicy: parsePolicy(flags['cascade-policy']),
    defaultLocale: nullable(flags['default-locale']),
  };
}

export function renderProfile(p: IntegrationProfile): string {
  return renderRecord({
    id: p.id,
    tenant: p.tenantId,
    merchant: p.merchantId,
    mode: p.mode,
    status: p.status,
    sessionLifetime: `${p.sessionLifetime} s`,
    returnUrl: p.returnUrl,
    maxDeclineAttempts: p.maxDeclineAttempts,
    cascading: p.cascadingEnabled,
    cascadePolicy: p.cascadePolicy,
    defaultLocale: p.defaultLocale,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
  });
}
