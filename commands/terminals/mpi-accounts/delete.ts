import { Args } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import { sharedFlags } from '../../../src/cli/flags';
import type { Terminal } from '../../../src/services/processing/terminals/record';
import { deleteMpiAccount } from '../../../src/services/processing/terminals/mpi-accounts';
import { getTerminal } from '../../../src/services/processing/terminals/terminals';
import { atPlatform, ownedArg, ownerFlags } from '../../../src/cli/context';

export default class MpiAccountsDelete extends BaseCommand<typeof MpiAccountsDelete> {
  static override summary = 'Delete the MPI account of a brand.';
  static override examples = ['<%= config.bin %> terminals mpi-accounts delete 6f1c… visa --yes'];
  static override scopeOf = atPlatform();
  static override args = {
    id: ownedArg('terminal', { description: 'Terminal id', required: true }),
    brand: Args.string({ description: 'Brand of the account', required: true }),
  };
  static override flags = { ...ownerFlags('terminal'), yes: sharedFlags.yes };

  async run(): Promise<Terminal> {
    await this.confirmAction(this.flags.yes, async () => {
      const terminal = await getTerminal(await this.scope(), this.args.id);
      const account = terminal.threeDsConfig.mpiAccounts.find((a) => a.brand === this.args.brand);
      const name = account?.merchantName ? `${this.args.brand}, ${account.merchantName}` : this.args.brand;
      return { verb: 'Delete', noun: 'MPI account', name, of: { noun: 'terminal', name: terminal.name, id: terminal.id } };
    });
    const ctx = await this.scope();
    const terminal = await deleteMpiAccount(ctx, this.args.id, this.args.brand);
    this.log(`Deleted the ${this.args.brand} MPI account of terminal ${terminal.id}.`);
    return terminal;
  }
}
