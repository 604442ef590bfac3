import { BaseCommand } from '../../../src/cli/base-command';
import type { Limit } from '../../../src/services/limits/manage';
import { createLimit } from '../../../src/services/limits/manage';
import { THRESHOLD_DESCRIPTION, limitFlags, limitInput, renderLimit } from '../../../src/cli/limits';
import { atPlatform, ownedArg, ownerFlags } from '../../../src/cli/context';

export default class ChannelLimitsCreate extends BaseCommand<typeof ChannelLimitsCreate> {
  static override summary = 'Create a channel limit: a cap on volume or count per period.';
  static override description = THRESHOLD_DESCRIPTION;
  static override examples = [
    '<%= config.bin %> channels limits create 6f1c… --period-unit day --metric volume --threshold 50000.00 --currency EUR',
    '<%= config.bin %> channels limits create 6f1c… --period-value 10 --period-unit minute --metric count --threshold 100 --brand visa --json',
  ];
  static override scopeOf = atPlatform();
  static override args = { channel: ownedArg('channel', { description: 'Channel id', required: true }) };
  static override flags = { ...ownerFlags('channel'), ...limitFlags };

  async run(): Promise<Limit> {
    const input = await limitInput((v, f, q) => this.required(v, f, q), this.flags);
    const ctx = await this.scope();
    const limit = await createLimit(ctx, { ...input, entityType: 'channel', entityId: this.args.channel });
    this.log(renderLimit(limit));
    return limit;
  }
}
