import { BaseCommand } from '../../../src/cli/base-command';
import type { RiskConfiguration } from '../../../src/services/risk/configuration';
import { getRiskConfiguration } from '../../../src/services/risk/configuration';
import { renderRiskConfiguration } from '../../../src/cli/risk/configuration';
import { riskTenantFlags } from '../../../src/cli/risk/input';

export default class RiskConfigGet extends BaseCommand<typeof RiskConfigGet> {
  static override summary = "Show a tenant's risk configuration (score thresholds and enforcement; the defaults when it set none).";
  static override description = 'One configuration per tenant for both modes. Defaults: challenge 50, review none, decline 100, enforce.';
  static override examples = [
    '<%= config.bin %> risk config get --tenant 6f1c…',
    '<%= config.bin %> risk config get --tenant 6f1c… --json',
  ];
  static override flags = riskTenantFlags;

  async run(): Promise<RiskConfiguration> {
    await this.required(this.flags.tenant, 'tenant', 'Tenant id');
    const ctx = await this.scope();
    const configuration = await getRiskConfiguration(ctx);
    await this.nameActors(configuration);
    this.log(renderRiskConfiguration(configuration));
    return configuration;
  }
}
