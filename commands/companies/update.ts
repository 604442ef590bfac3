import { Args } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { companyFieldFlags, companyInput } from '../../src/cli/organization-flags';
import { validateWith } from '../../src/cli/validate';
import { UpdateCompanyBody } from '../../src/api/organization/schemas';
import type { Company } from '../../src/services/organization/companies';
import { updateCompany } from '../../src/services/organization/companies';
import { contextForCompany } from '../../src/cli/organization-context';
import { companyRecord } from '../../src/cli/organization-output';

export default class CompaniesUpdate extends BaseCommand<typeof CompaniesUpdate> {
  static override summary = 'Change a company\'s details.';
  static override examples = ['<%= config.bin %> companies update 0b9e… --contact-email ops@acme.example'];
  static override args = { id: Args.string({ description: 'Company id', required: true }) };
  static override flags = companyFieldFlags;

  async run(): Promise<Company> {
    const input = validateWith(UpdateCompanyBody, companyInput(this.flags));
    const rt = await this.runtime();
    const company = await updateCompany(await contextForCompany(rt, this.args.id), this.args.id, input);
    this.log(companyRecord(company));
    return company;
  }
}
