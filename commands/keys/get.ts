import { BaseCommand } from '../../src/cli/base-command';
import { renderRecord } from '../../src/cli/output';
import type { ApiKey } from '../../src/services/api-keys/keys';
import { getApiKey } from '../../src/services/api-keys/keys';
import { recordArg, recordOwnerFlags } from '../../src/cli/context';

export default class KeysGet extends BaseCommand<typeof KeysGet> {
  static override summary = 'Show one API key (never its secret).';
  static override examples = ['<%= config.bin %> keys get 2d0c…', '<%= config.bin %> keys get 2d0c… --json'];
  static override args = { id: recordArg('apiKey', { description: 'API key id', required: true }) };
  static override flags = { ...recordOwnerFlags };

  async run(): Promise<ApiKey> {
    const ctx = await this.scope();
    const key = await getApiKey(ctx, this.args.id);
    this.log(renderRecord({ ...key, owner: key.owner.type === 'merchant' ? `merchant ${key.owner.merchantId}` : 'tenant' }));
    return key;
  }
}
