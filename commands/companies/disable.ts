import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags } from '../../src/cli/flags';
import type { Company } from '../../src/services/organization/companies';
import { disableCompany, getCompany } from '../../src/services/organization/companies';
import { recordArg, recordOwnerFlags } from '../../src/cli/context';

export default class CompaniesDisable extends BaseCommand<typeof CompaniesDisable> {
  static override summary = 'Disable a company: it takes no new merchants (its merchants keep their state).';
  static override examples = ['<%= config.bin %> companies disable 0b9e… --yes'];
  static override args = { id: recordArg('company', { description: 'Company id', required: true }) };
  static override flags = {
    ...recordOwnerFlags,
    yes: sharedFlags.yes,
  };

  async run(): Promise<Company> {
    await this.confirmAction(this.flags.yes, async () => {
      const current = await getCompany(await this.scope(), this.args.id);
      return { verb: 'Disable', noun: 'company', name: current.name, id: current.id, consequence: 'It takes no new merchants.' };
    });
    const ctx = await this.scope();
    const company = await disableCompany(ctx, this.args.id);
    this.log(`Company ${company.name} (${company.id}) is now ${company.status}.`);
    return company;
  }
}
