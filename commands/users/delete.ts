import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags } from '../../src/cli/flags';
import type { User } from '../../src/services/access/users';
import { deleteUser, getUser } from '../../src/services/access/users';
import { userLabel } from '../../src/cli/prompts';
import { accessScopeFlags, recordArg, recordOwnerFlags } from '../../src/cli/context';

export default class UsersDelete extends BaseCommand<typeof UsersDelete> {
  static override summary = 'Delete a user (soft): its tokens stop working, its pending invitations are canceled.';
  static override examples = ['<%= config.bin %> users delete 2d0c… --yes'];
  static override args = { id: recordArg('user', { description: 'User id', required: true }) };
  static override flags = {
    ...recordOwnerFlags,
    'as-user': accessScopeFlags['as-user'],
    yes: sharedFlags.yes,
  };

  async run(): Promise<User> {
    const ctx = await this.scope();
    await this.confirmAction(this.flags.yes, async () => {
      const user = await getUser(ctx, this.args.id);
      return {
        verb: 'Delete',
        noun: 'user',
        name: userLabel(user),
        id: user.id,
        consequence: 'Its tokens stop working and its pending invitations are canceled.',
      };
    });
    const user = await deleteUser(ctx, this.args.id);
    this.log(`Deleted user ${user.id} (${user.email}).`);
    return user;
  }
}
