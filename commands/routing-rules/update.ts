import { BaseCommand } from '../../src/cli/base-command';
import { validateInput } from '../../src/cli/validate';
import { UpdateRoutingRuleBody } from '../../src/api/routing/schemas';
import type { RoutingRule } from '../../src/services/routing/rules';
import { updateRoutingRule } from '../../src/services/routing/rules';
import { renderRule, ruleFlagNames, ruleFlags, ruleInput } from '../../src/cli/routing';
import { atPlatform, ownedArg, ownerFlags } from '../../src/cli/context';

export default class RoutingRulesUpdate extends BaseCommand<typeof RoutingRulesUpdate> {
  static override summary = 'Update a draft routing rule version (conditions and outcome replace the whole value).';
  static override description =
    'Only drafts change: an active or archived version is refused (exit 5, ROUTING_RULE_NOT_DRAFT); clone it first.';
  static override examples = [
    '<%= config.bin %> routing-rules update 6f1c… --terminals 7a2d…,0b9e…',
    '<%= config.bin %> routing-rules update 6f1c… --name "EU cards v2" --priority 5 --json',
  ];
  static override scopeOf = atPlatform(false);
  static override args = { id: ownedArg('routingRule', { description: 'Routing rule version id', required: true }) };
  static override flags = { ...ownerFlags('routingRule'), ...ruleFlags };

  async run(): Promise<RoutingRule> {
    const ctx = await this.scope();
    const input = await validateInput(ctx, UpdateRoutingRuleBody, ruleInput(this.flags), ruleFlagNames(this.flags), {
      kind: 'routingRule',
      id: this.args.id,
    });
    const rule = await updateRoutingRule(ctx, this.args.id, input);
    this.log(renderRule(rule));
    return rule;
  }
}
