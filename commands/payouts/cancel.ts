import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags } from '../../src/cli/flags';
import type { Payout } from '../../src/services/payouts/payouts';
import { cancelPayout, getPayout } from '../../src/services/payouts/payouts';
import { formatMinor } from '../../src/domain/money';
import { recordArg } from '../../src/cli/context';
import { operatorFlags } from '../../src/cli/withdrawals';
import { payoutOwnerFlags, renderPayout } from '../../src/cli/payouts';

export default class PayoutsCancel extends BaseCommand<typeof PayoutsCancel> {
  static override summary =
    "Cancel a pending payout as its tenant's operator (pending → canceled); its amount and fee return to available.";
  static override description =
    'Only a pending payout not yet handed to the payout provider: 409 INVALID_STATE_TRANSITION (exit 5) otherwise, PAYOUT_BEING_SENT while the provider has it. The period stays used: the schedule makes no second payout in it. Asks for confirmation on a terminal unless --yes.';
  static override examples = [
    '<%= config.bin %> payouts cancel 0190a1b2-…',
    '<%= config.bin %> payouts cancel 0190a1b2-… --tenant 6f1c… --yes --json',
  ];
  static override args = { id: recordArg('payout', { description: 'Payout id', required: true }) };
  static override flags = { yes: sharedFlags.yes, ...payoutOwnerFlags, ...operatorFlags };

  async run(): Promise<Payout> {
    const ctx = await this.scope();
    const current = await getPayout(ctx, this.args.id);
    await this.confirmAction(this.flags.yes, {
      verb: 'Cancel',
      noun: 'payout',
      name: `${formatMinor(current.amount)}, ${current.status}`,
      id: current.id,
      consequence: 'Its amount and fee return to available.',
    });
    const payout = await cancelPayout(ctx, this.args.id);
    this.log(renderPayout(payout));
    return payout;
  }
}
