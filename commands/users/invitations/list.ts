import { Flags } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import { sharedFlags, tableFlags } from '../../../src/cli/flags';
import { renderTable, statusColour, pageFooter, logBesideTable } from '../../../src/cli/output';
import { validateInput } from '../../../src/cli/validate';
import { ListInvitationsQuery } from '../../../src/api/access/schemas';
import type { Page } from '../../../src/db/scoped';
import type { Invitation } from '../../../src/services/access/invitations';
import { listInvitations } from '../../../src/services/access/invitations';
import { accessScopeFlags } from '../../../src/cli/context';

export default class InvitationsList extends BaseCommand<typeof InvitationsList> {
  static override summary = 'List invitations (never their tokens).';
  static override examples = [
    '<%= config.bin %> users invitations list --tenant 6f1c… --status pending',
    '<%= config.bin %> users invitations list --tenant 6f1c… --status pending --all --json',
  ];
  static override flags = {
    ...accessScopeFlags,
    status: Flags.string({ description: 'Only invitations in this status', options: ['pending', 'accepted', 'canceled', 'expired'] }),
    user: Flags.string({ description: 'Only the invitations of this user id' }),
    email: Flags.string({ description: 'Only invitations sent to this email' }),
    limit: sharedFlags.limit,
    cursor: sharedFlags.cursor,
    all: sharedFlags.all,
    ...tableFlags,
  };

  async run(): Promise<Page<Invitation>> {
    const ctx = await this.scope();
    const {
      cursor: _cursor,
      limit: _limit,
      sortOrder,
      ...filters
    } = await validateInput(
      ctx,
      ListInvitationsQuery,
      { status: this.flags.status, userId: this.flags.user, email: this.flags.email, limit: this.flags.limit, cursor: this.flags.cursor },
      { userId: 'user' },
    );
    const page = await this.listAll((p) => listInvitations(ctx, filters, { ...p, sortOrder }));
    this.log(
      renderTable(
        page.data,
        [
          { header: 'ID', get: (i) => i.id },
          { header: 'Email', get: (i) => i.email },
          { header: 'User', get: (i) => i.userId },
          { header: 'Status', get: (i) => statusColour(i.status) },
          { header: 'Expires', get: (i) => i.expiresAt },
        ],
        this.flags,
      ),
    );
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
