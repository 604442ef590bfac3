import { Flags } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import type { ListGroup } from '../../../src/services/risk/lists';
import { CreateListGroupBody } from '../../../src/api/risk/schemas';
import { createListGroup } from '../../../src/services/risk/lists';
import { LIST_ENTRY_TYPE_OPTIONS, renderListGroup } from '../../../src/cli/risk/lists';
import { namingFlags, nullable, riskScopeFlags, validateRiskInput } from '../../../src/cli/risk/input';

const FIELDS = { entryType: '--entry-type', tenantId: '--tenant' };

export default class RiskListsCreate extends BaseCommand<typeof RiskListsCreate> {
  static override summary = 'Create a list group: a named list of one entry type that scoring rules look into with in_list.';
  static override examples = [
    '<%= config.bin %> risk lists create --tenant 6f1c… --name "Blocked cards" --entry-type card_fingerprint',
    '<%= config.bin %> risk lists create --tenant 6f1c… --name "Office network" --entry-type ip --description "allow-listed ranges" --json',
  ];
  static override flags = {
    ...riskScopeFlags,
    name: Flags.string({ description: 'Display name' }),
    description: Flags.string({ description: 'Description' }),
    'entry-type': Flags.string({ description: 'What the entries are (fixed once created)', options: LIST_ENTRY_TYPE_OPTIONS }),
  };

  async run(): Promise<ListGroup> {
    await this.required(this.flags.tenant, 'tenant', 'Tenant id');
    const name = await this.required(this.flags.name, 'name', 'List name');
    const entryType = await this.required(this.flags['entry-type'], 'entry-type', `Entry type (${LIST_ENTRY_TYPE_OPTIONS.join(', ')})`);
    const ctx = await this.scope();
    const input = await validateRiskInput(
      ctx,
      CreateListGroupBody,
      { name, description: nullable(this.flags.description), entryType },
      FIELDS,
    );
    const group = await namingFlags(FIELDS, () => createListGroup(ctx, input));
    await this.nameActors(group);
    this.log(renderListGroup(group));
    return group;
  }
}
