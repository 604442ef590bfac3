import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { chalk, colourEnabled, renderTable, pageFooter, logBesideTable } from '../../src/cli/output';
import { sharedFlags, tableFlags } from '../../src/cli/flags';
import { validateInput } from '../../src/cli/validate';
import { ListIntegrationProfilesQuery } from '../../src/api/profiles/schemas';
import type { Page } from '../../src/db/scoped';
import type { IntegrationProfile } from '../../src/services/profiles';
import { listProfiles } from '../../src/services/profiles';
import { PROFILE_MODES, PROFILE_STATUSES } from '../../src/cli/profiles';
import { atPlatform } from '../../src/cli/context';

export default class IntegrationProfilesList extends BaseCommand<typeof IntegrationProfilesList> {
  static override summary = 'List integration profiles, of one tenant or merchant or of all.';
  static override examples = [
    '<%= config.bin %> integration-profiles list --tenant 6f1c…',
    '<%= config.bin %> integration-profiles list --merchant 7a2d… --mode checkout --json',
    '<%= config.bin %> integration-profiles list --tenant 6f1c… --all --json',
  ];
  static override scopeOf = atPlatform();
  static override flags = {
    tenant: Flags.string({ description: "Only this tenant's profiles" }),
    merchant: Flags.string({ description: "Only this merchant's profiles" }),
    mode: Flags.string({ description: 'Only profiles of this mode', options: PROFILE_MODES }),
    status: Flags.string({ description: 'Only profiles in this status', options: PROFILE_STATUSES }),
    limit: sharedFlags.limit,
    cursor: sharedFlags.cursor,
    all: sharedFlags.all,
    ...tableFlags,
  };

  async run(): Promise<Page<IntegrationProfile>> {
    const ctx = await this.scope();
    const {
      cursor: _cursor,
      limit: _limit,
      sortOrder,
      ...filters
    } = await validateInput(
      ctx,
      ListIntegrationProfilesQuery,
      {
        tenantId: this.flags.tenant,
        merchantId: this.flags.merchant,
        mode: this.flags.mode,
        status: this.flags.status,
        limit: this.flags.limit,
        cursor: this.flags.cursor,
      },
      { tenantId: 'tenant', merchantId: 'merchant' },
    );
    const page = await this.listAll((p) => listProfiles(ctx, filters, { ...p, sortOrder }));
    this.log(
      renderTable(
        page.data,
        [
          { header: 'ID', get: (p) => p.id },
          { header: 'Merchant', get: (p) => p.merchantId },
          { header: 'Mode', get: (p) => p.mode },
          { header: 'Status', get: (p) => (colourEnabled() ? (p.status === 'enabled' ? chalk.green : chalk.red)(p.status) : p.status) },
          { header: 'Session', get: (p) => `${p.sessionLifetime} s` },
          { header: 'Cascading', get: (p) => (p.cascadingEnabled ? `yes (${p.maxDeclineAttempts})` : 'no') },
          { header: 'Created', get: (p) => p.createdAt },
        ],
        this.flags,
      ),
    );
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
