import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { validateWith } from '../../src/cli/validate';
import type { WithdrawalMethod } from '../../src/services/withdrawal-methods/methods';
import { UpdateWithdrawalMethodBody } from '../../src/api/withdrawal-methods/schemas';
import { updateWithdrawalMethod } from '../../src/services/withdrawal-methods/methods';
import { detailFlag, detailsFrom, methodOwnerFlags, renderMethod } from '../../src/cli/withdrawal-methods';
import { ownedArg } from '../../src/cli/context';

export default class WithdrawalMethodsUpdate extends BaseCommand<typeof WithdrawalMethodsUpdate> {
  static override summary = "Change a withdrawal method's label, or give it new details (which restarts cooling).";
  static override description =
    "A label alone changes nothing else. --detail flags give the complete new details: when they differ from the current ones they are checked and the method cools again (status cooling until now + the tenant's cooling period); a suspended method cannot get new details (409, exit 5).";
  static override examples = [
    '<%= config.bin %> withdrawal-methods update 0190a1b2-… --tenant 6f1c… --label "Savings"',
    '<%= config.bin %> withdrawal-methods update 0190a1b2-… --tenant 6f1c… --detail iban=GB82WEST12345698765432 --detail accountHolderName="Jane Doe" --json',
  ];
  static override args = { id: ownedArg('withdrawalMethod', { description: 'Withdrawal method id', required: true }) };
  static override flags = {
    ...methodOwnerFlags,
    label: Flags.string({ description: 'New label' }),
    detail: detailFlag,
  };

  async run(): Promise<WithdrawalMethod> {
    const input = validateWith(
      UpdateWithdrawalMethodBody,
      { label: this.flags.label, details: this.flags.detail ? detailsFrom(this.flags.detail) : undefined },
      { details: 'detail' },
    );
    const method = await updateWithdrawalMethod(await this.scope(), this.args.id, input);
    this.log(renderMethod(method));
    return method;
  }
}
