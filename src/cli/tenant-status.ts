import { Args } from '@oclif/core';
import { BaseCommand } from './base-command';
import { sharedFlags } from './flags';
import { services } from './services';
import type { Tenant } from '../services/tenants';

type Move = 'activate' | 'suspend' | 'disable';

const SUMMARY: Record<Move, string> = {
  activate: 'Activate a suspended or disabled tenant.',
  suspend: 'Suspend an active tenant: its keys and users stop working until it is activated.',
  disable: 'Disable a tenant: its keys and users stop working.',
};

/** The command class of one tenant status move (activate, suspend, disable). */
export function tenantStatusCommand(move: Move) {
  return class TenantStatus extends BaseCommand<typeof TenantStatus> {
    static override summary = SUMMARY[move];
    static override examples = [`<%= config.bin %> tenants ${move} 6f1c…${move === 'activate' ? '' : ' --yes'}`];
    static override args = { id: Args.string({ description: 'Tenant id', required: true }) };
    static override flags = { yes: sharedFlags.yes };

    async run(): Promise<Tenant> {
      if (move !== 'activate') await this.confirm(this.flags.yes, `${move[0].toUpperCase()}${move.slice(1)} tenant ${this.args.id}?`);
      const rt = await this.runtime();
      const tenant = await services.tenants().changeTenantStatus(services.scope().platformContext(rt), this.args.id, move);
      this.log(`Tenant ${tenant.name} (${tenant.id}) is now ${tenant.status}.`);
      return tenant;
    }
  };
}
