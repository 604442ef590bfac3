import { BaseCommand } from '../../src/cli/base-command';
import { validateWith } from '../../src/cli/validate';
import { UpdateIntegrationProfileBody } from '../../src/api/profiles/schemas';
import type { IntegrationProfile } from '../../src/services/profiles';
import { updateProfile } from '../../src/services/profiles';
import { atPlatform, ownedArg, ownerFlags } from '../../src/cli/context';
import { profileFieldFlags, profileFields, profileFlagNames, renderProfile } from '../../src/cli/profiles';

export default class IntegrationProfilesUpdate extends BaseCommand<typeof IntegrationProfilesUpdate> {
  static override summary = 'Change an integration profile (merchant and mode are fixed).';
  static override description =
    '--return-url null and --default-locale null clear those fields; --cascade-policy replaces the whole object.';
  static override examples = [
    '<%= config.bin %> integration-profiles update 6f1c… --status disabled',
    '<%= config.bin %> integration-profiles update 6f1c… --session-lifetime 1800 --cascade-policy \'{"onCodes":["05","51"]}\' --json',
  ];
  static override scopeOf = atPlatform();
  static override args = { id: ownedArg('integrationProfile', { description: 'Integration profile id', required: true }) };
  static override flags = { ...ownerFlags('integrationProfile'), ...profileFieldFlags };

  async run(): Promise<IntegrationProfile> {
    const input = validateWith(UpdateIntegrationProfileBody, profileFields(this.flags), profileFlagNames);
    const ctx = await this.scope();
    const profile = await updateProfile(ctx, this.args.id, input);
    this.log(renderProfile(profile));
    return profile;
  }
}
