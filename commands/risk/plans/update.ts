import { BaseCommand } from '../../../src/cli/base-command';
import type { AntifraudPlan } from '../../../src/services/risk/plans';
import { UpdateAntifraudPlanBody } from '../../../src/api/risk/schemas';
import { getAntifraudPlan, updateAntifraudPlan } from '../../../src/services/risk/plans';
import {
  antifraudPlanFields,
  antifraudPlanFlags,
  antifraudPlanInput,
  renderAntifraudPlan,
  thresholdsGiven,
} from '../../../src/cli/risk/plans';
import { namingFlags, riskScopeFlags, validateRiskInput } from '../../../src/cli/risk/input';
import { ownedArg } from '../../../src/cli/context';

export default class RiskPlansUpdate extends BaseCommand<typeof RiskPlansUpdate> {
  static override summary = 'Change an antifraud plan: --rules replaces the list; the score flags change only the thresholds they name.';
  static override examples = [
    '<%= config.bin %> risk plans update 7a2d… --tenant 6f1c… --rules 0b9e…,3c4d…',
    '<%= config.bin %> risk plans update 7a2d… --tenant 6f1c… --decline-score 90 --review-score none --json',
    '<%= config.bin %> risk plans update 7a2d… --tenant 6f1c… --merchant none',
  ];
  static override args = { id: ownedArg('riskPlan', { description: 'Antifraud plan id', required: true }) };
  static override flags = { ...riskScopeFlags, ...antifraudPlanFlags };

  async run(): Promise<AntifraudPlan> {
    await this.required(this.flags.tenant, 'tenant', 'Tenant id');
    const ctx = await this.scope();
    // the API replaces the thresholds as a whole: the ones not named keep their current value
    const current = thresholdsGiven(this.flags) ? (await getAntifraudPlan(ctx, this.args.id)).thresholds : undefined;
    const fields = { ...antifraudPlanFields, '': '--name, --description, --merchant, --rules or a score flag' };
    const input = await validateRiskInput(ctx, UpdateAntifraudPlanBody, antifraudPlanInput(this.flags, current), fields, {
      kind: 'antifraudPlan',
      id: this.args.id,
    });
    const plan = await namingFlags(fields, () => updateAntifraudPlan(ctx, this.args.id, input));
    await this.nameActors(plan);
    this.log(renderAntifraudPlan(plan));
    return plan;
  }
}
