import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { chalk, renderRecord } from '../../src/cli/output';
import { validateInput } from '../../src/cli/validate';
import { InviteUserBody } from '../../src/api/access/schemas';
import type { IssuedInvitation } from '../../src/services/access/invitations';
import type { User } from '../../src/services/access/users';
import { inviteUser } from '../../src/services/access/invitations';
import { accessScopeFlags } from '../../src/cli/context';

export default class UsersInvite extends BaseCommand<typeof UsersInvite> {
  static override summary = 'Invite a user by email with roles; prints the single-use invitation token once.';
  static override description =
    'With --tenant the user is an operator of the tenant, with --merchant a user of that merchant, with neither a platform user. ' +
    'Roles must be of that layer and hold only codes the acting caller holds (see --as-user). The token is shown once and stored only as a hash.';
  static override examples = [
    '<%= config.bin %> users invite --tenant 6f1c… --email ops@example.com --role 9a7b…',
    '<%= config.bin %> users invite --merchant 0b9e… --email owner@shop.example --owner --json',
  ];
  static override flags = {
    ...accessScopeFlags,
    email: Flags.string({ description: 'Email of the person to invite', required: true }),
    'display-name': Flags.string({ description: 'Display name' }),
    role: Flags.string({ description: 'Role id (repeatable)', multiple: true }),
    owner: Flags.boolean({ description: 'Invite an owner: every permission of the layer', default: false }),
  };

  async run(): Promise<{ user: User; invitation: IssuedInvitation }> {
    const ctx = await this.scope();
    const input = await validateInput(
      ctx,
      InviteUserBody,
      { email: this.flags.email, displayName: this.flags['display-name'], roleIds: this.flags.role, owner: this.flags.owner || undefined },
      { roleIds: 'role', displayName: 'display-name' },
    );
    const result = await inviteUser(ctx, input);
    this.log(
      renderRecord({
        user: result.user.id,
        email: result.user.email,
        layer: result.user.layer,
        status: result.user.status,
        invitation: result.invitation.id,
        expiresAt: result.invitation.expiresAt,
      }),
    );
    this.log(`\n${chalk.bold('Invitation token')} (shown once; hand it to the invitee):\n${result.invitation.token}`);
    return result;
  }
}
