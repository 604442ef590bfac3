import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { renderRecord } from '../../src/cli/output';
import { validateWith } from '../../src/cli/validate';
import { PutThreeDsConfigBody } from '../../src/api/organization/schemas';
import type { MerchantThreeDsConfig } from '../../src/db/models';
import { ValidationError } from '../../src/domain/errors';
import { getThreeDsConfig, putThreeDsConfig } from '../../src/services/organization/merchants';
import { recordArg, recordOwnerFlags } from '../../src/cli/context';

export default class MerchantsThreeDsConfig extends BaseCommand<typeof MerchantsThreeDsConfig> {
  static override summary = "Show the merchant's 3DS configuration, or replace it with --enable/--disable.";
  static override examples = [
    '<%= config.bin %> merchants 3ds-config 0b9e…',
    '<%= config.bin %> merchants 3ds-config 0b9e… --enable --challenge-preference challenge_requested --exemption low_value',
  ];
  static override args = { id: recordArg('merchant', { description: 'Merchant id', required: true }) };
  static override flags = {
    ...recordOwnerFlags,
    enable: Flags.boolean({ description: 'Replace the configuration: 3DS enabled', exclusive: ['disable'] }),
    disable: Flags.boolean({ description: 'Replace the configuration: 3DS disabled', exclusive: ['enable'] }),
    'challenge-preference': Flags.string({
      description: 'Challenge preference (with --enable/--disable; default no_preference)',
      options: ['no_preference', 'no_challenge', 'challenge_requested', 'challenge_mandated'],
    }),
    exemption: Flags.string({
      description: 'SCA exemption to ask for (repeatable; with --enable/--disable)',
      multiple: true,
      options: ['low_value', 'transaction_risk_analysis', 'trusted_beneficiary', 'recurring', 'secure_corporate'],
    }),
  };

  async run(): Promise<MerchantThreeDsConfig> {
    const setting = this.flags.enable || this.flags.disable;
    const input = setting
      ? validateWith(
          PutThreeDsConfigBody,
          {
            enabled: Boolean(this.flags.enable),
            challengePreference: this.flags['challenge-preference'],
            exemptions: this.flags.exemption,
          },
          { exemptions: 'exemption', enabled: 'enable' },
        )
      : undefined;
    if (!setting && (this.flags['challenge-preference'] || this.flags.exemption)) {
      throw ValidationError.field('--enable', 'or --disable is required to replace the configuration');
    }
    const ctx = await this.scope();
    const config = input ? (await putThreeDsConfig(ctx, this.args.id, input)).threeDsConfig : await getThreeDsConfig(ctx, this.args.id);
    this.log(renderRecord({ ...config }));
    return config;
  }
}
