import { BaseCommand } from '../../src/cli/base-command';
import { renderRecord } from '../../src/cli/output';
import type { Channel } from '../../src/services/channels';
import { getChannel } from '../../src/services/channels';
import { atPlatform, ownedArg, ownerFlags } from '../../src/cli/context';

export default class ChannelsGet extends BaseCommand<typeof ChannelsGet> {
  static override summary = 'Show one channel.';
  static override examples = ['<%= config.bin %> channels get 6f1c…'];
  static override scopeOf = atPlatform();
  static override args = { id: ownedArg('channel', { description: 'Channel id', required: true }) };
  static override flags = { ...ownerFlags('channel') };

  async run(): Promise<Channel> {
    const ctx = await this.scope();
    const channel = await getChannel(ctx, this.args.id);
    this.log(renderRecord({ ...channel }));
    return channel;
  }
}
