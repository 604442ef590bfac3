import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags } from '../../src/cli/flags';
import type { Terminal } from '../../src/services/processing/terminals/record';
import { disableTerminal, getTerminal } from '../../src/services/processing/terminals/terminals';
import { atPlatform, ownedArg, ownerFlags } from '../../src/cli/context';

export default class TerminalsDisable extends BaseCommand<typeof TerminalsDisable> {
  static override summary = 'Disable a terminal (it becomes read-only).';
  static override examples = ['<%= config.bin %> terminals disable 6f1c… --yes'];
  static override scopeOf = atPlatform();
  static override args = { id: ownedArg('terminal', { description: 'Terminal id', required: true }) };
  static override flags = { ...ownerFlags('terminal'), yes: sharedFlags.yes };

  async run(): Promise<Terminal> {
    await this.confirmAction(this.flags.yes, async () => {
      const terminal = await getTerminal(await this.scope(), this.args.id);
      return { verb: 'Disable', noun: 'terminal', name: terminal.name, id: terminal.id, consequence: 'It becomes read-only.' };
    });
    const ctx = await this.scope();
    const terminal = await disableTerminal(ctx, this.args.id);
    this.log(`Terminal ${terminal.name} (${terminal.id}) is now ${terminal.status}.`);
    return terminal;
  }
}
