import { BaseCommand } from '../../../src/cli/base-command';
import { pageFooter, logBesideTable } from '../../../src/cli/output';
import { sharedFlags, tableFlags } from '../../../src/cli/flags';
import type { Page } from '../../../src/db/scoped';
import type { Limit } from '../../../src/services/limits/manage';
import { listLimits } from '../../../src/services/limits/manage';
import { limitListFlags, limitListQuery, renderLimits } from '../../../src/cli/limits';
import { atPlatform, ownedArg, ownerFlags } from '../../../src/cli/context';

export default class ChannelLimitsList extends BaseCommand<typeof ChannelLimitsList> {
  static override summary = "List a channel's limits.";
  static override examples = [
    '<%= config.bin %> channels limits list 6f1c…',
    '<%= config.bin %> channels limits list 6f1c… --status active --json',
    '<%= config.bin %> channels limits list 6f1c… --all --json',
  ];
  static override scopeOf = atPlatform();
  static override args = { channel: ownedArg('channel', { description: 'Channel id', required: true }) };
  static override flags = { ...ownerFlags('channel'), ...limitListFlags, all: sharedFlags.all, ...tableFlags };

  async run(): Promise<Page<Limit>> {
    const ctx = await this.scope();
    const { filters, page: params } = limitListQuery(this.flags);
    const page = await this.listAll((p) =>
      listLimits(ctx, { entityType: 'channel', entityId: this.args.channel }, filters, { ...params, ...p }),
    );
    this.log(renderLimits(page, this.flags));
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
