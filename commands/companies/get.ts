import { BaseCommand } from '../../src/cli/base-command';
import type { Company } from '../../src/services/organization/companies';
import { getCompany } from '../../src/services/organization/companies';
import { recordArg, recordOwnerFlags } from '../../src/cli/context';
import { companyRecord } from '../../src/cli/organization';

export default class CompaniesGet extends BaseCommand<typeof CompaniesGet> {
  static override summary = 'Show a company.';
  static override examples = ['<%= config.bin %> companies get 0b9e… --json'];
  static override args = { id: recordArg('company', { description: 'Company id', required: true }) };
  static override flags = { ...recordOwnerFlags };

  async run(): Promise<Company> {
    const company = await getCompany(await this.scope(), this.args.id);
    this.log(companyRecord(company));
    return company;
  }
}
