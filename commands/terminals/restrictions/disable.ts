import { Args } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import { sharedFlags } from '../../../src/cli/flags';
import type { TerminalRestriction } from '../../../src/services/processing/terminals';
import { disableRestriction } from '../../../src/services/processing/terminals';
import { platformContext } from '../../../src/cli/context';

export default class RestrictionsDisable extends BaseCommand<typeof RestrictionsDisable> {
  static override summary = 'Disable a terminal restriction.';
  static override examples = ['<%= config.bin %> terminals restrictions disable 6f1c… 9a8b… --yes'];
  static override args = {
    id: Args.string({ description: 'Terminal id', required: true }),
    restriction: Args.string({ description: 'Restriction id', required: true }),
  };
  static override flags = { yes: sharedFlags.yes };

  async run(): Promise<TerminalRestriction> {
    await this.confirm(this.flags.yes, `Disable restriction ${this.args.restriction}?`);
    const rt = await this.runtime();
    const restriction = await disableRestriction(platformContext(rt), this.args.id, this.args.restriction);
    this.log(`Restriction ${restriction.id} is now ${restriction.status}.`);
    return restriction;
  }
}
