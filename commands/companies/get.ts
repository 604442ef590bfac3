import { Args } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import type { Company } from '../../src/services/organization/companies';
import { getCompany } from '../../src/services/organization/companies';
import { contextForCompany } from '../../src/cli/organization-context';
import { companyRecord } from '../../src/cli/organization-output';

export default class CompaniesGet extends BaseCommand<typeof CompaniesGet> {
  static override summary = 'Show a company.';
  static override examples = ['<%= config.bin %> companies get 0b9e… --json'];
  static override args = { id: Args.string({ description: 'Company id', required: true }) };

  async run(): Promise<Company> {
    const rt = await this.runtime();
    const company = await getCompany(await contextForCompany(rt, this.args.id), this.args.id);
    this.log(companyRecord(company));
    return company;
  }
}
