import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags } from '../../src/cli/flags';
import type { RoutingRule } from '../../src/services/routing/rules';
import { deleteRoutingRule, getRoutingRule } from '../../src/services/routing/rules';
import { atPlatform, ownedArg, ownerFlags } from '../../src/cli/context';

export default class RoutingRulesDelete extends BaseCommand<typeof RoutingRulesDelete> {
  static override summary = 'Delete a draft routing rule version (soft delete; other versions stay).';
  static override examples = ['<%= config.bin %> routing-rules delete 6f1c… --yes'];
  static override scopeOf = atPlatform(false);
  static override args = { id: ownedArg('routingRule', { description: 'Routing rule version id', required: true }) };
  static override flags = { ...ownerFlags('routingRule'), yes: sharedFlags.yes };

  async run(): Promise<RoutingRule> {
    await this.confirmAction(this.flags.yes, async () => {
      const rule = await getRoutingRule(await this.scope(), this.args.id);
      return { verb: 'Delete', noun: 'routing rule', name: `${rule.name}, version ${rule.version}`, id: rule.id };
    });
    const ctx = await this.scope();
    const rule = await deleteRoutingRule(ctx, this.args.id);
    this.log(`Routing rule ${rule.name} version ${rule.version} (${rule.id}) is deleted.`);
    return rule;
  }
}
