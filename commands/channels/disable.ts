import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags } from '../../src/cli/flags';
import type { Channel } from '../../src/services/channels';
import { disableChannel, getChannel } from '../../src/services/channels';
import { atPlatform, ownedArg, ownerFlags } from '../../src/cli/context';

export default class ChannelsDisable extends BaseCommand<typeof ChannelsDisable> {
  static override summary = 'Disable a channel.';
  static override examples = ['<%= config.bin %> channels disable 6f1c… --yes'];
  static override scopeOf = atPlatform();
  static override args = { id: ownedArg('channel', { description: 'Channel id', required: true }) };
  static override flags = { ...ownerFlags('channel'), yes: sharedFlags.yes };

  async run(): Promise<Channel> {
    await this.confirmAction(this.flags.yes, async () => {
      const channel = await getChannel(await this.scope(), this.args.id);
      return { verb: 'Disable', noun: 'channel', name: channel.name, id: channel.id };
    });
    const ctx = await this.scope();
    const channel = await disableChannel(ctx, this.args.id);
    this.log(`Channel ${channel.name} (${channel.id}) is now ${channel.status}.`);
    return channel;
  }
}
