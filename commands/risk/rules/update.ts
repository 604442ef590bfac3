import { BaseCommand } from '../../../src/cli/base-command';
import type { ScoringRule } from '../../../src/services/risk/rules';
import { UpdateScoringRuleBody } from '../../../src/api/risk/schemas';
import { updateScoringRule } from '../../../src/services/risk/rules';
import { namingFlags, riskScopeFlags, validateRisk } from '../../../src/cli/risk/input';
import { renderScoringRule, scoringRuleFields, scoringRuleFlags, scoringRuleInput } from '../../../src/cli/risk/rules';
import { ownedArg } from '../../../src/cli/context';

export default class RiskRulesUpdate extends BaseCommand<typeof RiskRulesUpdate> {
  static override summary = 'Change a scoring rule: the fields given replace the stored ones (--conditions-json the whole list).';
  static override examples = [
    '<%= config.bin %> risk rules update 0b9e… --tenant 6f1c… --score-impact 60 --priority 5',
    '<%= config.bin %> risk rules update 0b9e… --tenant 6f1c… --inactive --json',
    '<%= config.bin %> risk rules update 0b9e… --tenant 6f1c… --conditions-json conditions.json --description none',
  ];
  static override args = { id: ownedArg('scoringRule', { description: 'Scoring rule id', required: true }) };
  static override flags = { ...riskScopeFlags, ...scoringRuleFlags };

  async run(): Promise<ScoringRule> {
    await this.required(this.flags.tenant, 'tenant', 'Tenant id');
    const fields = {
      ...scoringRuleFields,
      '': '--name, --description, --signal, --score-impact, --priority, --conditions-json, --active or --inactive',
    };
    const input = validateRisk(UpdateScoringRuleBody, scoringRuleInput(this.flags), fields);
    const ctx = await this.scope();
    const rule = await namingFlags(fields, () => updateScoringRule(ctx, this.args.id, input));
    await this.nameActors(rule);
    this.log(renderScoringRule(rule));
    return rule;
  }
}
