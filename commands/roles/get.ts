import { Args } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { accessScopeFlags } from '../../src/cli/access-flags';
import { renderRecord } from '../../src/cli/output';
import type { Role } from '../../src/services/access/roles';
import { contextForRole } from '../../src/cli/access-scope';
import { getRole } from '../../src/services/access/roles';

export default class RolesGet extends BaseCommand<typeof RolesGet> {
  static override summary = 'Show one role and its permission codes.';
  static override examples = ['<%= config.bin %> roles get 9a7b…', '<%= config.bin %> roles get 9a7b… --json'];
  static override args = { id: Args.string({ description: 'Role id', required: true }) };
  static override flags = { 'as-user': accessScopeFlags['as-user'] };

  async run(): Promise<Role> {
    const rt = await this.runtime();
    const ctx = await contextForRole(rt, this.args.id, this.flags);
    const role = await getRole(ctx, this.args.id);
    this.log(renderRecord(role as unknown as Record<string, unknown>));
    return role;
  }
}
