import { BaseCommand } from '../../../src/cli/base-command';
import type { ScoringRule } from '../../../src/services/risk/rules';
import { CreateScoringRuleBody } from '../../../src/api/risk/schemas';
import { createScoringRule } from '../../../src/services/risk/rules';
import { namingFlags, riskScopeFlags, validateRiskInput } from '../../../src/cli/risk/input';
import { renderScoringRule, scoringRuleFields, scoringRuleFlags, scoringRuleInput } from '../../../src/cli/risk/rules';

export default class RiskRulesCreate extends BaseCommand<typeof RiskRulesCreate> {
  static override summary = 'Create a scoring rule of a tenant (sandbox, or live with --live).';
  static override description =
    "The rule matches when all its conditions hold (--conditions-json: the API's conditions, e.g. field/operator/value, with an optional aggregation counting the tenant's recent payments); a match adds --score-impact to the score and raises the decision to --signal. It takes effect through the enabled antifraud plans that list it (risk plans create --rules). Signal defaults to allow, priority to 100; the rule is active unless --inactive.";
  static override examples = [
    '<%= config.bin %> risk rules create --tenant 6f1c… --name "Blocked cards" --signal block --score-impact 100 --conditions-json \'[{"field":"card_fingerprint","operator":"in_list","value":"<list group id>"}]\'',
    '<%= config.bin %> risk rules create --tenant 6f1c… --name "Card velocity" --score-impact 30 --priority 10 --conditions-json \'[{"field":"card_fingerprint","operator":"gte","value":"3","aggregation":{"metric":"count","identifier":"card_fingerprint"},"statisticWindow":"10m"}]\' --json',
    '<%= config.bin %> risk rules create --tenant 6f1c… --name "Big amounts" --signal review --score-impact 20 --conditions-json conditions.json',
  ];
  static override flags = { ...riskScopeFlags, ...scoringRuleFlags };

  async run(): Promise<ScoringRule> {
    await this.required(this.flags.tenant, 'tenant', 'Tenant id');
    const name = await this.required(this.flags.name, 'name', 'Rule name');
    const conditions = await this.required(
      this.flags['conditions-json'],
      'conditions-json',
      'Conditions (inline JSON array or a JSON file path)',
    );
    const scoreImpact = this.flags['score-impact'] ?? Number(await this.required(undefined, 'score-impact', 'Score impact (an integer)'));
    const ctx = await this.scope();
    const input = await validateRiskInput(
      ctx,
      CreateScoringRuleBody,
      { ...scoringRuleInput({ ...this.flags, 'conditions-json': conditions }), name, scoreImpact, priority: this.flags.priority ?? 100 },
      scoringRuleFields,
    );
    const rule = await namingFlags(scoringRuleFields, () => createScoringRule(ctx, input));
    await this.nameActors(rule);
    this.log(renderScoringRule(rule));
    return rule;
  }
}
