import { Args } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import { sharedFlags } from '../../../src/cli/flags';
import { accessScopeFlags } from '../../../src/cli/access-flags';
import { renderRecord } from '../../../src/cli/output';
import type { Invitation } from '../../../src/services/access/invitations';
import { contextForInvitation } from '../../../src/cli/access-scope';
import { cancelInvitation } from '../../../src/services/access/invitations';

export default class InvitationsCancel extends BaseCommand<typeof InvitationsCancel> {
  static override summary = 'Cancel a pending invitation (exit 5 otherwise).';
  static override examples = ['<%= config.bin %> users invitations cancel 5e6f…', '<%= config.bin %> users invitations cancel 5e6f… --yes --json'];
  static override args = { id: Args.string({ description: 'Invitation id', required: true }) };
  static override flags = { 'as-user': accessScopeFlags['as-user'], yes: sharedFlags.yes };

  async run(): Promise<Invitation> {
    await this.confirm(this.flags.yes, `Cancel invitation ${this.args.id}?`);
    const rt = await this.runtime();
    const ctx = await contextForInvitation(rt, this.args.id, this.flags);
    const invitation = await cancelInvitation(ctx, this.args.id);
    this.log(renderRecord({ id: invitation.id, email: invitation.email, status: invitation.status }));
    return invitation;
  }
}
