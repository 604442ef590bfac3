import { BaseCommand } from '../../../src/cli/base-command';
import type { ListGroup } from '../../../src/services/risk/lists';
import { getListGroup } from '../../../src/services/risk/lists';
import { renderListGroup } from '../../../src/cli/risk/lists';
import { ownedArg } from '../../../src/cli/context';
import { riskScopeFlags } from '../../../src/cli/risk/input';

export default class RiskListsGet extends BaseCommand<typeof RiskListsGet> {
  static override summary = 'Show one list group with its entry type and entry count (its entries: risk lists entries).';
  static override examples = [
    '<%= config.bin %> risk lists get 5e6f… --tenant 6f1c…',
    '<%= config.bin %> risk lists get 5e6f… --tenant 6f1c… --json',
  ];
  static override args = { id: ownedArg('listGroup', { description: 'List group id', required: true }) };
  static override flags = riskScopeFlags;

  async run(): Promise<ListGroup> {
    await this.required(this.flags.tenant, 'tenant', 'Tenant id');
    const ctx = await this.scope();
    const group = await getListGroup(ctx, this.args.id);
    await this.nameActors(group);
    this.log(renderListGroup(group));
    return group;
  }
}
