import { BaseCommand } from '../../../src/cli/base-command';
import type { Limit } from '../../../src/services/limits/manage';
import { createTerminalLimit } from '../../../src/services/processing/terminals/limits';
import { atPlatform, ownedArg, ownerFlags } from '../../../src/cli/context';
import { THRESHOLD_DESCRIPTION, limitFlags, limitInput, renderLimit } from '../../../src/cli/limits';

export default class TerminalLimitsCreate extends BaseCommand<typeof TerminalLimitsCreate> {
  static override summary = 'Create a terminal limit: a cap on volume or count per period.';
  static override description = THRESHOLD_DESCRIPTION;
  static override examples = [
    '<%= config.bin %> terminals limits create 6f1c… --period-unit day --metric volume --threshold 50000.00 --currency EUR',
    '<%= config.bin %> terminals limits create 6f1c… --period-value 10 --period-unit minute --metric count --threshold 100 --json',
  ];
  static override scopeOf = atPlatform();
  static override args = { id: ownedArg('terminal', { description: 'Terminal id', required: true }) };
  static override flags = { ...ownerFlags('terminal'), ...limitFlags };

  async run(): Promise<Limit> {
    const input = await limitInput((v, f, q) => this.required(v, f, q), this.flags);
    const ctx = await this.scope();
    const limit = await createTerminalLimit(ctx, this.args.id, input);
    this.log(renderLimit(limit));
    return limit;
  }
}
