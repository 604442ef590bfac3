import { BaseCommand } from '../../../src/cli/base-command';
import type { AntifraudPlan } from '../../../src/services/risk/plans';
import { setAntifraudPlanStatus } from '../../../src/services/risk/plans';
import { ownedArg } from '../../../src/cli/context';
import { riskScopeFlags } from '../../../src/cli/risk/input';

export default class RiskPlansEnable extends BaseCommand<typeof RiskPlansEnable> {
  static override summary = 'Enable an antifraud plan (disabled -> enabled): its rules score the next payments.';
  static override description = 'Exit 5 (INVALID_STATE_TRANSITION) when the plan is already enabled.';
  static override examples = [
    '<%= config.bin %> risk plans enable 7a2d… --tenant 6f1c…',
    '<%= config.bin %> risk plans enable 7a2d… --tenant 6f1c… --json',
  ];
  static override args = { id: ownedArg('riskPlan', { description: 'Antifraud plan id', required: true }) };
  static override flags = riskScopeFlags;

  async run(): Promise<AntifraudPlan> {
    await this.required(this.flags.tenant, 'tenant', 'Tenant id');
    const ctx = await this.scope();
    const plan = await setAntifraudPlanStatus(ctx, this.args.id, 'enabled');
    this.log(`Antifraud plan ${plan.name} (${plan.id}) is now ${plan.status}.`);
    return plan;
  }
}
