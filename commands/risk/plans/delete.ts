import { BaseCommand } from '../../../src/cli/base-command';
import { sharedFlags } from '../../../src/cli/flags';
import type { AntifraudPlan } from '../../../src/services/risk/plans';
import { deleteAntifraudPlan, getAntifraudPlan } from '../../../src/services/risk/plans';
import { ownedArg } from '../../../src/cli/context';
import { riskScopeFlags } from '../../../src/cli/risk/input';

export default class RiskPlansDelete extends BaseCommand<typeof RiskPlansDelete> {
  static override summary = 'Delete an antifraud plan (soft delete).';
  static override description =
    'The terminal acts at the tenant level: a plan the platform created (ownerLevel platform) is refused (exit 3, ANTIFRAUD_PLAN_NOT_OWNED).';
  static override examples = [
    '<%= config.bin %> risk plans delete 7a2d… --tenant 6f1c…',
    '<%= config.bin %> risk plans delete 7a2d… --tenant 6f1c… --yes --json',
  ];
  static override args = { id: ownedArg('riskPlan', { description: 'Antifraud plan id', required: true }) };
  static override flags = { ...riskScopeFlags, yes: sharedFlags.yes };

  async run(): Promise<AntifraudPlan> {
    await this.required(this.flags.tenant, 'tenant', 'Tenant id');
    await this.confirmAction(this.flags.yes, async () => {
      const ctx = await this.scope();
      const plan = await getAntifraudPlan(ctx, this.args.id);
      return { verb: 'Delete', noun: 'antifraud plan', name: plan.name, id: plan.id };
    });
    const ctx = await this.scope();
    const plan = await deleteAntifraudPlan(ctx, this.args.id);
    this.log(`Antifraud plan ${plan.name} (${plan.id}) is deleted.`);
    return plan;
  }
}
