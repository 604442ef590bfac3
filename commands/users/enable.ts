import { Args } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { accessScopeFlags } from '../../src/cli/access-flags';
import { renderRecord, statusColour } from '../../src/cli/output';
import type { User } from '../../src/services/access/users';
import { contextForUser } from '../../src/cli/access-scope';
import { changeUserStatus } from '../../src/services/access/users';

export default class UsersEnable extends BaseCommand<typeof UsersEnable> {
  static override summary = 'Enable a disabled user.';
  static override examples = ['<%= config.bin %> users enable 2d0c…', '<%= config.bin %> users enable 2d0c… --json'];
  static override args = { id: Args.string({ description: 'User id', required: true }) };
  static override flags = { 'as-user': accessScopeFlags['as-user'] };

  async run(): Promise<User> {
    const rt = await this.runtime();
    const ctx = await contextForUser(rt, this.args.id, this.flags);
    const user = await changeUserStatus(ctx, this.args.id, 'enable');
    this.log(renderRecord({ id: user.id, email: user.email, status: statusColour(user.status) }));
    return user;
  }
}
