import { BaseCommand } from '../../src/cli/base-command';
import type { RoutingRule } from '../../src/services/routing/rules';
import { cloneRoutingRule } from '../../src/services/routing/rules';
import { renderRule } from '../../src/cli/routing';
import { atPlatform, ownedArg, ownerFlags } from '../../src/cli/context';

export default class RoutingRulesClone extends BaseCommand<typeof RoutingRulesClone> {
  static override summary = 'Clone any routing rule version into a new draft version of the same rule.';
  static override examples = ['<%= config.bin %> routing-rules clone 6f1c…', '<%= config.bin %> routing-rules clone 6f1c… --json'];
  static override scopeOf = atPlatform(false);
  static override args = { id: ownedArg('routingRule', { description: 'Routing rule version id', required: true }) };
  static override flags = { ...ownerFlags('routingRule') };

  async run(): Promise<RoutingRule> {
    const ctx = await this.scope();
    const rule = await cloneRoutingRule(ctx, this.args.id);
    this.log(renderRule(rule));
    return rule;
  }
}
