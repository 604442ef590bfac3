import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags } from '../../src/cli/flags';
import type { Channel } from '../../src/services/channels';
import { disableChannel, getChannel } from '../../src/services/channels';
import { platformContext, ownedArg, ownerFlags } from '../../src/cli/context';

export default class ChannelsDisable extends BaseCommand<typeof ChannelsDisable> {
  static override summary = 'Disable a channel.';
  static override examples = ['<%= config.bin %> channels disable 6f1c… --yes'];
  static override args = { id: ownedArg('channel', { description: 'Channel id', required: true }) };
  static override flags = { ...ownerFlags('channel'), yes: sharedFlags.yes };

  async run(): Promise<Channel> {
    await this.confirmAction(this.flags.yes, async () => {
      const channel = await getChannel(platformContext(await this.runtime()), this.args.id);
      return { verb: 'Disable', noun: 'channel', name: channel.name, id: channel.id };
    });
    const rt = await this.runtime();
    const channel = await disableChannel(platformContext(rt), this.args.id);
    this.log(`Channel ${channel.name} (${channel.id}) is now ${channel.status}.`);
    return channel;
  }
}
