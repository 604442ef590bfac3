import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { renderRecord } from '../../src/cli/output';
import { validateInput } from '../../src/cli/validate';
import { CreateRoleBody } from '../../src/api/access/schemas';
import type { Role } from '../../src/services/access/roles';
import { createRole } from '../../src/services/access/roles';
import { accessScopeFlags } from '../../src/cli/context';

export default class RolesCreate extends BaseCommand<typeof RolesCreate> {
  static override summary = "Create a role from permission codes of the acting caller's layer.";
  static override description =
    'With --merchant a merchant role of that merchant, with --tenant an operator role, with neither a platform role; --as-user acts as a user, ' +
    'with its permissions. A code outside the layer is refused (exit 2), a code the caller lacks too (exit 3).';
  static override examples = [
    '<%= config.bin %> roles create --tenant 6f1c… --name Support --permission payments:payments:view --permission access:users:view',
    '<%= config.bin %> roles create --as-user 2d0c… --name Cashier --permission payments:refunds:manage --json',
  ];
  static override flags = {
    ...accessScopeFlags,
    name: Flags.string({ description: 'Role name', required: true }),
    description: Flags.string({ description: 'Description' }),
    permission: Flags.string({ description: 'Permission code (repeatable)', multiple: true }),
  };

  async run(): Promise<Role> {
    const ctx = await this.scope();
    const input = await validateInput(
      ctx,
      CreateRoleBody,
      { name: this.flags.name, description: this.flags.description, permissions: this.flags.permission ?? [] },
      { permissions: 'permission' },
    );
    const role = await createRole(ctx, input);
    await this.nameActors(role);
    this.log(renderRecord(role as unknown as Record<string, unknown>));
    return role;
  }
}
