import { Args } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { accessScopeFlags } from '../../src/cli/access-flags';
import { renderRecord } from '../../src/cli/output';
import type { User } from '../../src/services/access/users';
import { contextForUser } from '../../src/cli/access-scope';
import { getUser } from '../../src/services/access/users';

export default class UsersGet extends BaseCommand<typeof UsersGet> {
  static override summary = 'Show one user with its roles.';
  static override examples = ['<%= config.bin %> users get 2d0c…', '<%= config.bin %> users get 2d0c… --json'];
  static override args = { id: Args.string({ description: 'User id', required: true }) };
  static override flags = { 'as-user': accessScopeFlags['as-user'] };

  async run(): Promise<User> {
    const rt = await this.runtime();
    const ctx = await contextForUser(rt, this.args.id, this.flags);
    const user = await getUser(ctx, this.args.id);
    this.log(renderRecord(user as unknown as Record<string, unknown>));
    return user;
  }
}
