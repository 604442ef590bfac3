import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { listFlags, sharedFlags, tableFlags } from '../../src/cli/flags';
import { pageFooter, renderTable, statusColour, logBesideTable } from '../../src/cli/output';
import type { Page } from '../../src/db/scoped';
import type { Partner, PartnerStatus } from '../../src/services/partners';
import { listPartners } from '../../src/services/partners';
import { atPlatform } from '../../src/cli/context';
import { validateInput } from '../../src/cli/validate';
import { ListPartnersQuery } from '../../src/api/partners/schemas';

export default class PartnersList extends BaseCommand<typeof PartnersList> {
  static override summary = 'List partners (resellers and referrers), of one tenant or of all.';
  static override examples = [
    '<%= config.bin %> partners list --tenant 6f1c…',
    '<%= config.bin %> partners list --status suspended --json',
    '<%= config.bin %> partners list --tenant 6f1c… --all --json',
  ];
  static override scopeOf = atPlatform();
  static override flags = {
    ...listFlags,
    all: sharedFlags.all,
    status: Flags.string({ description: 'Only partners in this status', options: ['active', 'suspended', 'disabled'] }),
    ...tableFlags,
  };

  async run(): Promise<Page<Partner>> {
    const ctx = await this.scope();
    const filters = await validateInput(
      ctx,
      ListPartnersQuery.pick({ tenantId: true }),
      { tenantId: this.flags.tenant },
      { tenantId: 'tenant' },
    );
    const page = await this.listAll((p) =>
      listPartners(
        ctx,
        { tenantId: filters.tenantId, status: this.flags.status as PartnerStatus | undefined },
        { ...p, sortOrder: 'desc' },
      ),
    );
    this.log(
      renderTable(
        page.data,
        [
          { header: 'ID', get: (p) => p.id },
          { header: 'Tenant', get: (p) => p.tenantId },
          { header: 'Name', get: (p) => p.name },
          { header: 'Status', get: (p) => statusColour(p.status) },
          { header: 'Contact', get: (p) => p.contactEmail ?? '' },
          { header: 'Created', get: (p) => p.createdAt },
        ],
        this.flags,
      ),
    );
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
