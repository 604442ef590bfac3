import { BaseCommand } from '../../src/cli/base-command';
import type { Withdrawal } from '../../src/services/withdrawals';
import { approveWithdrawal } from '../../src/services/withdrawals';
import { recordArg } from '../../src/cli/context';
import { operatorFlags, renderWithdrawal, withdrawalOwnerFlags } from '../../src/cli/withdrawals';

export default class WithdrawalsApprove extends BaseCommand<typeof WithdrawalsApprove> {
  static override summary = 'Approve a pending withdrawal (pending → approved); an operator then executes it.';
  static override description =
    "Recorded as approved by the operator's platform user (--operator, else PAYPLANE_OPERATOR, else your OS user: externalIdpId os:<name>); emits withdrawal.approved. 409 INVALID_STATE_TRANSITION (exit 5) unless pending. With the tenant's withdrawal maker-checker on, the withdrawal's creator may not approve it (403 MAKER_CHECKER_VIOLATION, exit 3).";
  static override examples = [
    '<%= config.bin %> withdrawals approve 0190a1b2-…',
    '<%= config.bin %> withdrawals approve 0190a1b2-… --operator alice --json',
  ];
  static override args = { id: recordArg('withdrawal', { description: 'Withdrawal id', required: true }) };
  static override flags = { ...withdrawalOwnerFlags, ...operatorFlags };

  async run(): Promise<Withdrawal> {
    const ctx = await this.scope();
    const withdrawal = await approveWithdrawal(ctx, this.args.id);
    await this.nameActors(withdrawal);
    this.log(renderWithdrawal(withdrawal));
    return withdrawal;
  }
}
