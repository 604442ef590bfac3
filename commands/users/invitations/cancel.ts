import { BaseCommand } from '../../../src/cli/base-command';
import { sharedFlags } from '../../../src/cli/flags';
import { renderRecord } from '../../../src/cli/output';
import type { Invitation } from '../../../src/services/access/invitations';
import { cancelInvitation, getInvitation } from '../../../src/services/access/invitations';
import { accessScopeFlags, recordArg, recordOwnerFlags } from '../../../src/cli/context';

export default class InvitationsCancel extends BaseCommand<typeof InvitationsCancel> {
  static override summary = 'Cancel a pending invitation (exit 5 otherwise).';
  static override examples = [
    '<%= config.bin %> users invitations cancel 5e6f…',
    '<%= config.bin %> users invitations cancel 5e6f… --yes --json',
  ];
  static override args = { id: recordArg('invitation', { description: 'Invitation id', required: true }) };
  static override flags = {
    ...recordOwnerFlags,
    'as-user': accessScopeFlags['as-user'],
    yes: sharedFlags.yes,
  };

  async run(): Promise<Invitation> {
    await this.confirmAction(this.flags.yes, async () => {
      const invitation = await getInvitation(await this.scope(), this.args.id);
      return { verb: 'Cancel', noun: 'invitation', name: invitation.email, id: invitation.id };
    });
    const ctx = await this.scope();
    const invitation = await cancelInvitation(ctx, this.args.id);
    this.log(renderRecord({ id: invitation.id, email: invitation.email, status: invitation.status }));
    return invitation;
  }
}
