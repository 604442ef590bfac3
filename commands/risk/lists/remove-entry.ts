import { BaseCommand } from '../../../src/cli/base-command';
import { sharedFlags } from '../../../src/cli/flags';
import type { ListEntry } from '../../../src/services/risk/lists';
import { deleteListEntry, getListEntry, getListGroup } from '../../../src/services/risk/lists';
import { ownedArg } from '../../../src/cli/context';
import { riskScopeFlags } from '../../../src/cli/risk/input';

export default class RiskListsRemoveEntry extends BaseCommand<typeof RiskListsRemoveEntry> {
  static override summary = 'Remove an entry from a list group (soft delete).';
  static override examples = [
    '<%= config.bin %> risk lists remove-entry 5e6f… 8d7c… --tenant 6f1c…',
    '<%= config.bin %> risk lists remove-entry 5e6f… 8d7c… --tenant 6f1c… --yes --json',
  ];
  static override args = {
    group: ownedArg('listGroup', { description: 'List group id', required: true }),
    entry: ownedArg('listEntry', { description: 'Entry id', required: true }),
  };
  static override flags = { ...riskScopeFlags, yes: sharedFlags.yes };

  async run(): Promise<ListEntry> {
    await this.required(this.flags.tenant, 'tenant', 'Tenant id');
    await this.confirmAction(this.flags.yes, async () => {
      const ctx = await this.scope();
      const group = await getListGroup(ctx, this.args.group);
      const entry = await getListEntry(ctx, group.id, this.args.entry);
      return {
        verb: 'Remove',
        noun: 'entry',
        name: entry.value,
        id: entry.id,
        of: { noun: 'list group', name: group.name, id: group.id, preposition: 'from' },
      };
    });
    const ctx = await this.scope();
    const entry = await deleteListEntry(ctx, this.args.group, this.args.entry);
    this.log(`Entry ${entry.value} (${entry.id}) is removed.`);
    return entry;
  }
}
