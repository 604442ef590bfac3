import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { pageFooter, logBesideTable } from '../../src/cli/output';
import { sharedFlags, tableFlags } from '../../src/cli/flags';
import { validateWith } from '../../src/cli/validate';
import { ListCompaniesQuery } from '../../src/api/organization/schemas';
import type { Page } from '../../src/db/scoped';
import type { Company } from '../../src/services/organization/companies';
import { listCompanies } from '../../src/services/organization/companies';
import { asTenantOrPlatform, withScope } from '../../src/cli/context';
import { companyTable } from '../../src/cli/organization';

export default class CompaniesList extends BaseCommand<typeof CompaniesList> {
  static override summary = 'List companies (of every tenant, or of --tenant), one mode at a time.';
  static override examples = [
    '<%= config.bin %> companies list --tenant 6f1c…',
    '<%= config.bin %> companies list --search acme --country DE --json',
    '<%= config.bin %> companies list --tenant 6f1c… --all --json',
  ];
  static override flags = {
    tenant: withScope(Flags.string({ description: "Only this tenant's companies" }), asTenantOrPlatform),
    live: sharedFlags.live,
    search: Flags.string({ description: 'Case-insensitive part of the name or legal name (1-256 characters)' }),
    country: Flags.string({ description: 'Only companies of this country' }),
    status: Flags.string({ description: 'Only companies in this status', options: ['active', 'disabled'] }),
    limit: sharedFlags.limit,
    cursor: sharedFlags.cursor,
    all: sharedFlags.all,
    ...tableFlags,
  };

  async run(): Promise<Page<Company>> {
    const { search, country, status } = validateWith(ListCompaniesQuery.pick({ search: true, country: true, status: true }), {
      search: this.flags.search,
      country: this.flags.country,
      status: this.flags.status,
    });
    const ctx = await this.scope();
    const page = await this.listAll((p) => listCompanies(ctx, { search, country, status }, { ...p, sortOrder: 'desc' }));
    this.log(companyTable(page, this.flags));
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
