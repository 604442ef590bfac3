import { Flags } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import { sharedFlags, tableFlags } from '../../../src/cli/flags';
import { pageFooter, logBesideTable } from '../../../src/cli/output';
import type { Page } from '../../../src/db/scoped';
import type { TerminalRestriction } from '../../../src/services/processing/terminals/restrictions';
import { listRestrictions } from '../../../src/services/processing/terminals/restrictions';
import { atPlatform, ownedArg, ownerFlags } from '../../../src/cli/context';
import { renderRestrictions } from '../../../src/cli/processing';

export default class RestrictionsList extends BaseCommand<typeof RestrictionsList> {
  static override summary = "List a terminal's restrictions.";
  static override examples = [
    '<%= config.bin %> terminals restrictions list 6f1c…',
    '<%= config.bin %> terminals restrictions list 6f1c… --status active --json',
    '<%= config.bin %> terminals restrictions list 6f1c… --all --json',
  ];
  static override scopeOf = atPlatform();
  static override args = { id: ownedArg('terminal', { description: 'Terminal id', required: true }) };
  static override flags = {
    ...ownerFlags('terminal'),
    status: Flags.string({ description: 'Only restrictions in this status', options: ['active', 'disabled'] }),
    limit: sharedFlags.limit,
    cursor: sharedFlags.cursor,
    all: sharedFlags.all,
    ...tableFlags,
  };

  async run(): Promise<Page<TerminalRestriction>> {
    const ctx = await this.scope();
    const page = await this.listAll((p) =>
      listRestrictions(
        ctx,
        this.args.id,
        { status: this.flags.status as TerminalRestriction['status'] | undefined },
        { ...p, sortOrder: 'desc' },
      ),
    );
    this.log(renderRestrictions(page.data, this.flags));
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
