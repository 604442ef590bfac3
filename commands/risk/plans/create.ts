import { Flags } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import type { AntifraudPlan } from '../../../src/services/risk/plans';
import { CreateAntifraudPlanBody } from '../../../src/api/risk/schemas';
import { createAntifraudPlan } from '../../../src/services/risk/plans';
import { antifraudPlanFields, antifraudPlanFlags, antifraudPlanInput, renderAntifraudPlan } from '../../../src/cli/risk/plans';
import { namingFlags, riskScopeFlags, validateRiskInput } from '../../../src/cli/risk/input';

export default class RiskPlansCreate extends BaseCommand<typeof RiskPlansCreate> {
  static override summary = 'Create an antifraud plan: scoring rules and optional thresholds, for the whole tenant or one merchant.';
  static override description =
    "Created disabled unless --enable. The risk engine evaluates the rules of every enabled plan that applies to a payment's merchant; with several plans, the lowest of each threshold applies (else the tenant's risk configuration).";
  static override examples = [
    '<%= config.bin %> risk plans create --tenant 6f1c… --name Default --rules 0b9e…,3c4d… --enable',
    '<%= config.bin %> risk plans create --tenant 6f1c… --name "Shop X strict" --merchant 9f8e… --rules 0b9e… --challenge-score 30 --decline-score 80 --json',
  ];
  static override flags = {
    ...riskScopeFlags,
    ...antifraudPlanFlags,
    enable: Flags.boolean({ description: 'Enable the plan at once (default: created disabled)', default: false }),
  };

  async run(): Promise<AntifraudPlan> {
    await this.required(this.flags.tenant, 'tenant', 'Tenant id');
    const name = await this.required(this.flags.name, 'name', 'Plan name');
    const ctx = await this.scope();
    const input = await validateRiskInput(
      ctx,
      CreateAntifraudPlanBody,
      { ...antifraudPlanInput(this.flags), name, enabled: this.flags.enable },
      antifraudPlanFields,
    );
    const plan = await namingFlags(antifraudPlanFields, () => createAntifraudPlan(ctx, input));
    await this.nameActors(plan);
    this.log(renderAntifraudPlan(plan));
    return plan;
  }
}
