import { BaseCommand } from '../../src/cli/base-command';
import { renderRecord } from '../../src/cli/output';
import type { Tenant } from '../../src/services/tenants/tenants';
import { getTenant } from '../../src/services/tenants/tenants';
import { atPlatform, ownedArg, ownerFlags } from '../../src/cli/context';

export default class TenantsGet extends BaseCommand<typeof TenantsGet> {
  static override summary = 'Show one tenant.';
  static override examples = ['<%= config.bin %> tenants get 6f1c…'];
  static override scopeOf = atPlatform();
  static override args = { id: ownedArg('tenant', { description: 'Tenant id', required: true }) };
  static override flags = { ...ownerFlags('tenant') };

  async run(): Promise<Tenant> {
    const ctx = await this.scope();
    const tenant = await getTenant(ctx, this.args.id);
    this.log(renderRecord({ ...tenant }));
    return tenant;
  }
}
