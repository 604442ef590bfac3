import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { pageFooter, logBesideTable } from '../../src/cli/output';
import { sharedFlags, tableFlags } from '../../src/cli/flags';
import type { Page } from '../../src/db/scoped';
import type { Merchant, MerchantStatus } from '../../src/services/organization/merchants';
import { listCompanyMerchants } from '../../src/services/organization/merchants';
import { recordArg, recordOwnerFlags } from '../../src/cli/context';
import { merchantTable } from '../../src/cli/organization';

export default class CompaniesMerchants extends BaseCommand<typeof CompaniesMerchants> {
  static override summary = 'List the merchants of a company.';
  static override examples = [
    '<%= config.bin %> companies merchants 0b9e… --json',
    '<%= config.bin %> companies merchants 0b9e… --json --all',
  ];
  static override args = { id: recordArg('company', { description: 'Company id', required: true }) };
  static override flags = {
    ...recordOwnerFlags,
    status: Flags.string({ description: 'Only merchants in this status', options: ['active', 'suspended', 'disabled'] }),
    limit: sharedFlags.limit,
    cursor: sharedFlags.cursor,
    all: sharedFlags.all,
    ...tableFlags,
  };

  async run(): Promise<Page<Merchant>> {
    const ctx = await this.scope();
    const page = await this.listAll((p) =>
      listCompanyMerchants(ctx, this.args.id, { status: this.flags.status as MerchantStatus | undefined }, { ...p, sortOrder: 'desc' }),
    );
    this.log(merchantTable(page, this.flags));
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
