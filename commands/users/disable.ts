import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags } from '../../src/cli/flags';
import { renderRecord, statusColour } from '../../src/cli/output';
import type { User } from '../../src/services/access/users';
import { changeUserStatus, getUser } from '../../src/services/access/users';
import { userLabel } from '../../src/cli/prompts';
import { accessScopeFlags, recordArg, recordOwnerFlags } from '../../src/cli/context';

export default class UsersDisable extends BaseCommand<typeof UsersDisable> {
  static override summary = 'Disable an active user: its tokens stop working at once.';
  static override examples = ['<%= config.bin %> users disable 2d0c…', '<%= config.bin %> users disable 2d0c… --yes --json'];
  static override args = { id: recordArg('user', { description: 'User id', required: true }) };
  static override flags = {
    ...recordOwnerFlags,
    'as-user': accessScopeFlags['as-user'],
    yes: sharedFlags.yes,
  };

  async run(): Promise<User> {
    await this.confirmAction(this.flags.yes, async () => {
      const user = await getUser(await this.scope(), this.args.id);
      return { verb: 'Disable', noun: 'user', name: userLabel(user), id: user.id, consequence: 'Its tokens stop working at once.' };
    });
    const ctx = await this.scope();
    const user = await changeUserStatus(ctx, this.args.id, 'disable');
    this.log(renderRecord({ id: user.id, email: user.email, status: statusColour(user.status) }));
    return user;
  }
}
