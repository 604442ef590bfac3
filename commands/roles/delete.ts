import { Args } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags } from '../../src/cli/flags';
import { accessScopeFlags } from '../../src/cli/access-flags';
import type { Role } from '../../src/services/access/roles';
import { contextForRole } from '../../src/cli/access-scope';
import { deleteRole } from '../../src/services/access/roles';

export default class RolesDelete extends BaseCommand<typeof RolesDelete> {
  static override summary = 'Delete a role (soft); refused while a user holds it (exit 5).';
  static override examples = ['<%= config.bin %> roles delete 9a7b… --yes'];
  static override args = { id: Args.string({ description: 'Role id', required: true }) };
  static override flags = { 'as-user': accessScopeFlags['as-user'], yes: sharedFlags.yes };

  async run(): Promise<Role> {
    const rt = await this.runtime();
    const ctx = await contextForRole(rt, this.args.id, this.flags);
    await this.confirm(this.flags.yes, `Delete role ${this.args.id}?`);
    const role = await deleteRole(ctx, this.args.id);
    this.log(`Deleted role ${role.id} (${role.name}).`);
    return role;
  }
}
