import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags } from '../../src/cli/flags';
import type { Withdrawal } from '../../src/services/withdrawals';
import { cancelWithdrawal, getWithdrawal } from '../../src/services/withdrawals';
import { formatMinor } from '../../src/domain/money';
import { recordArg } from '../../src/cli/context';
import { operatorFlags, renderWithdrawal, withdrawalOwnerFlags } from '../../src/cli/withdrawals';

export default class WithdrawalsCancel extends BaseCommand<typeof WithdrawalsCancel> {
  static override summary =
    "Cancel a pending withdrawal on the merchant's behalf (pending → canceled); the held amount and fee return to available.";
  static override description =
    'Emits withdrawal.canceled. 409 INVALID_STATE_TRANSITION (exit 5) once approved or final: reject is for refusing a request, cancel for withdrawing it. Asks for confirmation on a terminal unless --yes.';
  static override examples = [
    '<%= config.bin %> withdrawals cancel 0190a1b2-…',
    '<%= config.bin %> withdrawals cancel 0190a1b2-… --yes --json',
  ];
  static override args = { id: recordArg('withdrawal', { description: 'Withdrawal id', required: true }) };
  static override flags = { yes: sharedFlags.yes, ...withdrawalOwnerFlags, ...operatorFlags };

  async run(): Promise<Withdrawal> {
    const ctx = await this.scope();
    const current = await getWithdrawal(ctx, this.args.id);
    await this.confirmAction(this.flags.yes, {
      verb: 'Cancel',
      noun: 'withdrawal',
      name: `${formatMinor(current.amount)}, ${current.status}`,
      id: current.id,
      consequence: 'The held amount and fee return to available.',
    });
    const withdrawal = await cancelWithdrawal(ctx, this.args.id);
    await this.nameActors(withdrawal);
    this.log(renderWithdrawal(withdrawal));
    return withdrawal;
  }
}
