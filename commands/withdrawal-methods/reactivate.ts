import { BaseCommand } from '../../src/cli/base-command';
import type { WithdrawalMethod } from '../../src/services/withdrawal-methods/methods';
import { reactivateWithdrawalMethod } from '../../src/services/withdrawal-methods/methods';
import { methodOwnerFlags, renderMethod } from '../../src/cli/withdrawal-methods';
import { ownedArg } from '../../src/cli/context';

export default class WithdrawalMethodsReactivate extends BaseCommand<typeof WithdrawalMethodsReactivate> {
  static override summary = 'Reactivate a suspended withdrawal method.';
  static override description =
    'suspended → active, or back to cooling when its cooling period has not ended yet (a suspension never shortens cooling). 409 INVALID_STATE_TRANSITION (exit 5) unless suspended.';
  static override examples = [
    '<%= config.bin %> withdrawal-methods reactivate 0190a1b2-… --tenant 6f1c…',
    '<%= config.bin %> withdrawal-methods reactivate 0190a1b2-… --tenant 6f1c… --json',
  ];
  static override args = { id: ownedArg('withdrawalMethod', { description: 'Withdrawal method id', required: true }) };
  static override flags = methodOwnerFlags;

  async run(): Promise<WithdrawalMethod> {
    const method = await reactivateWithdrawalMethod(await this.scope(), this.args.id);
    this.log(renderMethod(method));
    return method;
  }
}
