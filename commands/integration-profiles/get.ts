import { BaseCommand } from '../../src/cli/base-command';
import type { IntegrationProfile } from '../../src/services/profiles';
import { getProfile } from '../../src/services/profiles';
import { atPlatform, ownedArg, ownerFlags } from '../../src/cli/context';
import { renderProfile } from '../../src/cli/profiles';

export default class IntegrationProfilesGet extends BaseCommand<typeof IntegrationProfilesGet> {
  static override summary = 'Show one integration profile.';
  static override examples = [
    '<%= config.bin %> integration-profiles get 6f1c…',
    '<%= config.bin %> integration-profiles get 6f1c… --json',
  ];
  static override scopeOf = atPlatform();
  static override args = { id: ownedArg('integrationProfile', { description: 'Integration profile id', required: true }) };
  static override flags = { ...ownerFlags('integrationProfile') };

  async run(): Promise<IntegrationProfile> {
    const ctx = await this.scope();
    const profile = await getProfile(ctx, this.args.id);
    this.log(renderProfile(profile));
    return profile;
  }
}
