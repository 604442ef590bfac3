import { BaseCommand } from '../../src/cli/base-command';
import type { RoutingRule } from '../../src/services/routing/rules';
import { activateRoutingRule } from '../../src/services/routing/rules';
import { atPlatform, ownedArg, ownerFlags } from '../../src/cli/context';

export default class RoutingRulesActivate extends BaseCommand<typeof RoutingRulesActivate> {
  static override summary = "Activate a draft routing rule version (draft -> active); the rule's active version is archived.";
  static override examples = ['<%= config.bin %> routing-rules activate 6f1c…'];
  static override scopeOf = atPlatform(false);
  static override args = { id: ownedArg('routingRule', { description: 'Routing rule version id', required: true }) };
  static override flags = { ...ownerFlags('routingRule') };

  async run(): Promise<RoutingRule> {
    const ctx = await this.scope();
    const rule = await activateRoutingRule(ctx, this.args.id);
    this.log(`Routing rule ${rule.name} version ${rule.version} (${rule.id}) is now ${rule.status}.`);
    return rule;
  }
}
