import { Flags } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import { validateWith } from '../../../src/cli/validate';
import { MpiAccountBody } from '../../../src/api/processing/schemas';
import type { MpiAccount } from '../../../src/services/processing/terminals/record';
import { addMpiAccount } from '../../../src/services/processing/terminals/mpi-accounts';
import { mpiFlagNames, mpiFlags, mpiInput, renderMpiAccounts } from '../../../src/cli/processing';
import { atPlatform, ownedArg, ownerFlags } from '../../../src/cli/context';

export default class MpiAccountsAdd extends BaseCommand<typeof MpiAccountsAdd> {
  static override summary = "Add a terminal's MPI account for a brand (one per brand).";
  static override examples = [
    '<%= config.bin %> terminals mpi-accounts add 6f1c… --brand visa --merchant-name Shop --mpi-merchant-id MPI-1 --acquirer-bin 412345',
  ];
  static override scopeOf = atPlatform();
  static override args = { id: ownedArg('terminal', { description: 'Terminal id', required: true }) };
  static override flags = { ...ownerFlags('terminal'), brand: Flags.string({ description: 'Card brand, e.g. visa' }), ...mpiFlags };

  async run(): Promise<MpiAccount> {
    const brand = await this.required(this.flags.brand, 'brand', 'Brand (e.g. visa)');
    const input = validateWith(MpiAccountBody, { brand, ...mpiInput(this.flags) }, mpiFlagNames);
    const ctx = await this.scope();
    const account = await addMpiAccount(ctx, this.args.id, input);
    this.log(renderMpiAccounts([account]));
    return account;
  }
}
