import { Flags } from '@oclif/core';
import { actorLabel } from '../../src/cli/actors';
import { BaseCommand } from '../../src/cli/base-command';
import { ValidationError } from '../../src/domain/errors';
import type { CallerContext } from '../../src/domain/context';
import type { Withdrawal } from '../../src/services/withdrawals';
import { executeViaProvider } from '../../src/services/withdrawals';
import { type ExecutionOutcome, executeWithOutcome, recordOutcome, startManualExecution } from '../../src/services/withdrawal-execution';
import {
  checkedOutcome,
  operatorFlags,
  promptOutcome,
  renderPayoutOrder,
  renderWithdrawal,
  withdrawalOwnerFlags,
} from '../../src/cli/withdrawals';
import { recordArg } from '../../src/cli/context';
import { isPromptInterrupt } from '../../src/cli/prompts';

export default class WithdrawalsExecute extends BaseCommand<typeof WithdrawalsExecute> {
  static override summary =
    'Execute an approved withdrawal: pay it out by hand and record the result, or send it through the payout provider.';
  static override description = `Starts the execution (approved → executing, recorded as executed by the operator's platform user) or continues one the same operator started; another operator's execution is refused with 409 (exit 5).

On a terminal, without --complete or --fail: shows the amount to pay, the fee, the merchant and the FULL destination (the only place it is shown), then asks whether the payout completed (provider reference, optional comment), failed (comment) or not yet (the withdrawal stays executing; run the command again later).

In a script (no terminal, or --json): --complete --reference R [--comment C] records it as paid out (withdrawal.succeeded); --fail --comment C records the failure, and the amount and fee return to the merchant's available balance (withdrawal.failed). Input is checked before anything changes.

--via-provider sends the payout through the channel's payout provider and records its answer.`;
  static override examples = [
    '<%= config.bin %> withdrawals execute 0190a1b2-…',
    '<%= config.bin %> withdrawals execute 0190a1b2-… --complete --reference "SEPA-2024-000123" --comment "Paid from the EUR account"',
    '<%= config.bin %> withdrawals execute 0190a1b2-… --fail --comment "Bank returned it: account closed" --json',
    '<%= config.bin %> withdrawals execute 0190a1b2-… --via-provider --operator alice',
  ];
  static override args = { id: recordArg('withdrawal', { description: 'Withdrawal id', required: true }) };
  static override flags = {
    complete: Flags.boolean({
      description: 'The payout went out: record it as completed (needs --reference)',
      exclusive: ['fail', 'via-provider'],
    }),
    fail: Flags.boolean({
      description: 'The payout failed: record it as failed (needs --comment)',
      exclusive: ['complete', 'via-provider'],
    }),
    reference: Flags.string({ description: "The payout's reference at the bank or provider (with --complete; optional with --fail)" }),
    comment: Flags.string({ description: 'A comment on the execution (required with --fail: why it failed)' }),
    'via-provider': Flags.boolean({
      description: "Send the payout through the channel's payout provider and record its answer",
      exclusive: ['complete', 'fail', 'reference', 'comment'],
    }),
    ...withdrawalOwnerFlags,
    ...operatorFlags,
  };

  async run(): Promise<Withdrawal> {
    const ctx = await this.scope();
    if (this.flags['via-provider']) return this.viaProvider(ctx, this.args.id);
    const onTerminal = Boolean(process.stdin.isTTY && process.stdout.isTTY) && !this.jsonEnabled();
    if (onTerminal && !this.flags.complete && !this.flags.fail) return this.interactive(ctx, this.args.id);
    // every input is checked before the execution is started: a refused command changes nothing
    const outcome = checkedOutcome(await this.outcomeFromFlags());
    const withdrawal = await executeWithOutcome(ctx, this.args.id, outcome);
    await this.nameActors(withdrawal);
    this.log(renderWithdrawal(withdrawal));
    return withdrawal;
  }

  private async outcomeFromFlags(): Promise<ExecutionOutcome> {
    const { complete, fail, reference, comment } = this.flags;
    if (complete)
      return { outcome: 'complete', providerReference: await this.required(reference, 'reference', 'Provider reference:'), comment };
    if (fail)
      return {
        outcome: 'fail',
        comment: await this.required(comment, 'comment', 'Why did the payout fail?'),
        providerReference: reference,
      };
    throw new ValidationError(
      'Say how the payout went: --complete --reference R, or --fail --comment C (or send it with --via-provider).',
      [{ path: '--complete', message: 'or --fail is required when not on a terminal' }],
      'MISSING_FLAG',
      { hint: 'Pass --complete --reference <reference>, or --fail --comment <why>.' },
    );
  }

  private async viaProvider(ctx: CallerContext, id: string): Promise<Withdrawal> {
    const withdrawal = await executeViaProvider(ctx, id);
    await this.nameActors(withdrawal);
    this.log(renderWithdrawal(withdrawal));
    if (withdrawal.status === 'executing')
      this.log('The provider accepted the payout; its final answer is still to come: the withdrawal stays executing.');
    return withdrawal;
  }

  private async interactive(ctx: CallerContext, id: string): Promise<Withdrawal> {
    const { withdrawal: executing, destination, merchantName } = await startManualExecution(ctx, id);
    await this.nameActors(executing);
    this.log(renderPayoutOrder(executing, merchantName, destination));
    this.log('');
    const stays = `Withdrawal ${id} stays executing (by ${actorLabel(executing.executedBy)}): run \`${this.config.bin} withdrawals execute ${id}\` again as the same operator once you know how the payout went.`;
    const outcome = await promptOutcome({ reference: this.flags.reference, comment: this.flags.comment }).catch((error: unknown) => {
      // Ctrl-C: the execution started above stays; say so before the command ends with 130 (BaseCommand.catch)
      if (isPromptInterrupt(error)) this.logToStderr(stays);
      throw error;
    });
    if (!outcome) {
      this.log(stays);
      return executing;
    }
    const withdrawal = await recordOutcome(ctx, id, checkedOutcome(outcome));
    await this.nameActors(withdrawal);
    this.log(renderWithdrawal(withdrawal));
    return withdrawal;
  }
}
