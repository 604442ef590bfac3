import { BaseCommand } from '../../src/cli/base-command';
import { renderRecord } from '../../src/cli/output';
import type { Role } from '../../src/services/access/roles';
import { getRole } from '../../src/services/access/roles';
import { accessScopeFlags, recordArg, recordOwnerFlags } from '../../src/cli/context';

export default class RolesGet extends BaseCommand<typeof RolesGet> {
  static override summary = 'Show one role and its permission codes.';
  static override examples = ['<%= config.bin %> roles get 9a7b…', '<%= config.bin %> roles get 9a7b… --json'];
  static override args = { id: recordArg('role', { description: 'Role id', required: true }) };
  static override flags = { ...recordOwnerFlags, 'as-user': accessScopeFlags['as-user'] };

  async run(): Promise<Role> {
    const ctx = await this.scope();
    const role = await getRole(ctx, this.args.id);
    await this.nameActors(role);
    this.log(renderRecord(role as unknown as Record<string, unknown>));
    return role;
  }
}
