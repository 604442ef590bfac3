import { BaseCommand } from '../../src/cli/base-command';
import type { RoutingRule } from '../../src/services/routing/rules';
import { getRoutingRule } from '../../src/services/routing/rules';
import { renderRule } from '../../src/cli/routing';
import { atPlatform, ownedArg, ownerFlags } from '../../src/cli/context';

export default class RoutingRulesGet extends BaseCommand<typeof RoutingRulesGet> {
  static override summary = 'Show one routing rule version with its conditions and outcome.';
  static override examples = ['<%= config.bin %> routing-rules get 6f1c…', '<%= config.bin %> routing-rules get 6f1c… --json'];
  static override scopeOf = atPlatform(false);
  static override args = { id: ownedArg('routingRule', { description: 'Routing rule version id', required: true }) };
  static override flags = { ...ownerFlags('routingRule') };

  async run(): Promise<RoutingRule> {
    const ctx = await this.scope();
    const rule = await getRoutingRule(ctx, this.args.id);
    this.log(renderRule(rule));
    return rule;
  }
}
