import { Flags } from '@oclif/core';
import { BaseCommand } from './base-command';
import { recordArg, recordOwnerFlags } from './context';
import { renderRecord, renderTable, type TableOptions, statusColour } from './output';
import { statusMoveCommand } from './status-move';
import type { Page } from '../db/scoped';
import type { Company } from '../services/organization/companies';
import { changeLiveStatus, changeMerchantStatus, getMerchant, type LiveMove, type Merchant } from '../services/organization/merchants';
import type { AccountMove } from '../services/status';

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

/** A page of companies as a table (its footer is the caller's: pageFooter). */
export function companyTable(page: Page<Company>, options: TableOptions = {}): string {
  return renderTable(
    page.data,
    [
      { header: 'ID', get: (c) => c.id },
      { header: 'Name', get: (c) => c.name },
      { header: 'Country', get: (c) => c.country },
      { header: 'Status', get: (c) => statusColour(c.status) },
      { header: 'Mode', get: (c) => (c.livemode ? 'live' : 'sandbox') },
      { header: 'Tenant', get: (c) => c.tenantId },
    ],
    options,
  );
}

/** A page of merchants as a table (its footer is the caller's: pageFooter). */
export function merchantTable(page: Page<Merchant>, options: TableOptions = {}): string {
  return renderTable(
    page.data,
    [
      { header: 'ID', get: (m) => m.id },
      { header: 'Name', get: (m) => m.name },
      { header: 'Status', get: (m) => statusColour(m.status) },
      { header: 'Live', get: (m) => m.liveStatus },
      { header: 'Company', get: (m) => m.companyId },
      { header: 'Currency', get: (m) => m.defaultCurrency ?? '' },
    ],
    options,
  );
}

export function merchantRecord(m: Merchant): string {
  return renderRecord({ ...m, threeDsConfig: m.threeDsConfig });
}

export function companyRecord(c: Company): string {
  return renderRecord({ ...c });
}

const STATUS_SUMMARY: Record<AccountMove, string> = {
  activate: 'Activate a suspended or disabled merchant: its keys and users work again.',
  suspend: 'Suspend an active merchant: its keys and users are refused until it is activated.',
  disable: 'Disable a merchant: its keys and users are refused.',
};

/** The command class of one merchant status move (activate, suspend, disable). */
export function merchantStatusCommand(move: AccountMove) {
  return statusMoveCommand({
    topic: 'merchants',
    noun: 'merchant',
    kind: 'merchant',
    placedBy: 'record',
    move,
    summary: STATUS_SUMMARY[move],
    get: getMerchant,
    apply: (ctx, id) => changeMerchantStatus(ctx, id, move),
  });
}

const LIVE_SUMMARY: Record<LiveMove, string> = {
  request: 'Ask for live approval of a sandbox merchant (liveStatus to pending_approval).',
  approve: 'Approve a merchant for live (needs an approved KYB submission of its company).',
  reject: 'Reject a pending live approval: the merchant goes back to sandbox.',
};

/** The command class of one live-approval move. */
export function merchantLiveCommand(move: LiveMove) {
  const name = { request: 'request-live', approve: 'approve-live', reject: 'reject-live' }[move];
  return class MerchantLive extends BaseCommand<typeof MerchantLive> {
    static override summary = LIVE_SUMMARY[move];
    static override examples = [`<%= config.bin %> merchants ${name} 0b9e…`];
    static override args = { id: recordArg('merchant', { description: 'Merchant id', required: true }) };
    static override flags = { ...recordOwnerFlags };

    async run(): Promise<Merchant> {
      const ctx = await this.scope();
      const merchant = await changeLiveStatus(ctx, this.args.id, move);
      this.log(`Merchant ${merchant.name} (${merchant.id}): liveStatus ${merchant.liveStatus}.`);
      return merchant;
    }
  };
}
