import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { renderRecord } from '../../src/cli/output';
import type { Invitation } from '../../src/services/access/invitations';
import type { User } from '../../src/services/access/users';
import { acceptInvitation } from '../../src/services/access/invitations';

export default class UsersAcceptInvitation extends BaseCommand<typeof UsersAcceptInvitation> {
  static override summary = 'Accept an invitation: bind the user to an identity (externalIdpId) and activate it.';
  static override description =
    'An unknown or superseded token is refused (exit 4), an expired, canceled or already used one too (exit 5).';
  static override examples = ['<%= config.bin %> users accept-invitation inv_… --idp-subject "auth0|64f…"'];
  static override args = { token: Args.string({ description: 'The invitation token (inv_…)', required: true }) };
  static override flags = {
    'idp-subject': Flags.string({ description: "The identity provider's subject (sub) of the person accepting", required: true }),
  };

  async run(): Promise<{ user: User; invitation: Invitation }> {
    const rt = await this.runtime();
    const result = await acceptInvitation(rt, this.args.token, this.flags['idp-subject']);
    this.log(
      renderRecord({
        user: result.user.id,
        email: result.user.email,
        status: result.user.status,
        externalIdpId: result.user.externalIdpId,
      }),
    );
    return result;
  }
}
