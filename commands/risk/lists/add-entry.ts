import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import type { ListEntry } from '../../../src/services/risk/lists';
import { CreateListEntryBody } from '../../../src/api/risk/schemas';
import { addListEntry } from '../../../src/services/risk/lists';
import { namingFlags, riskScopeFlags, validateRisk } from '../../../src/cli/risk/input';
import { renderListEntry } from '../../../src/cli/risk/lists';
import { ownedArg } from '../../../src/cli/context';

const FIELDS = { value: 'VALUE', note: '--note' };

export default class RiskListsAddEntry extends BaseCommand<typeof RiskListsAddEntry> {
  static override summary = "Add an entry to a list group: a value of the group's entry type, normalized on the way in.";
  static override description =
    'card_fingerprint: the fingerprint a payment or `risk evaluate` shows; email; email_domain; ip: an address or CIDR range; bin: the 6 first digits of the card; country: ISO alpha-2; customer_reference. Each value once per group (exit 5, LIST_ENTRY_EXISTS).';
  static override examples = [
    '<%= config.bin %> risk lists add-entry 5e6f… 203.0.113.0/24 --tenant 6f1c… --note "proxy range"',
    '<%= config.bin %> risk lists add-entry 5e6f… 3f9a2c… --tenant 6f1c… --json',
  ];
  static override args = {
    group: ownedArg('listGroup', { description: 'List group id', required: true }),
    value: Args.string({ description: "The value (of the group's entry type)", required: true }),
  };
  static override flags = { ...riskScopeFlags, note: Flags.string({ description: 'Why the value is listed' }) };

  async run(): Promise<ListEntry> {
    await this.required(this.flags.tenant, 'tenant', 'Tenant id');
    const input = validateRisk(CreateListEntryBody, { value: this.args.value, note: this.flags.note }, FIELDS);
    const ctx = await this.scope();
    const entry = await namingFlags(FIELDS, () => addListEntry(ctx, this.args.group, input));
    await this.nameActors(entry);
    this.log(renderListEntry(entry));
    return entry;
  }
}
