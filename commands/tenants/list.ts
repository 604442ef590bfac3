import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags, tableFlags } from '../../src/cli/flags';
import { renderTable, statusColour, pageFooter, logBesideTable } from '../../src/cli/output';
import type { Page } from '../../src/db/scoped';
import type { Tenant, TenantStatus } from '../../src/services/tenants/tenants';
import { listTenants } from '../../src/services/tenants/tenants';
import { atPlatform } from '../../src/cli/context';

export default class TenantsList extends BaseCommand<typeof TenantsList> {
  static override summary = 'List tenants.';
  static override examples = [
    '<%= config.bin %> tenants list',
    '<%= config.bin %> tenants list --status suspended --json',
    '<%= config.bin %> tenants list --all --json',
  ];
  static override scopeOf = atPlatform();
  static override flags = {
    status: Flags.string({ description: 'Only tenants in this status', options: ['active', 'suspended', 'disabled'] }),
    limit: sharedFlags.limit,
    cursor: sharedFlags.cursor,
    all: sharedFlags.all,
    ...tableFlags,
  };

  async run(): Promise<Page<Tenant>> {
    const ctx = await this.scope();
    const page = await this.listAll((p) =>
      listTenants(ctx, { status: this.flags.status as TenantStatus | undefined }, { ...p, sortOrder: 'desc' }),
    );
    this.log(
      renderTable(
        page.data,
        [
          { header: 'ID', get: (t) => t.id },
          { header: 'Name', get: (t) => t.name },
          { header: 'Status', get: (t) => statusColour(t.status) },
          { header: 'Mode', get: (t) => (t.livemode ? 'live' : 'sandbox') },
          { header: 'Currency', get: (t) => t.defaultCurrency ?? '' },
          { header: 'Created', get: (t) => t.createdAt },
        ],
        this.flags,
      ),
    );
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
