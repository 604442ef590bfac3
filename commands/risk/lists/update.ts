import { Flags } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import type { ListGroup } from '../../../src/services/risk/lists';
import { UpdateListGroupBody } from '../../../src/api/risk/schemas';
import { updateListGroup } from '../../../src/services/risk/lists';
import { namingFlags, nullable, riskScopeFlags, validateRisk } from '../../../src/cli/risk/input';
import { renderListGroup } from '../../../src/cli/risk/lists';
import { ownedArg } from '../../../src/cli/context';

const FIELDS = { '': '--name or --description' };

export default class RiskListsUpdate extends BaseCommand<typeof RiskListsUpdate> {
  static override summary = 'Rename a list group or change its description (the entry type never changes).';
  static override examples = [
    '<%= config.bin %> risk lists update 5e6f… --tenant 6f1c… --name "Blocked cards (chargebacks)"',
    '<%= config.bin %> risk lists update 5e6f… --tenant 6f1c… --description none --json',
  ];
  static override args = { id: ownedArg('listGroup', { description: 'List group id', required: true }) };
  static override flags = {
    ...riskScopeFlags,
    name: Flags.string({ description: 'Display name' }),
    description: Flags.string({ description: 'Description ("none" clears it)' }),
  };

  async run(): Promise<ListGroup> {
    await this.required(this.flags.tenant, 'tenant', 'Tenant id');
    const input = validateRisk(UpdateListGroupBody, { name: this.flags.name, description: nullable(this.flags.description) }, FIELDS);
    const ctx = await this.scope();
    const group = await namingFlags(FIELDS, () => updateListGroup(ctx, this.args.id, input));
    await this.nameActors(group);
    this.log(renderListGroup(group));
    return group;
  }
}
