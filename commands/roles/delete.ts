import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags } from '../../src/cli/flags';
import type { Role } from '../../src/services/access/roles';
import { deleteRole, getRole } from '../../src/services/access/roles';
import { accessScopeFlags, recordArg, recordOwnerFlags } from '../../src/cli/context';

export default class RolesDelete extends BaseCommand<typeof RolesDelete> {
  static override summary = 'Delete a role (soft); refused while a user holds it (exit 5).';
  static override examples = ['<%= config.bin %> roles delete 9a7b… --yes'];
  static override args = { id: recordArg('role', { description: 'Role id', required: true }) };
  static override flags = {
    ...recordOwnerFlags,
    'as-user': accessScopeFlags['as-user'],
    yes: sharedFlags.yes,
  };

  async run(): Promise<Role> {
    const ctx = await this.scope();
    await this.confirmAction(this.flags.yes, async () => {
      const role = await getRole(ctx, this.args.id);
      return { verb: 'Delete', noun: 'role', name: role.name, id: role.id };
    });
    const role = await deleteRole(ctx, this.args.id);
    this.log(`Deleted role ${role.id} (${role.name}).`);
    return role;
  }
}
