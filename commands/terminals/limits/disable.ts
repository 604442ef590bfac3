import { Args } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import { sharedFlags } from '../../../src/cli/flags';
import type { Limit } from '../../../src/services/limits/manage';
import { disableTerminalLimit } from '../../../src/services/processing/terminals';
import { platformContext } from '../../../src/cli/context';

export default class TerminalLimitsDisable extends BaseCommand<typeof TerminalLimitsDisable> {
  static override summary = 'Disable a terminal limit.';
  static override examples = ['<%= config.bin %> terminals limits disable 6f1c… 9a8b… --yes'];
  static override args = {
    id: Args.string({ description: 'Terminal id', required: true }),
    limit: Args.string({ description: 'Limit id', required: true }),
  };
  static override flags = { yes: sharedFlags.yes };

  async run(): Promise<Limit> {
    await this.confirm(this.flags.yes, `Disable limit ${this.args.limit}?`);
    const rt = await this.runtime();
    const limit = await disableTerminalLimit(platformContext(rt), this.args.id, this.args.limit);
    this.log(`Limit ${limit.id} is now ${limit.status}.`);
    return limit;
  }
}
