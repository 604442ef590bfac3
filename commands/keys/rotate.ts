import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { chalk } from '../../src/cli/output';
import type { IssuedApiKey } from '../../src/services/api-keys/keys';
import { rotateApiKey } from '../../src/services/api-keys/keys';
import { recordArg, recordOwnerFlags } from '../../src/cli/context';

export default class KeysRotate extends BaseCommand<typeof KeysRotate> {
  static override summary = 'Issue a successor key; the old one keeps working for the grace period.';
  static override examples = ['<%= config.bin %> keys rotate 2d0c…', '<%= config.bin %> keys rotate 2d0c… --grace-hours 0 --json'];
  static override args = { id: recordArg('apiKey', { description: 'API key id', required: true }) };
  static override flags = {
    ...recordOwnerFlags,
    'grace-hours': Flags.integer({ description: 'Hours the old key stays active (0 to 720)', default: 24, min: 0, max: 720 }),
  };

  async run(): Promise<IssuedApiKey> {
    const ctx = await this.scope();
    const key = await rotateApiKey(ctx, this.args.id, { graceHours: this.flags['grace-hours'] });
    this.log(`New key ${key.id} replaces ${this.args.id}; the old key stays active for ${this.flags['grace-hours']} h.`);
    this.log(`\n${chalk.bold('Secret key')} (shown once, store it now):\n${key.secretKey}`);
    return key;
  }
}
