import { BaseCommand } from '../../../src/cli/base-command';
import type { AntifraudPlan } from '../../../src/services/risk/plans';
import { getAntifraudPlan } from '../../../src/services/risk/plans';
import { renderAntifraudPlan } from '../../../src/cli/risk/plans';
import { ownedArg } from '../../../src/cli/context';
import { riskScopeFlags } from '../../../src/cli/risk/input';

export default class RiskPlansGet extends BaseCommand<typeof RiskPlansGet> {
  static override summary = 'Show one antifraud plan: its rules, thresholds, merchant and status.';
  static override examples = [
    '<%= config.bin %> risk plans get 7a2d… --tenant 6f1c…',
    '<%= config.bin %> risk plans get 7a2d… --tenant 6f1c… --json',
  ];
  static override args = { id: ownedArg('riskPlan', { description: 'Antifraud plan id', required: true }) };
  static override flags = riskScopeFlags;

  async run(): Promise<AntifraudPlan> {
    await this.required(this.flags.tenant, 'tenant', 'Tenant id');
    const ctx = await this.scope();
    const plan = await getAntifraudPlan(ctx, this.args.id);
    await this.nameActors(plan);
    this.log(renderAntifraudPlan(plan));
    return plan;
  }
}
