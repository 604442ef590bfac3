import { BaseCommand } from '../../../src/cli/base-command';
import { sharedFlags } from '../../../src/cli/flags';
import type { Limit } from '../../../src/services/limits/manage';
import { disableTerminalLimit } from '../../../src/services/processing/terminals/limits';
import { getTerminal } from '../../../src/services/processing/terminals/terminals';
import { getLimit } from '../../../src/services/limits/manage';
import { limitLabel } from '../../../src/cli/prompts';
import { atPlatform, ownedArg, ownerFlags } from '../../../src/cli/context';

export default class TerminalLimitsDisable extends BaseCommand<typeof TerminalLimitsDisable> {
  static override summary = 'Disable a terminal limit.';
  static override examples = ['<%= config.bin %> terminals limits disable 6f1c… 9a8b… --yes'];
  static override scopeOf = atPlatform();
  static override args = {
    id: ownedArg('terminal', { description: 'Terminal id', required: true }),
    limit: ownedArg('limit', { description: 'Limit id', required: true }),
  };
  static override flags = { ...ownerFlags('terminal'), yes: sharedFlags.yes };

  async run(): Promise<Limit> {
    await this.confirmAction(this.flags.yes, async () => {
      const ctx = await this.scope();
      const terminal = await getTerminal(ctx, this.args.id);
      const limit = await getLimit(ctx, { entityType: 'terminal', entityId: terminal.id }, this.args.limit);
      return {
        verb: 'Disable',
        noun: 'limit',
        name: limitLabel(limit),
        id: limit.id,
        of: { noun: 'terminal', name: terminal.name, id: terminal.id },
      };
    });
    const ctx = await this.scope();
    const limit = await disableTerminalLimit(ctx, this.args.id, this.args.limit);
    this.log(`Limit ${limit.id} is now ${limit.status}.`);
    return limit;
  }
}
