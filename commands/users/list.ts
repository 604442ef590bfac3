import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags, tableFlags } from '../../src/cli/flags';
import { renderTable, statusColour, pageFooter, logBesideTable } from '../../src/cli/output';
import { validateInput } from '../../src/cli/validate';
import { ListUsersQuery } from '../../src/api/access/schemas';
import type { Page } from '../../src/db/scoped';
import type { User } from '../../src/services/access/users';
import { listUsers } from '../../src/services/access/users';
import { accessScopeFlags } from '../../src/cli/context';

export default class UsersList extends BaseCommand<typeof UsersList> {
  static override summary = "List users: a merchant's (--merchant), a tenant's (--tenant) or every user (platform).";
  static override examples = [
    '<%= config.bin %> users list --tenant 6f1c…',
    '<%= config.bin %> users list --merchant 0b9e… --status active --json',
    '<%= config.bin %> users list --tenant 6f1c… --all --json',
  ];
  static override flags = {
    ...accessScopeFlags,
    status: Flags.string({ description: 'Only users in this status', options: ['pending_invitation', 'active', 'disabled'] }),
    layer: Flags.string({ description: 'Only users of this layer', options: ['merchant', 'operator', 'platform'] }),
    email: Flags.string({ description: 'Only the user with this email' }),
    role: Flags.string({ description: 'Only users holding this role id' }),
    limit: sharedFlags.limit,
    cursor: sharedFlags.cursor,
    all: sharedFlags.all,
    ...tableFlags,
  };

  async run(): Promise<Page<User>> {
    const ctx = await this.scope();
    const {
      cursor: _cursor,
      limit: _limit,
      sortOrder,
      ...filters
    } = await validateInput(
      ctx,
      ListUsersQuery,
      {
        status: this.flags.status,
        layer: this.flags.layer,
        email: this.flags.email,
        roleId: this.flags.role,
        limit: this.flags.limit,
        cursor: this.flags.cursor,
      },
      { roleId: 'role' },
    );
    const page = await this.listAll((p) => listUsers(ctx, filters, { ...p, sortOrder }));
    this.log(
      renderTable(
        page.data,
        [
          { header: 'ID', get: (u) => u.id },
          { header: 'Email', get: (u) => u.email },
          { header: 'Layer', get: (u) => (u.merchantId ? `merchant ${u.merchantId}` : u.layer) },
          { header: 'Status', get: (u) => statusColour(u.status) },
          { header: 'Roles', get: (u) => (u.isOwner ? 'owner' : u.roleIds.length) },
        ],
        this.flags,
      ),
    );
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
