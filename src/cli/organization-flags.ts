import { Flags } from '@oclif/core';

/** Flags of companies create and update; `companyInput` turns them into the request body's fields. */
export const companyFieldFlags = {
  name: Flags.string({ description: 'Trading name' }),
  country: Flags.string({ description: 'ISO 3166-1 alpha-2 country, e.g. DE' }),
  'legal-name': Flags.string({ description: 'Registered legal name (default: the name)' }),
  'legal-address': Flags.string({ description: 'Registered address' }),
  'registration-number': Flags.string({ description: 'Company register number' }),
  'business-type': Flags.string({ description: 'Legal form or business type' }),
  'contact-person': Flags.string({ description: 'Contact person' }),
  'contact-email': Flags.string({ description: 'Contact email' }),
  'contact-phone': Flags.string({ description: 'Contact phone, e.g. +49 30 1234567' }),
  website: Flags.string({ description: 'Website URL' }),
};

type CompanyFlagValues = { [K in keyof typeof companyFieldFlags]?: string };

export function companyInput(flags: CompanyFlagValues): Record<string, unknown> {
  return {
    name: flags.name,
    country: flags.country,
    legalName: flags['legal-name'],
    legalAddress: flags['legal-address'],
    registrationNumber: flags['registration-number'],
    businessType: flags['business-type'],
    contactPerson: flags['contact-person'],
    contactEmail: flags['contact-email'],
    contactPhone: flags['contact-phone'],
    website: flags.website,
  };
}

/** Flags of merchants create and update. */
export const merchantFieldFlags = {
  name: Flags.string({ description: 'Merchant name' }),
  'default-currency': Flags.string({ description: 'Default ISO 4217 currency, e.g. EUR' }),
  mcc: Flags.string({ description: 'Merchant category code (4 digits)' }),
  website: Flags.string({ description: 'Website URL' }),
};

type MerchantFlagValues = { [K in keyof typeof merchantFieldFlags]?: string };

export function merchantInput(flags: MerchantFlagValues): Record<string, unknown> {
  return { name: flags.name, defaultCurrency: flags['default-currency'], mcc: flags.mcc, website: flags.website };
}
