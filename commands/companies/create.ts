import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags } from '../../src/cli/flags';
import { validateInput } from '../../src/cli/validate';
import { CreateCompanyBody } from '../../src/api/organization/schemas';
import type { Company } from '../../src/services/organization/companies';
import { createCompany } from '../../src/services/organization/companies';
import { companyFieldFlags, companyInput, companyRecord } from '../../src/cli/organization';
import { asTenantOrPlatform, withScope } from '../../src/cli/context';

export default class CompaniesCreate extends BaseCommand<typeof CompaniesCreate> {
  static override summary = 'Create a company of a tenant (in sandbox mode unless --live).';
  static override examples = [
    '<%= config.bin %> companies create --tenant 6f1c… --name "Acme Trading" --country DE',
    '<%= config.bin %> companies create --tenant 6f1c… --name Acme --country DE --legal-name "Acme GmbH" --json',
  ];
  static override flags = {
    tenant: withScope(Flags.string({ description: 'Tenant id', required: true }), asTenantOrPlatform),
    live: sharedFlags.live,
    ...companyFieldFlags,
  };

  async run(): Promise<Company> {
    const name = await this.required(this.flags.name, 'name', 'Company name');
    const country = await this.required(this.flags.country, 'country', 'Country (ISO 3166-1 alpha-2)');
    const ctx = await this.scope();
    const input = await validateInput(ctx, CreateCompanyBody, { ...companyInput(this.flags), name, country });
    const company = await createCompany(ctx, input);
    this.log(companyRecord(company));
    return company;
  }
}
