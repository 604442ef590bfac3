import fs from 'node:fs';
import { Flags } from '@oclif/core';
import { ValidationError } from '../domain/errors';
import { renderRecord, renderTable, type TableOptions, statusColour } from './output';
import type { MpiAccount, Terminal } from '../services/processing/terminals/record';
import type { TerminalRestriction } from '../services/processing/terminals/restrictions';
import type { CredentialSchema, ProviderIntegration } from '../services/processing/providers';
import { inquirer } from './inquirer';

// The terminals and providers commands' pieces. The terminal acts with the platform's authority (as `tenants` and
// `channels` do).

export const credentialFlags = {
  // not oclif's `exclusive`: its message repeats the flags' values, and these are secrets
  'credentials-file': Flags.string({ description: 'JSON file of the credentials (an object of strings); not with --credential' }),
  credential: Flags.string({ description: 'A credential as KEY=VALUE (repeatable); not with --credentials-file', multiple: true }),
};

/** The credentials from --credentials-file or --credential KEY=VALUE. Error messages never echo a value. */
export function credentialsFrom(flags: { 'credentials-file'?: string; credential?: string[] }): Record<string, string> {
  const given = credentialsGiven(flags);
  if (given) return given;
  throw missingCredentials();
}

function missingCredentials(): ValidationError {
  return new ValidationError(
    'Missing credentials.',
    [{ path: '--credentials-file', message: 'or --credential KEY=VALUE is required' }],
    'MISSING_FLAG',
    {
      hint: "Pass --credentials-file creds.json or --credential KEY=VALUE for each field of the provider's credentialSchema (payplane providers get ID).",
    },
  );
}

/**
 * The credentials of a terminal being created: those given, and on a terminal each field of the provider's
 * credentialSchema not given, asked for (a field marked secret without echo; an optional one may be left empty). In a
 * script nothing is asked: no credentials at all is MISSING_FLAG, a missing field is named by the service's check.
 */
export async function askMissingCredentials(
  schema: CredentialSchema,
  given: Record<string, string> | undefined,
  options: { interactive: boolean },
): Promise<Record<string, string>> {
  if (!options.interactive) {
    if (!given) throw missingCredentials();
    return given;
  }
  const out: Record<string, string> = { ...given };
  const { input, password } = await inquirer();
  for (const [key, property] of Object.entries(schema.properties)) {
    if (out[key] !== undefined) continue;
    const required = schema.required.includes(key);
    const message = `${property.title ?? key}${required ? '' : ' (optional: Enter to skip)'}`;
    const answer = property.secret
      ? await password({ message, validate: (v: string) => !required || v.length > 0 || 'is required' })
      : await input({ message, required });
    if (answer !== '') out[key] = answer;
  }
  return out;
}

/** The credentials given by --credentials-file or --credential KEY=VALUE, or undefined when neither is. */
export function credentialsGiven(flags: { 'credentials-file'?: string; credential?: string[] }): Record<string, string> | undefined {
  if (flags['credentials-file'] && flags.credential?.length) {
    throw ValidationError.field('--credential', 'give either --credentials-file or --credential, not both');
  }
  if (flags['credentials-file']) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(fs.readFileSync(flags['credentials-file'], 'utf8'));
    } catch {
      throw ValidationError.field('--credentials-file', 'must be a readable JSON file');
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
      throw ValidationError.field('--credentials-file', 'must hold a JSON object of strings');
    for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
      if (typeof value !== 'string') throw ValidationError.field(`--credentials-file.${key}`, 'must be a string');
    }
    return parsed as Record<string, string>;
  }
  if (flags.credential?.length) {
    const out: Record<string, string> = {};
    flags.credential.forEach((entry, i) => {
      const at = entry.indexOf('=');
      if (at <= 0) throw ValidationError.field(`--credential[${i}]`, 'must look like KEY=VALUE');
      out[entry.slice(0, at)] = entry.slice(at + 1);
    });
    return out;
  }
  return undefined;
}

export function renderTerminal(t: Terminal): string {
  return renderRecord({
    id: t.id,
    tenant: t.tenantId,
    provider: t.providerIntegrationId,
    name: t.name,
    direction: t.direction,
    status: t.status,
    livemode: t.livemode,
    currencies: t.supportedCurrencies,
    brands: t.supportedBrands,
    methods: t.supportedPaymentMethodTypes,
    mcc: t.mcc,
    descriptor: t.descriptor,
    credentialBinding: t.credentialBindingId,
    '3ds': t.threeDsConfig.enabled ? `enabled (${t.threeDsConfig.executionModel})` : 'disabled',
    notificationUrl: t.notificationUrl,
  });
}

export function renderTerminals(rows: Terminal[], options: TableOptions = {}): string {
  return renderTable(
    rows,
    [
      { header: 'ID', get: (t) => t.id },
      { header: 'Tenant', get: (t) => t.tenantId },
      { header: 'Name', get: (t) => t.name },
      { header: 'Direction', get: (t) => t.direction },
      { header: 'Currencies', get: (t) => t.supportedCurrencies },
      { header: 'Status', get: (t) => statusColour(t.status) },
    ],
    options,
  );
}

export function renderMpiAccounts(rows: MpiAccount[], options: TableOptions = {}): string {
  return renderTable(
    rows,
    [
      { header: 'Brand', get: (a) => a.brand },
      { header: 'Enabled', get: (a) => String(a.enabled) },
      { header: 'Merchant', get: (a) => [a.merchantName, a.merchantId].filter(Boolean).join(' ') },
      { header: 'Country', get: (a) => a.merchantCountry ?? '' },
      { header: 'BIN', get: (a) => a.acquirerBin ?? '' },
      { header: 'MCC', get: (a) => a.mcc ?? '' },
      { header: '3DS version', get: (a) => a.preferredVersion ?? '' },
    ],
    options,
  );
}

export function renderRestrictions(rows: TerminalRestriction[], options: TableOptions = {}): string {
  return renderTable(
    rows,
    [
      { header: 'ID', get: (r) => r.id },
      { header: 'Action', get: (r) => r.action },
      { header: 'Method', get: (r) => r.paymentMethod ?? 'any' },
      { header: 'Brand', get: (r) => r.brand ?? 'any' },
      { header: 'Transaction', get: (r) => r.transactionType },
      { header: 'Status', get: (r) => statusColour(r.status) },
    ],
    options,
  );
}

export function renderProvider(p: ProviderIntegration): string {
  return renderRecord({
    id: p.id,
    code: p.code,
    name: p.name,
    category: p.category,
    status: p.status,
    testMode: p.testModeAvailable,
    connectorBaseUrl: p.connectorBaseUrl,
    cutoffTimeUtc: p.cutoffTimeUtc,
    methods: p.supportedPaymentMethods.map(
      (m) =>
        `${m.method}${m.supported ? '' : ' (off)'}: ${m.operations
          .filter((o) => o.supported)
          .map((o) => o.operation)
          .join(' ')}`,
    ),
    brands: [...new Set(p.supportedPaymentMethods.flatMap((m) => m.brands))],
    currencies: [...new Set(p.supportedPaymentMethods.flatMap((m) => m.currencies))],
    features: p.supportedFeatures.filter((f) => f.supported).map((f) => f.feature),
    threeDSVersions: p.supportedThreeDSVersions,
    credentials: Object.keys(p.credentialSchema.properties),
    adjusted: p.capabilityOverlay ? 'yes (capabilityOverlay)' : 'no',
  });
}

/**
 * What a provider's connector does (implemented, and not switched off): its operations across payment methods, then
 * its features, e.g. `authorize capture void refund; partial_capture partial_refund three_ds`.
 */
export function implementedSummary(p: ProviderIntegration): string {
  const operations = new Set(
    p.supportedPaymentMethods
      .filter((m) => m.supported && m.implemented)
      .flatMap((m) => m.operations.filter((o) => o.supported && o.implemented).map((o) => o.operation)),
  );
  const features = p.supportedFeatures.filter((f) => f.supported && f.implemented).map((f) => f.feature);
  return [[...operations].join(' '), features.join(' ')].filter(Boolean).join('; ');
}

export const mpiFlags = {
  enabled: Flags.boolean({ description: 'Account enabled (--no-enabled to disable)', allowNo: true }),
  'merchant-name': Flags.string({ description: 'Merchant name at the MPI' }),
  'mpi-merchant-id': Flags.string({ description: 'Merchant id at the MPI' }),
  'merchant-country': Flags.string({ description: 'Merchant country (ISO 3166-1 alpha-2)' }),
  'acquirer-bin': Flags.string({ description: 'Acquirer BIN' }),
  mcc: Flags.string({ description: "MCC (default: the terminal's)" }),
  'preferred-version': Flags.string({ description: "3DS version (default: the provider's first)" }),
};

export const mpiFlagNames = {
  merchantName: 'merchant-name',
  merchantId: 'mpi-merchant-id',
  merchantCountry: 'merchant-country',
  acquirerBin: 'acquirer-bin',
  preferredVersion: 'preferred-version',
};

export function mpiInput(flags: {
  enabled?: boolean;
  'merchant-name'?: string;
  'mpi-merchant-id'?: string;
  'merchant-country'?: string;
  'acquirer-bin'?: string;
  mcc?: string;
  'preferred-version'?: string;
}) {
  return {
    enabled: flags.enabled,
    merchantName: flags['merchant-name'],
    merchantId: flags['mpi-merchant-id'],
    merchantCountry: flags['merchant-country'],
    acquirerBin: flags['acquirer-bin'],
    mcc: flags.mcc,
    preferredVersion: flags['preferred-version'],
  };
}

export const restrictionFlags = {
  'payment-method': Flags.string({ description: 'Only this payment method (one of the terminal\'s); "null" for any' }),
  brand: Flags.string({ description: 'Only this brand (one of the terminal\'s); "null" for any' }),
  'transaction-type': Flags.string({ description: 'payment (default), refund or payout', options: ['payment', 'refund', 'payout'] }),
};
