import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { renderRecord } from '../../src/cli/output';
import { validateInput } from '../../src/cli/validate';
import { UpdateChannelBody } from '../../src/api/channels/schemas';
import type { Channel } from '../../src/services/channels';
import { updateChannel } from '../../src/services/channels';
import { nullable } from '../../src/cli/flags';
import { atPlatform, ownedArg, ownerFlags } from '../../src/cli/context';

export default class ChannelsUpdate extends BaseCommand<typeof ChannelsUpdate> {
  static override summary = "Change a channel's name, currencies, provider integration or description (the direction is fixed).";
  static override examples = [
    '<%= config.bin %> channels update 6f1c… --currency EUR --currency GBP',
    '<%= config.bin %> channels update 6f1c… --description null',
  ];
  static override scopeOf = atPlatform();
  static override args = { id: ownedArg('channel', { description: 'Channel id', required: true }) };
  static override flags = {
    ...ownerFlags('channel'),
    name: Flags.string({ description: 'Display name' }),
    currency: Flags.string({ description: 'ISO 4217 currency (repeatable; replaces the list)', multiple: true }),
    'provider-integration': Flags.string({ description: 'Provider integration id ("null" clears it)' }),
    description: Flags.string({ description: 'Description ("null" clears it)' }),
  };

  async run(): Promise<Channel> {
    const ctx = await this.scope();
    const input = await validateInput(
      ctx,
      UpdateChannelBody,
      {
        name: this.flags.name,
        currencies: this.flags.currency,
        providerIntegrationId: nullable(this.flags['provider-integration']),
        description: nullable(this.flags.description),
      },
      { currencies: 'currency', providerIntegrationId: 'provider-integration' },
      { kind: 'channel', id: this.args.id },
    );
    const channel = await updateChannel(ctx, this.args.id, input);
    this.log(renderRecord({ ...channel }));
    return channel;
  }
}
