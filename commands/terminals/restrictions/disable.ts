import { BaseCommand } from '../../../src/cli/base-command';
import { sharedFlags } from '../../../src/cli/flags';
import type { TerminalRestriction } from '../../../src/services/processing/terminals/restrictions';
import { disableRestriction, getRestriction } from '../../../src/services/processing/terminals/restrictions';
import { getTerminal } from '../../../src/services/processing/terminals/terminals';
import { restrictionLabel } from '../../../src/cli/prompts';
import { atPlatform, ownedArg, ownerFlags } from '../../../src/cli/context';

export default class RestrictionsDisable extends BaseCommand<typeof RestrictionsDisable> {
  static override summary = 'Disable a terminal restriction.';
  static override examples = ['<%= config.bin %> terminals restrictions disable 6f1c… 9a8b… --yes'];
  static override scopeOf = atPlatform();
  static override args = {
    id: ownedArg('terminal', { description: 'Terminal id', required: true }),
    restriction: ownedArg('restriction', { description: 'Restriction id', required: true }),
  };
  static override flags = { ...ownerFlags('terminal'), yes: sharedFlags.yes };

  async run(): Promise<TerminalRestriction> {
    await this.confirmAction(this.flags.yes, async () => {
      const ctx = await this.scope();
      const terminal = await getTerminal(ctx, this.args.id);
      const restriction = await getRestriction(ctx, terminal.id, this.args.restriction);
      return {
        verb: 'Disable',
        noun: 'restriction',
        name: restrictionLabel(restriction),
        id: restriction.id,
        of: { noun: 'terminal', name: terminal.name, id: terminal.id },
      };
    });
    const ctx = await this.scope();
    const restriction = await disableRestriction(ctx, this.args.id, this.args.restriction);
    this.log(`Restriction ${restriction.id} is now ${restriction.status}.`);
    return restriction;
  }
}
