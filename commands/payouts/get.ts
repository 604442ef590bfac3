import { BaseCommand } from '../../src/cli/base-command';
import type { Payout } from '../../src/services/payouts/payouts';
import { getPayout } from '../../src/services/payouts/payouts';
import { recordArg } from '../../src/cli/context';
import { payoutOwnerFlags, renderPayout } from '../../src/cli/payouts';

export default class PayoutsGet extends BaseCommand<typeof PayoutsGet> {
  static override summary = 'Show a payout: amount, fee, status, masked destination, arrival date and provider reference.';
  static override description =
    "Found by id in either mode; read as its tenant's operator (the fee split is included with --json). The destination is masked as in every read.";
  static override examples = ['<%= config.bin %> payouts get 0190a1b2-…', '<%= config.bin %> payouts get 0190a1b2-… --tenant 6f1c… --json'];
  static override args = { id: recordArg('payout', { description: 'Payout id', required: true }) };
  static override flags = { ...payoutOwnerFlags };

  async run(): Promise<Payout> {
    const ctx = await this.scope();
    const payout = await getPayout(ctx, this.args.id);
    this.log(renderPayout(payout));
    return payout;
  }
}
