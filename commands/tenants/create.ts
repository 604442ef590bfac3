import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { renderRecord } from '../../src/cli/output';
import { validateWith } from '../../src/cli/validate';
import { CreateTenantBody } from '../../src/api/tenants/schemas';
import type { Tenant } from '../../src/services/tenants/tenants';
import { createTenant } from '../../src/services/tenants/tenants';
import { tenantFieldFlags, tenantFlagNames, tenantInput } from '../../src/cli/tenants';
import { atPlatform } from '../../src/cli/context';

export default class TenantsCreate extends BaseCommand<typeof TenantsCreate> {
  static override summary = 'Create a tenant (an operator on the platform).';
  static override examples = [
    '<%= config.bin %> tenants create --name "Acme Payments" --default-currency EUR --allowed-currency EUR --allowed-currency USD',
    '<%= config.bin %> tenants create --name "Try-out" --sandbox --json',
  ];
  static override scopeOf = atPlatform();
  static override flags = {
    ...tenantFieldFlags,
    sandbox: Flags.boolean({ description: 'Sandbox-only tenant (cannot hold live keys)', default: false }),
  };

  async run(): Promise<Tenant> {
    const name = await this.required(this.flags.name, 'name', 'Tenant name');
    const input = validateWith(CreateTenantBody, { ...tenantInput(this.flags), name, livemode: !this.flags.sandbox }, tenantFlagNames);
    const ctx = await this.scope();
    const tenant = await createTenant(ctx, input);
    this.log(renderRecord({ id: tenant.id, name: tenant.name, status: tenant.status, mode: tenant.livemode ? 'live' : 'sandbox' }));
    return tenant;
  }
}
