import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import { sharedFlags } from '../../../src/cli/flags';
import { processingServices } from '../../../src/cli/processing-services';
import { processingCtx } from '../../../src/cli/processing-flags';
import { pageFooter, renderLimits } from '../../../src/cli/partners-flags';
import type { Page } from '../../../src/db/scoped';
import type { Limit } from '../../../src/services/limits';

export default class TerminalLimitsList extends BaseCommand<typeof TerminalLimitsList> {
  static override summary = 'List a terminal\'s limits.';
  static override examples = ['<%= config.bin %> terminals limits list 6f1c…', '<%= config.bin %> terminals limits list 6f1c… --status active --json'];
  static override args = { id: Args.string({ description: 'Terminal id', required: true }) };
  static override flags = {
    status: Flags.string({ description: 'Only limits in this status', options: ['active', 'disabled'] }),
    limit: sharedFlags.limit,
    cursor: sharedFlags.cursor,
  };

  async run(): Promise<Page<Limit>> {
    const rt = await this.runtime();
    const page = await processingServices.terminals().listTerminalLimits(
      processingCtx(rt), this.args.id, { status: this.flags.status as Limit['status'] | undefined },
      { limit: this.flags.limit, cursor: this.flags.cursor, sortOrder: 'desc' },
    );
    this.log(renderLimits(page));
    this.log(pageFooter(page));
    return page;
  }
}
