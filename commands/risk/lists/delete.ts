import { BaseCommand } from '../../../src/cli/base-command';
import { sharedFlags } from '../../../src/cli/flags';
import type { ListGroup } from '../../../src/services/risk/lists';
import { deleteListGroup, getListGroup } from '../../../src/services/risk/lists';
import { ownedArg } from '../../../src/cli/context';
import { riskScopeFlags } from '../../../src/cli/risk/input';

export default class RiskListsDelete extends BaseCommand<typeof RiskListsDelete> {
  static override summary = 'Delete a list group and all its entries (soft delete): rules naming it then match nothing in it.';
  static override examples = [
    '<%= config.bin %> risk lists delete 5e6f… --tenant 6f1c…',
    '<%= config.bin %> risk lists delete 5e6f… --tenant 6f1c… --yes --json',
  ];
  static override args = { id: ownedArg('listGroup', { description: 'List group id', required: true }) };
  static override flags = { ...riskScopeFlags, yes: sharedFlags.yes };

  async run(): Promise<ListGroup> {
    await this.required(this.flags.tenant, 'tenant', 'Tenant id');
    await this.confirmAction(this.flags.yes, async () => {
      const ctx = await this.scope();
      const group = await getListGroup(ctx, this.args.id);
      return {
        verb: 'Delete',
        noun: 'list group',
        name: group.name,
        id: group.id,
        consequence: `Its ${group.entryCount} ${group.entryCount === 1 ? 'entry is' : 'entries are'} deleted with it.`,
      };
    });
    const ctx = await this.scope();
    const group = await deleteListGroup(ctx, this.args.id);
    this.log(`List group ${group.name} (${group.id}) and its entries are deleted.`);
    return group;
  }
}
