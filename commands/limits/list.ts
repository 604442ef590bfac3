import { BaseCommand } from '../../src/cli/base-command';
import { pageFooter, logBesideTable } from '../../src/cli/output';
import { sharedFlags, tableFlags } from '../../src/cli/flags';
import type { Page } from '../../src/db/scoped';
import type { Limit } from '../../src/services/limits/manage';
import { listLimits } from '../../src/services/limits/manage';
import { limitListFlags, limitListQuery, ownerFlags, ownerOf, renderLimits } from '../../src/cli/limits';
import { atPlatform } from '../../src/cli/context';

export default class LimitsList extends BaseCommand<typeof LimitsList> {
  static override summary = 'List the limits of a merchant (--merchant) or of a channel (--channel).';
  static override examples = [
    '<%= config.bin %> limits list --merchant 0b9e…',
    '<%= config.bin %> limits list --channel 6f1c… --status active --json',
    '<%= config.bin %> limits list --merchant 0b9e… --all --json',
  ];
  static override scopeOf = atPlatform();
  static override flags = { ...ownerFlags, ...limitListFlags, all: sharedFlags.all, ...tableFlags };

  async run(): Promise<Page<Limit>> {
    const owner = ownerOf(this.flags);
    const ctx = await this.scope();
    const { filters, page: params } = limitListQuery(this.flags);
    const page = await this.listAll((p) => listLimits(ctx, owner, filters, { ...params, ...p }));
    this.log(renderLimits(page, this.flags));
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
