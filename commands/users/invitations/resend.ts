import { BaseCommand } from '../../../src/cli/base-command';
import { chalk, renderRecord } from '../../../src/cli/output';
import type { IssuedInvitation } from '../../../src/services/access/invitations';
import { resendInvitation } from '../../../src/services/access/invitations';
import { accessScopeFlags, recordArg, recordOwnerFlags } from '../../../src/cli/context';

export default class InvitationsResend extends BaseCommand<typeof InvitationsResend> {
  static override summary = 'Resend an invitation: a new token valid 7 days (shown once); the old token stops working.';
  static override examples = ['<%= config.bin %> users invitations resend 5e6f… --json'];
  static override args = { id: recordArg('invitation', { description: 'Invitation id', required: true }) };
  static override flags = { ...recordOwnerFlags, 'as-user': accessScopeFlags['as-user'] };

  async run(): Promise<IssuedInvitation> {
    const ctx = await this.scope();
    const invitation = await resendInvitation(ctx, this.args.id);
    this.log(renderRecord({ id: invitation.id, email: invitation.email, status: invitation.status, expiresAt: invitation.expiresAt }));
    this.log(`\n${chalk.bold('Invitation token')} (shown once):\n${invitation.token}`);
    return invitation;
  }
}
