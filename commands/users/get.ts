import { BaseCommand } from '../../src/cli/base-command';
import { renderRecord } from '../../src/cli/output';
import type { User } from '../../src/services/access/users';
import { getUser } from '../../src/services/access/users';
import { accessScopeFlags, recordArg, recordOwnerFlags } from '../../src/cli/context';

export default class UsersGet extends BaseCommand<typeof UsersGet> {
  static override summary = 'Show one user with its roles.';
  static override examples = ['<%= config.bin %> users get 2d0c…', '<%= config.bin %> users get 2d0c… --json'];
  static override args = { id: recordArg('user', { description: 'User id', required: true }) };
  static override flags = { ...recordOwnerFlags, 'as-user': accessScopeFlags['as-user'] };

  async run(): Promise<User> {
    const ctx = await this.scope();
    const user = await getUser(ctx, this.args.id);
    await this.nameActors(user);
    this.log(renderRecord(user as unknown as Record<string, unknown>));
    return user;
  }
}
