import { Flags } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import { sharedFlags, tableFlags } from '../../../src/cli/flags';
import { pageFooter, logBesideTable } from '../../../src/cli/output';
import type { Page } from '../../../src/db/scoped';
import type { ListGroup } from '../../../src/services/risk/lists';
import type { ListEntryType } from '../../../src/db/models/risk';
import { listListGroups } from '../../../src/services/risk/lists';
import { LIST_ENTRY_TYPE_OPTIONS, renderListGroups } from '../../../src/cli/risk/lists';
import { riskScopeFlags } from '../../../src/cli/risk/input';

export default class RiskListsList extends BaseCommand<typeof RiskListsList> {
  static override summary = "List a tenant's list groups (sandbox, or live with --live) with their entry counts, newest first.";
  static override examples = [
    '<%= config.bin %> risk lists list --tenant 6f1c…',
    '<%= config.bin %> risk lists list --tenant 6f1c… --entry-type card_fingerprint --json',
    '<%= config.bin %> risk lists list --tenant 6f1c… --all --json',
  ];
  static override flags = {
    ...riskScopeFlags,
    'entry-type': Flags.string({ description: 'Only groups of this entry type', options: LIST_ENTRY_TYPE_OPTIONS }),
    limit: sharedFlags.limit,
    cursor: sharedFlags.cursor,
    all: sharedFlags.all,
    ...tableFlags,
  };

  async run(): Promise<Page<ListGroup>> {
    await this.required(this.flags.tenant, 'tenant', 'Tenant id');
    const ctx = await this.scope();
    const page = await this.listAll((p) =>
      listListGroups(ctx, { entryType: this.flags['entry-type'] as ListEntryType | undefined }, { ...p, sortOrder: 'desc' }),
    );
    this.log(renderListGroups(page.data, this.flags));
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
