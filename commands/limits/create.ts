import { BaseCommand } from '../../src/cli/base-command';
import type { Limit } from '../../src/services/limits/manage';
import { createLimit } from '../../src/services/limits/manage';
import { THRESHOLD_DESCRIPTION, limitFlags, limitInput, ownerFlags, ownerOf, renderLimit } from '../../src/cli/limits';
import { atPlatform } from '../../src/cli/context';

export default class LimitsCreate extends BaseCommand<typeof LimitsCreate> {
  static override summary = 'Create a limit of a merchant (--merchant) or of a channel (--channel): a cap on volume or count per period.';
  static override description = `${THRESHOLD_DESCRIPTION} --payment-method, --brand, --currency and --transaction-type (default payment) narrow what is counted.`;
  static override examples = [
    '<%= config.bin %> limits create --merchant 0b9e… --period-unit month --metric volume --threshold 1000000.00 --currency EUR',
    '<%= config.bin %> limits create --channel 6f1c… --period-value 1 --period-unit hour --metric count --threshold 500 --json',
  ];
  static override scopeOf = atPlatform();
  static override flags = { ...ownerFlags, ...limitFlags };

  async run(): Promise<Limit> {
    const owner = ownerOf(this.flags);
    const input = await limitInput((v, f, q) => this.required(v, f, q), this.flags);
    const ctx = await this.scope();
    const limit = await createLimit(ctx, { ...input, ...owner });
    this.log(renderLimit(limit));
    return limit;
  }
}
