import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { listFlags, sharedFlags, tableFlags } from '../../src/cli/flags';
import { pageFooter, renderTable, statusColour, logBesideTable } from '../../src/cli/output';
import type { Page } from '../../src/db/scoped';
import type { Channel } from '../../src/services/channels';
import { listChannels } from '../../src/services/channels';
import { atPlatform } from '../../src/cli/context';
import { validateInput } from '../../src/cli/validate';
import { ListChannelsQuery } from '../../src/api/channels/schemas';

export default class ChannelsList extends BaseCommand<typeof ChannelsList> {
  static override summary = 'List processing channels, of one tenant or of all.';
  static override examples = [
    '<%= config.bin %> channels list --tenant 6f1c…',
    '<%= config.bin %> channels list --direction payout --json',
    '<%= config.bin %> channels list --tenant 6f1c… --all --json',
  ];
  static override scopeOf = atPlatform();
  static override flags = {
    ...listFlags,
    all: sharedFlags.all,
    direction: Flags.string({ description: 'Only channels of this direction', options: ['payin', 'payout'] }),
    status: Flags.string({ description: 'Only channels in this status', options: ['active', 'disabled'] }),
    ...tableFlags,
  };

  async run(): Promise<Page<Channel>> {
    const ctx = await this.scope();
    const filters = await validateInput(
      ctx,
      ListChannelsQuery.pick({ tenantId: true }),
      { tenantId: this.flags.tenant },
      { tenantId: 'tenant' },
    );
    const page = await this.listAll((p) =>
      listChannels(
        ctx,
        {
          tenantId: filters.tenantId,
          direction: this.flags.direction as Channel['direction'] | undefined,
          status: this.flags.status as Channel['status'] | undefined,
        },
        { ...p, sortOrder: 'desc' },
      ),
    );
    this.log(
      renderTable(
        page.data,
        [
          { header: 'ID', get: (c) => c.id },
          { header: 'Tenant', get: (c) => c.tenantId },
          { header: 'Name', get: (c) => c.name },
          { header: 'Direction', get: (c) => c.direction },
          { header: 'Currencies', get: (c) => c.currencies },
          { header: 'Status', get: (c) => statusColour(c.status) },
        ],
        this.flags,
      ),
    );
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
