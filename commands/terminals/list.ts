import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags, tableFlags } from '../../src/cli/flags';
import { pageFooter, logBesideTable } from '../../src/cli/output';
import type { Page } from '../../src/db/scoped';
import type { Terminal } from '../../src/services/processing/terminals/record';
import { listTerminals } from '../../src/services/processing/terminals/terminals';
import { atPlatform } from '../../src/cli/context';
import { renderTerminals } from '../../src/cli/processing';
import { validateInput } from '../../src/cli/validate';
import { ListTerminalsQuery } from '../../src/api/processing/schemas';

export default class TerminalsList extends BaseCommand<typeof TerminalsList> {
  static override summary = 'List terminals, of one tenant or of all.';
  static override examples = [
    '<%= config.bin %> terminals list --tenant 6f1c…',
    '<%= config.bin %> terminals list --status active --direction payin --json',
    '<%= config.bin %> terminals list --tenant 6f1c… --all --json',
  ];
  static override scopeOf = atPlatform();
  static override flags = {
    tenant: Flags.string({ description: "Only this tenant's terminals" }),
    status: Flags.string({ description: 'Only terminals in this status', options: ['active', 'disabled'] }),
    direction: Flags.string({ description: 'Only terminals of this direction', options: ['payin', 'payout'] }),
    provider: Flags.string({ description: 'Only terminals of this provider integration id' }),
    limit: sharedFlags.limit,
    cursor: sharedFlags.cursor,
    all: sharedFlags.all,
    ...tableFlags,
  };

  async run(): Promise<Page<Terminal>> {
    const ctx = await this.scope();
    const filters = await validateInput(
      ctx,
      ListTerminalsQuery.pick({ tenantId: true, providerIntegrationId: true }),
      { tenantId: this.flags.tenant, providerIntegrationId: this.flags.provider },
      { tenantId: 'tenant', providerIntegrationId: 'provider' },
    );
    const page = await this.listAll((p) =>
      listTerminals(
        ctx,
        {
          tenantId: filters.tenantId,
          status: this.flags.status as Terminal['status'] | undefined,
          direction: this.flags.direction as Terminal['direction'] | undefined,
          providerIntegrationId: filters.providerIntegrationId,
        },
        { ...p, sortOrder: 'desc' },
      ),
    );
    this.log(renderTerminals(page.data, this.flags));
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
