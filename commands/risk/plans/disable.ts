import { BaseCommand } from '../../../src/cli/base-command';
import { sharedFlags } from '../../../src/cli/flags';
import type { AntifraudPlan } from '../../../src/services/risk/plans';
import { getAntifraudPlan, setAntifraudPlanStatus } from '../../../src/services/risk/plans';
import { ownedArg } from '../../../src/cli/context';
import { riskScopeFlags } from '../../../src/cli/risk/input';

export default class RiskPlansDisable extends BaseCommand<typeof RiskPlansDisable> {
  static override summary = 'Disable an antifraud plan (enabled -> disabled): its rules stop scoring payments.';
  static override description = 'Exit 5 (INVALID_STATE_TRANSITION) when the plan is already disabled.';
  static override examples = [
    '<%= config.bin %> risk plans disable 7a2d… --tenant 6f1c…',
    '<%= config.bin %> risk plans disable 7a2d… --tenant 6f1c… --yes --json',
  ];
  static override args = { id: ownedArg('riskPlan', { description: 'Antifraud plan id', required: true }) };
  static override flags = { ...riskScopeFlags, yes: sharedFlags.yes };

  async run(): Promise<AntifraudPlan> {
    await this.required(this.flags.tenant, 'tenant', 'Tenant id');
    await this.confirmAction(this.flags.yes, async () => {
      const ctx = await this.scope();
      const plan = await getAntifraudPlan(ctx, this.args.id);
      return { verb: 'Disable', noun: 'antifraud plan', name: plan.name, id: plan.id, consequence: 'Its rules stop scoring payments.' };
    });
    const ctx = await this.scope();
    const plan = await setAntifraudPlanStatus(ctx, this.args.id, 'disabled');
    this.log(`Antifraud plan ${plan.name} (${plan.id}) is now ${plan.status}.`);
    return plan;
  }
}
