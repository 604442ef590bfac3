import { BaseCommand } from '../../src/cli/base-command';
import { renderRecord, statusColour } from '../../src/cli/output';
import type { User } from '../../src/services/access/users';
import { changeUserStatus } from '../../src/services/access/users';
import { accessScopeFlags, recordArg, recordOwnerFlags } from '../../src/cli/context';

export default class UsersEnable extends BaseCommand<typeof UsersEnable> {
  static override summary = 'Enable a disabled user.';
  static override examples = ['<%= config.bin %> users enable 2d0c…', '<%= config.bin %> users enable 2d0c… --json'];
  static override args = { id: recordArg('user', { description: 'User id', required: true }) };
  static override flags = { ...recordOwnerFlags, 'as-user': accessScopeFlags['as-user'] };

  async run(): Promise<User> {
    const ctx = await this.scope();
    const user = await changeUserStatus(ctx, this.args.id, 'enable');
    this.log(renderRecord({ id: user.id, email: user.email, status: statusColour(user.status) }));
    return user;
  }
}
