import { BaseCommand } from '../../../src/cli/base-command';
import { sharedFlags } from '../../../src/cli/flags';
import type { Limit } from '../../../src/services/limits/manage';
import { disableLimit, getLimit } from '../../../src/services/limits/manage';
import { getChannel } from '../../../src/services/channels';
import { limitLabel } from '../../../src/cli/prompts';
import { atPlatform, ownedArg, ownerFlags } from '../../../src/cli/context';

export default class ChannelLimitsDisable extends BaseCommand<typeof ChannelLimitsDisable> {
  static override summary = 'Disable a channel limit.';
  static override examples = [
    '<%= config.bin %> channels limits disable 6f1c… 9d2e…',
    '<%= config.bin %> channels limits disable 6f1c… 9d2e… --yes --json',
  ];
  static override scopeOf = atPlatform();
  static override args = {
    channel: ownedArg('channel', { description: 'Channel id', required: true }),
    limit: ownedArg('limit', { description: 'Limit id', required: true }),
  };
  static override flags = { ...ownerFlags('channel'), yes: sharedFlags.yes };

  async run(): Promise<Limit> {
    await this.confirmAction(this.flags.yes, async () => {
      const ctx = await this.scope();
      const channel = await getChannel(ctx, this.args.channel);
      const limit = await getLimit(ctx, { entityType: 'channel', entityId: channel.id }, this.args.limit);
      return {
        verb: 'Disable',
        noun: 'limit',
        name: limitLabel(limit),
        id: limit.id,
        of: { noun: 'channel', name: channel.name, id: channel.id },
      };
    });
    const ctx = await this.scope();
    const limit = await disableLimit(ctx, { entityType: 'channel', entityId: this.args.channel }, this.args.limit);
    this.log(`Limit ${limit.id} of channel ${limit.entityId} is now ${limit.status}.`);
    return limit;
  }
}
