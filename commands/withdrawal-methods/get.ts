import { BaseCommand } from '../../src/cli/base-command';
import type { WithdrawalMethod } from '../../src/services/withdrawal-methods/methods';
import { getWithdrawalMethod } from '../../src/services/withdrawal-methods/methods';
import { methodOwnerFlags, renderMethod } from '../../src/cli/withdrawal-methods';
import { ownedArg } from '../../src/cli/context';

export default class WithdrawalMethodsGet extends BaseCommand<typeof WithdrawalMethodsGet> {
  static override summary = 'Show a saved withdrawal method (details masked).';
  static override description =
    "Found in --tenant's records of the mode (sandbox unless --live); 404 (exit 4) when absent or deleted. The full details are never shown.";
  static override examples = [
    '<%= config.bin %> withdrawal-methods get 0190a1b2-… --tenant 6f1c…',
    '<%= config.bin %> withdrawal-methods get 0190a1b2-… --tenant 6f1c… --json',
  ];
  static override args = { id: ownedArg('withdrawalMethod', { description: 'Withdrawal method id', required: true }) };
  static override flags = methodOwnerFlags;

  async run(): Promise<WithdrawalMethod> {
    const method = await getWithdrawalMethod(await this.scope(), this.args.id);
    this.log(renderMethod(method));
    return method;
  }
}
