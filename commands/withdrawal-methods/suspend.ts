import { BaseCommand } from '../../src/cli/base-command';
import { ownedArg } from '../../src/cli/context';
import { sharedFlags } from '../../src/cli/flags';
import type { WithdrawalMethod } from '../../src/services/withdrawal-methods/methods';
import { suspendWithdrawalMethod } from '../../src/services/withdrawal-methods/methods';
import { confirmedContext, methodOwnerFlags, renderMethod } from '../../src/cli/withdrawal-methods';

export default class WithdrawalMethodsSuspend extends BaseCommand<typeof WithdrawalMethodsSuspend> {
  static override summary = 'Suspend a cooling or active withdrawal method: nothing is paid to it until it is reactivated.';
  static override description =
    '409 INVALID_STATE_TRANSITION (exit 5) when already suspended. Asks for confirmation on a terminal unless --yes.';
  static override examples = [
    '<%= config.bin %> withdrawal-methods suspend 0190a1b2-… --tenant 6f1c…',
    '<%= config.bin %> withdrawal-methods suspend 0190a1b2-… --tenant 6f1c… --yes --json',
  ];
  static override args = { id: ownedArg('withdrawalMethod', { description: 'Withdrawal method id', required: true }) };
  static override flags = { ...methodOwnerFlags, yes: sharedFlags.yes };

  async run(): Promise<WithdrawalMethod> {
    const ctx = await confirmedContext(await this.scope(), this.args.id, 'Suspend', (subject) =>
      this.confirmAction(this.flags.yes, subject),
    );
    const method = await suspendWithdrawalMethod(ctx, this.args.id);
    this.log(renderMethod(method));
    return method;
  }
}
