import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import { sharedFlags } from '../../../src/cli/flags';
import { partnerServices } from '../../../src/cli/partners-services';
import { pageFooter, platformCtx, renderLimits } from '../../../src/cli/partners-flags';
import type { Page } from '../../../src/db/scoped';
import type { Limit } from '../../../src/services/limits';

export default class ChannelLimitsList extends BaseCommand<typeof ChannelLimitsList> {
  static override summary = 'List a channel\'s limits.';
  static override examples = ['<%= config.bin %> channels limits list 6f1c…', '<%= config.bin %> channels limits list 6f1c… --status active --json'];
  static override args = { channel: Args.string({ description: 'Channel id', required: true }) };
  static override flags = {
    status: Flags.string({ description: 'Only limits in this status', options: ['active', 'disabled'] }),
    limit: sharedFlags.limit,
    cursor: sharedFlags.cursor,
  };

  async run(): Promise<Page<Limit>> {
    const rt = await this.runtime();
    const page = await partnerServices.limits().listLimits(
      platformCtx(rt),
      { entityType: 'channel', entityId: this.args.channel },
      { status: this.flags.status as Limit['status'] | undefined },
      { limit: this.flags.limit, cursor: this.flags.cursor, sortOrder: 'desc' },
    );
    this.log(renderLimits(page));
    this.log(pageFooter(page));
    return page;
  }
}
