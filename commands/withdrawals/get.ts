import { BaseCommand } from '../../src/cli/base-command';
import type { Withdrawal } from '../../src/services/withdrawals';
import { getWithdrawal } from '../../src/services/withdrawals';
import { recordArg } from '../../src/cli/context';
import { operatorFlags, renderWithdrawal, withdrawalOwnerFlags } from '../../src/cli/withdrawals';

export default class WithdrawalsGet extends BaseCommand<typeof WithdrawalsGet> {
  static override summary = 'Show a withdrawal: amount, fee, masked destination, provider reference and who moved it when.';
  static override description =
    "Found by id in either mode; read as its tenant's operator (the provider reference and fee split are included). The destination is masked as in every read.";
  static override examples = [
    '<%= config.bin %> withdrawals get 0190a1b2-…',
    '<%= config.bin %> withdrawals get 0190a1b2-… --tenant 6f1c… --json',
  ];
  static override args = { id: recordArg('withdrawal', { description: 'Withdrawal id', required: true }) };
  static override flags = { ...withdrawalOwnerFlags, ...operatorFlags };

  async run(): Promise<Withdrawal> {
    const ctx = await this.scope();
    const withdrawal = await getWithdrawal(ctx, this.args.id);
    await this.nameActors(withdrawal);
    this.log(renderWithdrawal(withdrawal));
    return withdrawal;
  }
}
