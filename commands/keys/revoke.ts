import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags } from '../../src/cli/flags';
import type { ApiKey } from '../../src/services/api-keys/keys';
import { getApiKey, revokeApiKey } from '../../src/services/api-keys/keys';
import { recordArg, recordOwnerFlags } from '../../src/cli/context';

export default class KeysRevoke extends BaseCommand<typeof KeysRevoke> {
  static override summary = 'Revoke an API key for good: it stops authenticating at once.';
  static override examples = ['<%= config.bin %> keys revoke 2d0c…', '<%= config.bin %> keys revoke 2d0c… --yes --json'];
  static override args = { id: recordArg('apiKey', { description: 'API key id', required: true }) };
  static override flags = {
    ...recordOwnerFlags,
    yes: sharedFlags.yes,
  };

  async run(): Promise<ApiKey> {
    await this.confirmAction(this.flags.yes, async () => {
      const key = await getApiKey(await this.scope(), this.args.id);
      return {
        verb: 'Revoke',
        noun: 'API key',
        name: key.name,
        id: key.id,
        consequence: 'It stops authenticating at once. This cannot be undone.',
      };
    });
    const ctx = await this.scope();
    const key = await revokeApiKey(ctx, this.args.id);
    this.log(`Revoked ${key.id} (${key.name}) at ${key.revokedAt}.`);
    return key;
  }
}
