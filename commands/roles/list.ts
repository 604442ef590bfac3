import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags, tableFlags } from '../../src/cli/flags';
import { renderTable, pageFooter, logBesideTable } from '../../src/cli/output';
import type { Page } from '../../src/db/scoped';
import type { Role } from '../../src/services/access/roles';
import { listRoles } from '../../src/services/access/roles';
import { accessScopeFlags } from '../../src/cli/context';

export default class RolesList extends BaseCommand<typeof RolesList> {
  static override summary = "List roles: a merchant's (--merchant), a tenant's (--tenant, with its merchants') or the platform's.";
  static override examples = [
    '<%= config.bin %> roles list --tenant 6f1c…',
    '<%= config.bin %> roles list --merchant 0b9e… --json',
    '<%= config.bin %> roles list --tenant 6f1c… --all --json',
  ];
  static override flags = {
    ...accessScopeFlags,
    layer: Flags.string({ description: 'Only roles of this layer', options: ['merchant', 'operator', 'platform'] }),
    limit: sharedFlags.limit,
    cursor: sharedFlags.cursor,
    all: sharedFlags.all,
    ...tableFlags,
  };

  async run(): Promise<Page<Role>> {
    const ctx = await this.scope();
    const page = await this.listAll((p) =>
      listRoles(ctx, { layer: this.flags.layer as Role['layer'] | undefined }, { ...p, sortOrder: 'desc' }),
    );
    this.log(
      renderTable(
        page.data,
        [
          { header: 'ID', get: (r) => r.id },
          { header: 'Name', get: (r) => r.name },
          { header: 'Layer', get: (r) => (r.merchantId ? `merchant ${r.merchantId}` : r.layer) },
          { header: 'Permissions', get: (r) => r.permissions.length },
        ],
        this.flags,
      ),
    );
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
