import { BaseCommand } from '../../src/cli/base-command';
import { ownedArg } from '../../src/cli/context';
import { sharedFlags } from '../../src/cli/flags';
import type { WithdrawalMethod } from '../../src/services/withdrawal-methods/methods';
import { deleteWithdrawalMethod } from '../../src/services/withdrawal-methods/methods';
import { confirmedContext, methodOwnerFlags } from '../../src/cli/withdrawal-methods';

export default class WithdrawalMethodsDelete extends BaseCommand<typeof WithdrawalMethodsDelete> {
  static override summary = 'Delete a saved withdrawal method (soft delete).';
  static override description =
    'Afterwards the method is gone for every read and no withdrawal can be paid to it. Asks for confirmation on a terminal unless --yes.';
  static override examples = [
    '<%= config.bin %> withdrawal-methods delete 0190a1b2-… --tenant 6f1c…',
    '<%= config.bin %> withdrawal-methods delete 0190a1b2-… --tenant 6f1c… --yes --json',
  ];
  static override args = { id: ownedArg('withdrawalMethod', { description: 'Withdrawal method id', required: true }) };
  static override flags = { ...methodOwnerFlags, yes: sharedFlags.yes };

  async run(): Promise<WithdrawalMethod> {
    const ctx = await confirmedContext(await this.scope(), this.args.id, 'Delete', (subject) =>
      this.confirmAction(this.flags.yes, subject),
    );
    const method = await deleteWithdrawalMethod(ctx, this.args.id);
    this.log(`Withdrawal method "${method.label}" (${method.id}) is deleted.`);
    return method;
  }
}
