import { Flags } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import { ValidationError } from '../../../src/domain/errors';
import type { RiskConfiguration } from '../../../src/services/risk/configuration';
import { PutRiskConfigurationBody } from '../../../src/api/risk/schemas';
import { getRiskConfiguration, putRiskConfiguration } from '../../../src/services/risk/configuration';
import { namingFlags, riskTenantFlags, scoreFlag, validateRisk } from '../../../src/cli/risk/input';
import { renderRiskConfiguration, riskConfigurationFields } from '../../../src/cli/risk/configuration';

export default class RiskConfigSet extends BaseCommand<typeof RiskConfigSet> {
  static override summary = "Set a tenant's score thresholds and enforcement; the values not given keep their current ones.";
  static override description =
    'A payment whose score reaches --challenge-score is challenged (3DS forced), --review-score held for review (none: no review step), --decline-score declined; challenge and review must not be above decline. --enforcement monitor records decisions without acting on them. Applies to both modes.';
  static override examples = [
    '<%= config.bin %> risk config set --tenant 6f1c… --challenge-score 40 --review-score 70 --decline-score 90',
    '<%= config.bin %> risk config set --tenant 6f1c… --enforcement monitor --json',
    '<%= config.bin %> risk config set --tenant 6f1c… --review-score none',
  ];
  static override flags = {
    ...riskTenantFlags,
    'challenge-score': Flags.string({ description: 'Score at or above which 3DS is forced' }),
    'review-score': Flags.string({ description: 'Score at or above which the payment is held for review ("none": no review step)' }),
    'decline-score': Flags.string({ description: 'Score at or above which the payment is declined' }),
    enforcement: Flags.string({
      description: 'enforce: decisions act; monitor: decisions are only recorded',
      options: ['enforce', 'monitor'],
    }),
  };

  async run(): Promise<RiskConfiguration> {
    await this.required(this.flags.tenant, 'tenant', 'Tenant id');
    const given = {
      challengeScore: scoreFlag(this.flags['challenge-score'], 'challenge-score', false),
      reviewScore: scoreFlag(this.flags['review-score'], 'review-score'),
      declineScore: scoreFlag(this.flags['decline-score'], 'decline-score', false),
      enforcement: this.flags.enforcement,
    };
    if (Object.values(given).every((v) => v === undefined)) {
      throw new ValidationError('Nothing to set.', [
        { path: 'flags', message: 'give at least one of --challenge-score, --review-score, --decline-score, --enforcement' },
      ]);
    }
    const ctx = await this.scope();
    // PUT replaces the whole configuration: start from the one in force
    const { challengeScore, reviewScore, declineScore, enforcement } = await getRiskConfiguration(ctx);
    const merged = {
      challengeScore,
      reviewScore,
      declineScore,
      enforcement,
      ...Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)),
    };
    const input = validateRisk(PutRiskConfigurationBody, merged, riskConfigurationFields);
    const configuration = await namingFlags(riskConfigurationFields, () => putRiskConfiguration(ctx, input));
    await this.nameActors(configuration);
    this.log(renderRiskConfiguration(configuration));
    return configuration;
  }
}
