import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags, tableFlags } from '../../src/cli/flags';
import { pageFooter, renderTable, statusColour, logBesideTable } from '../../src/cli/output';
import type { Page } from '../../src/db/scoped';
import type { ProviderIntegration, ProviderStatus } from '../../src/services/processing/providers';
import { listProviders } from '../../src/services/processing/providers';
import { atPlatform } from '../../src/cli/context';
import { implementedSummary } from '../../src/cli/processing';

export default class ProvidersList extends BaseCommand<typeof ProvidersList> {
  static override summary = 'List the provider integrations of the connector catalog.';
  static override description =
    'The Implemented column: the operations and features its connector does (--json: the whole records, with every flag).';
  static override examples = [
    '<%= config.bin %> providers list',
    '<%= config.bin %> providers list --status maintenance --json',
    '<%= config.bin %> providers list --all --json',
  ];
  static override scopeOf = atPlatform();
  static override flags = {
    status: Flags.string({ description: 'Only providers in this status', options: ['available', 'maintenance', 'deprecated'] }),
    category: Flags.string({ description: 'Only this category, e.g. card_acquirer or payout' }),
    limit: sharedFlags.limit,
    cursor: sharedFlags.cursor,
    all: sharedFlags.all,
    ...tableFlags,
  };

  async run(): Promise<Page<ProviderIntegration>> {
    const ctx = await this.scope();
    const page = await this.listAll((p) =>
      listProviders(
        ctx,
        { status: this.flags.status as ProviderStatus | undefined, category: this.flags.category },
        { ...p, sortOrder: 'asc' },
      ),
    );
    this.log(
      renderTable(
        page.data,
        [
          { header: 'ID', get: (p) => p.id },
          { header: 'Code', get: (p) => p.code },
          { header: 'Name', get: (p) => p.name },
          { header: 'Category', get: (p) => p.category },
          { header: 'Status', get: (p) => statusColour(p.status) },
          { header: 'Implemented', get: (p) => implementedSummary(p) },
        ],
        this.flags,
      ),
    );
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
