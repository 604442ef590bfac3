import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { validateWith } from '../../src/cli/validate';
import type { Withdrawal } from '../../src/services/withdrawals';
import { RejectWithdrawalBody } from '../../src/api/withdrawals/schemas';
import { rejectWithdrawal } from '../../src/services/withdrawals';
import { recordArg } from '../../src/cli/context';
import { operatorFlags, renderWithdrawal, withdrawalOwnerFlags } from '../../src/cli/withdrawals';

export default class WithdrawalsReject extends BaseCommand<typeof WithdrawalsReject> {
  static override summary = 'Reject a pending withdrawal with a reason (pending → rejected); the held amount and fee return to available.';
  static override description =
    'The reason is mandatory: asked on a terminal when --reason is missing, an error naming --reason otherwise (exit 2). Emits withdrawal.rejected with rejectionReason. 409 INVALID_STATE_TRANSITION (exit 5) unless pending.';
  static override examples = [
    '<%= config.bin %> withdrawals reject 0190a1b2-… --reason "Destination account not verified"',
    '<%= config.bin %> withdrawals reject 0190a1b2-… --reason "Duplicate request" --operator alice --json',
  ];
  static override args = { id: recordArg('withdrawal', { description: 'Withdrawal id', required: true }) };
  static override flags = {
    reason: Flags.string({ description: 'Why the withdrawal is rejected (shown to the merchant as rejectionReason)' }),
    ...withdrawalOwnerFlags,
    ...operatorFlags,
  };

  async run(): Promise<Withdrawal> {
    const ctx = await this.scope();
    const reason = await this.required(this.flags.reason, 'reason', 'Why is the withdrawal rejected?');
    const body = validateWith(RejectWithdrawalBody, { rejectionReason: reason }, { rejectionReason: 'reason' });
    const withdrawal = await rejectWithdrawal(ctx, this.args.id, body);
    await this.nameActors(withdrawal);
    this.log(renderWithdrawal(withdrawal));
    return withdrawal;
  }
}
