import { Args } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import { validateWith } from '../../../src/cli/validate';
import { UpdateMpiAccountBody } from '../../../src/api/processing/schemas';
import type { MpiAccount } from '../../../src/services/processing/terminals/record';
import { updateMpiAccount } from '../../../src/services/processing/terminals/mpi-accounts';
import { mpiFlagNames, mpiFlags, mpiInput, renderMpiAccounts } from '../../../src/cli/processing';
import { atPlatform, ownedArg, ownerFlags } from '../../../src/cli/context';
import { nullable } from '../../../src/cli/flags';

export default class MpiAccountsUpdate extends BaseCommand<typeof MpiAccountsUpdate> {
  static override summary = 'Update the MPI account of a brand ("null" clears a field).';
  static override examples = [
    '<%= config.bin %> terminals mpi-accounts update 6f1c… visa --no-enabled',
    '<%= config.bin %> terminals mpi-accounts update 6f1c… visa --preferred-version 2.1.0 --json',
  ];
  static override scopeOf = atPlatform();
  static override args = {
    id: ownedArg('terminal', { description: 'Terminal id', required: true }),
    brand: Args.string({ description: 'Brand of the account', required: true }),
  };
  static override flags = { ...ownerFlags('terminal'), ...mpiFlags };

  async run(): Promise<MpiAccount> {
    const raw = mpiInput(this.flags);
    const value = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, typeof v === 'string' ? nullable(v) : v]));
    const input = validateWith(UpdateMpiAccountBody, value, mpiFlagNames);
    const ctx = await this.scope();
    const account = await updateMpiAccount(ctx, this.args.id, this.args.brand, input);
    this.log(renderMpiAccounts([account]));
    return account;
  }
}
