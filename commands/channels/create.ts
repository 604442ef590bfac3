import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { renderRecord } from '../../src/cli/output';
import { validateInput } from '../../src/cli/validate';
import { CreateChannelBody } from '../../src/api/channels/schemas';
import type { Channel } from '../../src/services/channels';
import { createChannel } from '../../src/services/channels';
import { createTenantFlag } from '../../src/cli/flags';
import { atPlatform } from '../../src/cli/context';

export default class ChannelsCreate extends BaseCommand<typeof ChannelsCreate> {
  static override summary = 'Create a processing channel (payin or payout) of a tenant.';
  static override examples = [
    '<%= config.bin %> channels create --tenant 6f1c… --name "EU cards" --direction payin --currency EUR --currency USD',
    '<%= config.bin %> channels create --tenant 6f1c… --name Payouts --direction payout --currency EUR --provider-integration 11aa… --json',
  ];
  static override scopeOf = atPlatform();
  static override flags = {
    ...createTenantFlag,
    name: Flags.string({ description: 'Display name' }),
    direction: Flags.string({ description: 'payin or payout', options: ['payin', 'payout'] }),
    currency: Flags.string({ description: 'ISO 4217 currency (repeatable; at least one)', multiple: true }),
    'provider-integration': Flags.string({ description: 'Provider integration id' }),
    description: Flags.string({ description: 'Description' }),
  };

  async run(): Promise<Channel> {
    const name = await this.required(this.flags.name, 'name', 'Channel name');
    const direction = await this.required(this.flags.direction, 'direction', 'Direction (payin or payout)');
    const currencies = this.flags.currency ?? [await this.required(undefined, 'currency', 'Currency (e.g. EUR)')];
    const ctx = await this.scope();
    const input = await validateInput(
      ctx,
      CreateChannelBody,
      {
        name,
        direction,
        currencies,
        providerIntegrationId: this.flags['provider-integration'],
        description: this.flags.description,
        tenantId: this.flags.tenant,
      },
      { currencies: 'currency', providerIntegrationId: 'provider-integration', tenantId: 'tenant' },
    );
    const channel = await createChannel(ctx, input);
    this.log(
      renderRecord({
        id: channel.id,
        tenant: channel.tenantId,
        name: channel.name,
        direction: channel.direction,
        currencies: channel.currencies,
        status: channel.status,
      }),
    );
    return channel;
  }
}
