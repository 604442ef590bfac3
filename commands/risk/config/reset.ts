import { BaseCommand } from '../../../src/cli/base-command';
import { sharedFlags } from '../../../src/cli/flags';
import type { RiskConfiguration } from '../../../src/services/risk/configuration';
import { resetRiskConfiguration } from '../../../src/services/risk/configuration';
import { renderRiskConfiguration, resetSubject } from '../../../src/cli/risk/configuration';
import { riskTenantFlags } from '../../../src/cli/risk/input';

export default class RiskConfigReset extends BaseCommand<typeof RiskConfigReset> {
  static override summary = "Reset a tenant's risk configuration to the defaults (challenge 50, review none, decline 100, enforce).";
  static override examples = [
    '<%= config.bin %> risk config reset --tenant 6f1c…',
    '<%= config.bin %> risk config reset --tenant 6f1c… --yes --json',
  ];
  static override flags = { ...riskTenantFlags, yes: sharedFlags.yes };

  async run(): Promise<RiskConfiguration> {
    const tenantId = await this.required(this.flags.tenant, 'tenant', 'Tenant id');
    await this.confirmAction(this.flags.yes, async () => {
      await this.scope();
      return resetSubject(await this.runtime(), tenantId);
    });
    const ctx = await this.scope();
    const configuration = await resetRiskConfiguration(ctx);
    await this.nameActors(configuration);
    this.log(renderRiskConfiguration(configuration));
    return configuration;
  }
}
