import { Flags } from '@oclif/core';
import { ValidationError } from '../domain/errors';
import { statusMoveCommand } from './status-move';
import type { AccountMove } from '../services/status';
import { changeTenantStatus, getTenant } from '../services/tenants/tenants';

/** Flags of tenants create and update; `tenantInput` turns them into the request body's fields. */
export const tenantFieldFlags = {
  name: Flags.string({ description: 'Display name' }),
  'default-currency': Flags.string({ description: 'Default ISO 4217 currency, e.g. EUR' }),
  'default-locale': Flags.string({ description: 'Default locale, e.g. en-GB' }),
  'allowed-currency': Flags.string({ description: 'Allowed currency (repeatable; replaces the list)', multiple: true }),
  'allowed-country': Flags.string({ description: 'Allowed ISO 3166 country (repeatable; replaces the list)', multiple: true }),
  feature: Flags.string({ description: 'Feature flag as name=true|false (repeatable)', multiple: true }),
  'rate-limit': Flags.integer({ description: 'doorRateLimitPerMinute' }),
  'contact-email': Flags.string({ description: 'Contact email' }),
  'support-url': Flags.string({ description: 'Support URL' }),
  'logo-url': Flags.string({ description: 'Logo URL' }),
  'terms-url': Flags.string({ description: 'Terms URL' }),
  'privacy-policy-url': Flags.string({ description: 'Privacy policy URL' }),
  'withdrawal-cooling-hours': Flags.integer({
    description: "Hours a new withdrawal method (or new details) cools before use (default: the platform's, 24)",
    min: 0,
  }),
  'withdrawal-maker-checker': Flags.boolean({
    description: 'Four eyes on withdrawals: creator cannot approve, approver cannot execute (--no-withdrawal-maker-checker turns it off)',
    allowNo: true,
  }),
};

export const tenantFlagNames = {
  allowedCurrencies: 'allowed-currency',
  allowedCountries: 'allowed-country',
  featureFlags: 'feature',
  doorRateLimitPerMinute: 'rate-limit',
  withdrawalCoolingPeriodHours: 'withdrawal-cooling-hours',
  withdrawalMakerChecker: 'withdrawal-maker-checker',
};

type TenantFlagValues = {
  name?: string;
  'default-currency'?: string;
  'default-locale'?: string;
  'allowed-currency'?: string[];
  'allowed-country'?: string[];
  feature?: string[];
  'rate-limit'?: number;
  'contact-email'?: string;
  'support-url'?: string;
  'logo-url'?: string;
  'terms-url'?: string;
  'privacy-policy-url'?: string;
  'withdrawal-cooling-hours'?: number;
  'withdrawal-maker-checker'?: boolean;
};

export function tenantInput(flags: TenantFlagValues): Record<string, unknown> {
  let featureFlags: Record<string, boolean> | undefined;
  if (flags.feature) {
    featureFlags = {};
    for (const entry of flags.feature) {
      const m = /^([^=]+)=(true|false)$/.exec(entry);
      if (!m) throw ValidationError.field('--feature', `"${entry}" must look like name=true or name=false`);
      featureFlags[m[1]] = m[2] === 'true';
    }
  }
  return {
    name: flags.name,
    defaultCurrency: flags['default-currency'],
    defaultLocale: flags['default-locale'],
    allowedCurrencies: flags['allowed-currency'],
    allowedCountries: flags['allowed-country'],
    featureFlags,
    doorRateLimitPerMinute: flags['rate-limit'],
    contactEmail: flags['contact-email'],
    supportUrl: flags['support-url'],
    logoUrl: flags['logo-url'],
    termsUrl: flags['terms-url'],
    privacyPolicyUrl: flags['privacy-policy-url'],
    withdrawalCoolingPeriodHours: flags['withdrawal-cooling-hours'],
    withdrawalMakerChecker: flags['withdrawal-maker-checker'],
  };
}

const SUMMARY: Record<AccountMove, string> = {
  activate: 'Activate a suspended or disabled tenant.',
  suspend: 'Suspend an active tenant: its keys and users stop working until it is activated.',
  disable: 'Disable a tenant: its keys and users stop working.',
};

/** The command class of one tenant status move (activate, suspend, disable). */
export function tenantStatusCommand(move: AccountMove) {
  return statusMoveCommand({
    topic: 'tenants',
    noun: 'tenant',
    kind: 'tenant',
    placedBy: 'platform',
    move,
    summary: SUMMARY[move],
    get: getTenant,
    apply: (ctx, id) => changeTenantStatus(ctx, id, move),
  });
}
