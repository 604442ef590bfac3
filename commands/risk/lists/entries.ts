import { Flags } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import { sharedFlags, tableFlags } from '../../../src/cli/flags';
import { pageFooter, logBesideTable } from '../../../src/cli/output';
import type { Page } from '../../../src/db/scoped';
import type { ListEntry } from '../../../src/services/risk/lists';
import { listListEntries } from '../../../src/services/risk/lists';
import { namingFlags, riskScopeFlags } from '../../../src/cli/risk/input';
import { renderListEntries } from '../../../src/cli/risk/lists';
import { ownedArg } from '../../../src/cli/context';

export default class RiskListsEntries extends BaseCommand<typeof RiskListsEntries> {
  static override summary = 'List the entries of a list group, newest first.';
  static override examples = [
    '<%= config.bin %> risk lists entries 5e6f… --tenant 6f1c…',
    '<%= config.bin %> risk lists entries 5e6f… --tenant 6f1c… --value 203.0.113.0/24 --json',
    '<%= config.bin %> risk lists entries 5e6f… --tenant 6f1c… --all --json',
  ];
  static override args = { group: ownedArg('listGroup', { description: 'List group id', required: true }) };
  static override flags = {
    ...riskScopeFlags,
    value: Flags.string({ description: 'Only the entry with this value (normalized like entries: case, CIDR)' }),
    limit: sharedFlags.limit,
    cursor: sharedFlags.cursor,
    all: sharedFlags.all,
    ...tableFlags,
  };

  async run(): Promise<Page<ListEntry>> {
    await this.required(this.flags.tenant, 'tenant', 'Tenant id');
    const ctx = await this.scope();
    const page = await this.listAll((p) =>
      namingFlags({ value: '--value' }, () =>
        listListEntries(ctx, this.args.group, { value: this.flags.value }, { ...p, sortOrder: 'desc' }),
      ),
    );
    await this.nameActors(page.data);
    this.log(renderListEntries(page.data, this.flags));
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
