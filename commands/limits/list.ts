import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags } from '../../src/cli/flags';
import { partnerServices } from '../../src/cli/partners-services';
import { ownerFlags, ownerOf, pageFooter, platformCtx, renderLimits } from '../../src/cli/partners-flags';
import type { Page } from '../../src/db/scoped';
import type { Limit } from '../../src/services/limits';

export default class LimitsList extends BaseCommand<typeof LimitsList> {
  static override summary = 'List the limits of a merchant (--merchant) or of a channel (--channel).';
  static override examples = ['<%= config.bin %> limits list --merchant 0b9e…', '<%= config.bin %> limits list --channel 6f1c… --status active --json'];
  static override flags = {
    ...ownerFlags,
    status: Flags.string({ description: 'Only limits in this status', options: ['active', 'disabled'] }),
    limit: sharedFlags.limit,
    cursor: sharedFlags.cursor,
  };

  async run(): Promise<Page<Limit>> {
    const owner = ownerOf(this.flags);
    const rt = await this.runtime();
    const page = await partnerServices.limits().listLimits(
      platformCtx(rt), owner, { status: this.flags.status as Limit['status'] | undefined },
      { limit: this.flags.limit, cursor: this.flags.cursor, sortOrder: 'desc' },
    );
    this.log(renderLimits(page));
    this.log(pageFooter(page));
    return page;
  }
}
