import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { validateInput } from '../../src/cli/validate';
import { CreateIntegrationProfileBody } from '../../src/api/profiles/schemas';
import type { IntegrationProfile } from '../../src/services/profiles';
import { createProfile } from '../../src/services/profiles';
import { PROFILE_MODES, profileFieldFlags, profileFields, profileFlagNames, renderProfile } from '../../src/cli/profiles';
import { atPlatform } from '../../src/cli/context';

export default class IntegrationProfilesCreate extends BaseCommand<typeof IntegrationProfilesCreate> {
  static override summary = "Create a merchant's integration profile for one mode (one per merchant and mode).";
  static override examples = [
    '<%= config.bin %> integration-profiles create --merchant 6f1c… --mode checkout --session-lifetime 3600',
    '<%= config.bin %> integration-profiles create --merchant 6f1c… --mode api --session-lifetime 900 --cascading --max-decline-attempts 2 --json',
  ];
  static override scopeOf = atPlatform();
  static override flags = {
    merchant: Flags.string({ description: 'Merchant id (the profile belongs to its tenant)' }),
    mode: Flags.string({ description: 'Integration mode', options: PROFILE_MODES }),
    ...profileFieldFlags,
  };

  async run(): Promise<IntegrationProfile> {
    const merchantId = await this.required(this.flags.merchant, 'merchant', 'Merchant id');
    const mode = await this.required(this.flags.mode, 'mode', `Mode (${PROFILE_MODES.join(', ')})`);
    const sessionLifetime =
      this.flags['session-lifetime'] ?? Number(await this.required(undefined, 'session-lifetime', 'Session lifetime in seconds'));
    const ctx = await this.scope();
    const input = await validateInput(
      ctx,
      CreateIntegrationProfileBody,
      { ...profileFields(this.flags), merchantId, mode, sessionLifetime },
      profileFlagNames,
    );
    const profile = await createProfile(ctx, input);
    this.log(renderProfile(profile));
    return profile;
  }
}
