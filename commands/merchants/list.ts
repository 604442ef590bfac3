import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { pageFooter, logBesideTable } from '../../src/cli/output';
import { sharedFlags, tableFlags } from '../../src/cli/flags';
import type { Page } from '../../src/db/scoped';
import type { LiveStatus, Merchant, MerchantStatus } from '../../src/services/organization/merchants';
import { listMerchants } from '../../src/services/organization/merchants';
import { asTenantOrPlatform, withScope } from '../../src/cli/context';
import { merchantTable } from '../../src/cli/organization';
import { validateInput } from '../../src/cli/validate';
import { ListMerchantsQuery } from '../../src/api/organization/schemas';

export default class MerchantsList extends BaseCommand<typeof MerchantsList> {
  static override summary = 'List merchants (of every tenant, or of --tenant).';
  static override examples = [
    '<%= config.bin %> merchants list --tenant 6f1c…',
    '<%= config.bin %> merchants list --live-status pending_approval --json',
    '<%= config.bin %> merchants list --tenant 6f1c… --all --json',
  ];
  static override flags = {
    tenant: withScope(Flags.string({ description: "Only this tenant's merchants" }), asTenantOrPlatform),
    company: Flags.string({ description: "Only this company's merchants" }),
    status: Flags.string({ description: 'Only merchants in this status', options: ['active', 'suspended', 'disabled'] }),
    'live-status': Flags.string({
      description: 'Only merchants in this live status',
      options: ['sandbox', 'pending_approval', 'approved'],
    }),
    limit: sharedFlags.limit,
    cursor: sharedFlags.cursor,
    all: sharedFlags.all,
    ...tableFlags,
  };

  async run(): Promise<Page<Merchant>> {
    const ctx = await this.scope();
    const filters = await validateInput(
      ctx,
      ListMerchantsQuery.pick({ companyId: true }),
      { companyId: this.flags.company },
      { companyId: 'company' },
    );
    const page = await this.listAll((p) =>
      listMerchants(
        ctx,
        {
          companyId: filters.companyId,
          status: this.flags.status as MerchantStatus | undefined,
          liveStatus: this.flags['live-status'] as LiveStatus | undefined,
        },
        { ...p, sortOrder: 'desc' },
      ),
    );
    this.log(merchantTable(page, this.flags));
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
