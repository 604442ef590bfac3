import { BaseCommand } from '../../../src/cli/base-command';
import { sharedFlags } from '../../../src/cli/flags';
import type { ScoringRule } from '../../../src/services/risk/rules';
import { deleteScoringRule, getScoringRule } from '../../../src/services/risk/rules';
import { ownedArg } from '../../../src/cli/context';
import { riskScopeFlags } from '../../../src/cli/risk/input';

export default class RiskRulesDelete extends BaseCommand<typeof RiskRulesDelete> {
  static override summary = 'Delete a scoring rule (soft delete): the plans that list it no longer evaluate it.';
  static override examples = [
    '<%= config.bin %> risk rules delete 0b9e… --tenant 6f1c…',
    '<%= config.bin %> risk rules delete 0b9e… --tenant 6f1c… --yes --json',
  ];
  static override args = { id: ownedArg('scoringRule', { description: 'Scoring rule id', required: true }) };
  static override flags = { ...riskScopeFlags, yes: sharedFlags.yes };

  async run(): Promise<ScoringRule> {
    await this.required(this.flags.tenant, 'tenant', 'Tenant id');
    await this.confirmAction(this.flags.yes, async () => {
      const ctx = await this.scope();
      const rule = await getScoringRule(ctx, this.args.id);
      return {
        verb: 'Delete',
        noun: 'scoring rule',
        name: rule.name,
        id: rule.id,
        consequence: 'The plans that list it no longer evaluate it.',
      };
    });
    const ctx = await this.scope();
    const rule = await deleteScoringRule(ctx, this.args.id);
    this.log(`Scoring rule ${rule.name} (${rule.id}) is deleted.`);
    return rule;
  }
}
