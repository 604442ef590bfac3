import { BaseCommand } from '../../src/cli/base-command';
import type { Terminal } from '../../src/services/processing/terminals/record';
import { getTerminal } from '../../src/services/processing/terminals/terminals';
import { atPlatform, ownedArg, ownerFlags } from '../../src/cli/context';
import { renderTerminal } from '../../src/cli/processing';

export default class TerminalsGet extends BaseCommand<typeof TerminalsGet> {
  static override summary = 'Show a terminal (never its credentials: only the credential binding id).';
  static override examples = ['<%= config.bin %> terminals get 6f1c…', '<%= config.bin %> terminals get 6f1c… --json'];
  static override scopeOf = atPlatform();
  static override args = { id: ownedArg('terminal', { description: 'Terminal id', required: true }) };
  static override flags = { ...ownerFlags('terminal') };

  async run(): Promise<Terminal> {
    const ctx = await this.scope();
    const terminal = await getTerminal(ctx, this.args.id);
    this.log(renderTerminal(terminal));
    return terminal;
  }
}
