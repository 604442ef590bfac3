import { BaseCommand } from '../../../src/cli/base-command';
import type { ScoringRule } from '../../../src/services/risk/rules';
import { getScoringRule } from '../../../src/services/risk/rules';
import { renderScoringRule } from '../../../src/cli/risk/rules';
import { ownedArg } from '../../../src/cli/context';
import { riskScopeFlags } from '../../../src/cli/risk/input';

export default class RiskRulesGet extends BaseCommand<typeof RiskRulesGet> {
  static override summary = 'Show one scoring rule with its conditions.';
  static override examples = [
    '<%= config.bin %> risk rules get 0b9e… --tenant 6f1c…',
    '<%= config.bin %> risk rules get 0b9e… --tenant 6f1c… --json',
  ];
  static override args = { id: ownedArg('scoringRule', { description: 'Scoring rule id', required: true }) };
  static override flags = riskScopeFlags;

  async run(): Promise<ScoringRule> {
    await this.required(this.flags.tenant, 'tenant', 'Tenant id');
    const ctx = await this.scope();
    const rule = await getScoringRule(ctx, this.args.id);
    await this.nameActors(rule);
    this.log(renderScoringRule(rule));
    return rule;
  }
}
