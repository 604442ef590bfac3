import { BaseCommand } from '../../src/cli/base-command';
import { validateWith } from '../../src/cli/validate';
import { UpdateCompanyBody } from '../../src/api/organization/schemas';
import type { Company } from '../../src/services/organization/companies';
import { updateCompany } from '../../src/services/organization/companies';
import { companyFieldFlags, companyInput, companyRecord } from '../../src/cli/organization';
import { recordArg, recordOwnerFlags } from '../../src/cli/context';

export default class CompaniesUpdate extends BaseCommand<typeof CompaniesUpdate> {
  static override summary = "Change a company's details.";
  static override examples = ['<%= config.bin %> companies update 0b9e… --contact-email ops@acme.example'];
  static override args = { id: recordArg('company', { description: 'Company id', required: true }) };
  static override flags = { ...recordOwnerFlags, ...companyFieldFlags };

  async run(): Promise<Company> {
    const input = validateWith(UpdateCompanyBody, companyInput(this.flags));
    const company = await updateCompany(await this.scope(), this.args.id, input);
    this.log(companyRecord(company));
    return company;
  }
}
