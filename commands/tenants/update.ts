import { BaseCommand } from '../../src/cli/base-command';
import { renderRecord } from '../../src/cli/output';
import { validateWith } from '../../src/cli/validate';
import { UpdateTenantBody } from '../../src/api/tenants/schemas';
import type { Tenant } from '../../src/services/tenants/tenants';
import { updateTenant } from '../../src/services/tenants/tenants';
import { tenantFieldFlags, tenantFlagNames, tenantInput } from '../../src/cli/tenants';
import { atPlatform, ownedArg, ownerFlags } from '../../src/cli/context';

export default class TenantsUpdate extends BaseCommand<typeof TenantsUpdate> {
  static override summary = "Change a tenant's settings.";
  static override examples = [
    '<%= config.bin %> tenants update 6f1c… --rate-limit 1200',
    '<%= config.bin %> tenants update 6f1c… --feature instantPayouts=true --contact-email ops@acme.example',
  ];
  static override scopeOf = atPlatform();
  static override args = { id: ownedArg('tenant', { description: 'Tenant id', required: true }) };
  static override flags = { ...ownerFlags('tenant'), ...tenantFieldFlags };

  async run(): Promise<Tenant> {
    const input = validateWith(UpdateTenantBody, tenantInput(this.flags), tenantFlagNames);
    const ctx = await this.scope();
    const tenant = await updateTenant(ctx, this.args.id, input);
    this.log(renderRecord({ ...tenant }));
    return tenant;
  }
}
