import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { renderRecord } from '../../src/cli/output';
import { validateWith } from '../../src/cli/validate';
import { UpdateRoleBody } from '../../src/api/access/schemas';
import type { Role } from '../../src/services/access/roles';
import { updateRole } from '../../src/services/access/roles';
import { accessScopeFlags, recordArg, recordOwnerFlags } from '../../src/cli/context';

export default class RolesUpdate extends BaseCommand<typeof RolesUpdate> {
  static override summary = "Update a role's name, description or permissions (replaces the list; applies to its users at once).";
  static override examples = ['<%= config.bin %> roles update 9a7b… --permission payments:payments:view'];
  static override args = { id: recordArg('role', { description: 'Role id', required: true }) };
  static override flags = {
    ...recordOwnerFlags,
    'as-user': accessScopeFlags['as-user'],
    name: Flags.string({ description: 'Role name' }),
    description: Flags.string({ description: 'Description' }),
    permission: Flags.string({ description: 'Permission code (repeatable; replaces the list)', multiple: true }),
  };

  async run(): Promise<Role> {
    const ctx = await this.scope();
    const input = validateWith(
      UpdateRoleBody,
      { name: this.flags.name, description: this.flags.description, permissions: this.flags.permission },
      { permissions: 'permission' },
    );
    const role = await updateRole(ctx, this.args.id, input);
    await this.nameActors(role);
    this.log(renderRecord(role as unknown as Record<string, unknown>));
    return role;
  }
}
