import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags } from '../../src/cli/flags';
import type { RoutingRule } from '../../src/services/routing/rules';
import { archiveRoutingRule, getRoutingRule } from '../../src/services/routing/rules';
import { atPlatform, ownedArg, ownerFlags } from '../../src/cli/context';

export default class RoutingRulesArchive extends BaseCommand<typeof RoutingRulesArchive> {
  static override summary = 'Archive the active routing rule version (active -> archived): the rule stops routing.';
  static override examples = ['<%= config.bin %> routing-rules archive 6f1c… --yes'];
  static override scopeOf = atPlatform(false);
  static override args = { id: ownedArg('routingRule', { description: 'Routing rule version id', required: true }) };
  static override flags = { ...ownerFlags('routingRule'), yes: sharedFlags.yes };

  async run(): Promise<RoutingRule> {
    await this.confirmAction(this.flags.yes, async () => {
      const rule = await getRoutingRule(await this.scope(), this.args.id);
      return {
        verb: 'Archive',
        noun: 'routing rule',
        name: `${rule.name}, version ${rule.version}`,
        id: rule.id,
        consequence: 'The rule stops routing.',
      };
    });
    const ctx = await this.scope();
    const rule = await archiveRoutingRule(ctx, this.args.id);
    this.log(`Routing rule ${rule.name} version ${rule.version} (${rule.id}) is now ${rule.status}.`);
    return rule;
  }
}
