import { BaseCommand } from '../../../src/cli/base-command';
import { pageFooter, logBesideTable } from '../../../src/cli/output';
import { sharedFlags, tableFlags } from '../../../src/cli/flags';
import type { Page } from '../../../src/db/scoped';
import type { Limit } from '../../../src/services/limits/manage';
import { listTerminalLimits } from '../../../src/services/processing/terminals/limits';
import { atPlatform, ownedArg, ownerFlags } from '../../../src/cli/context';
import { limitListFlags, limitListQuery, renderLimits } from '../../../src/cli/limits';

export default class TerminalLimitsList extends BaseCommand<typeof TerminalLimitsList> {
  static override summary = "List a terminal's limits.";
  static override examples = [
    '<%= config.bin %> terminals limits list 6f1c…',
    '<%= config.bin %> terminals limits list 6f1c… --status active --json',
    '<%= config.bin %> terminals limits list 6f1c… --all --json',
  ];
  static override scopeOf = atPlatform();
  static override args = { id: ownedArg('terminal', { description: 'Terminal id', required: true }) };
  static override flags = { ...ownerFlags('terminal'), ...limitListFlags, all: sharedFlags.all, ...tableFlags };

  async run(): Promise<Page<Limit>> {
    const ctx = await this.scope();
    const { filters, page: params } = limitListQuery(this.flags);
    const page = await this.listAll((p) => listTerminalLimits(ctx, this.args.id, filters, { ...params, ...p }));
    this.log(renderLimits(page, this.flags));
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
