import { Args } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { organization } from '../../src/cli/organization-services';
import type { Company } from '../../src/services/organization/companies';

export default class CompaniesGet extends BaseCommand<typeof CompaniesGet> {
  static override summary = 'Show a company.';
  static override examples = ['<%= config.bin %> companies get 0b9e… --json'];
  static override args = { id: Args.string({ description: 'Company id', required: true }) };

  async run(): Promise<Company> {
    const rt = await this.runtime();
    const company = await organization.companies().getCompany(await organization.context().contextForCompany(rt, this.args.id), this.args.id);
    this.log(organization.output().companyRecord(company));
    return company;
  }
}
