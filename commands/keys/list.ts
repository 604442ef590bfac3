import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags, tableFlags } from '../../src/cli/flags';
import { renderTable, statusColour, pageFooter, logBesideTable } from '../../src/cli/output';
import type { Page } from '../../src/db/scoped';
import type { ApiKey } from '../../src/services/api-keys/keys';
import { listApiKeys } from '../../src/services/api-keys/keys';
import { asTenant, withScope } from '../../src/cli/context';
import { validateInput } from '../../src/cli/validate';
import { ListApiKeysQuery } from '../../src/api/api-keys/schemas';

export default class KeysList extends BaseCommand<typeof KeysList> {
  static override summary = 'List the API keys of a tenant (one mode at a time).';
  static override examples = [
    '<%= config.bin %> keys list --tenant 6f1c…',
    '<%= config.bin %> keys list --tenant 6f1c… --merchant 0b9e… --status active --json',
    '<%= config.bin %> keys list --tenant 6f1c… --all --json',
  ];
  static override flags = {
    tenant: withScope(sharedFlags.tenant, asTenant),
    merchant: sharedFlags.merchant,
    live: sharedFlags.live,
    status: Flags.string({ description: 'Only keys in this status', options: ['active', 'revoked', 'expired'] }),
    limit: sharedFlags.limit,
    cursor: sharedFlags.cursor,
    all: sharedFlags.all,
    ...tableFlags,
  };

  async run(): Promise<Page<ApiKey>> {
    const ctx = await this.scope();
    const filters = await validateInput(
      ctx,
      ListApiKeysQuery.pick({ merchantId: true }),
      { merchantId: this.flags.merchant },
      { merchantId: 'merchant' },
    );
    const page = await this.listAll((p) =>
      listApiKeys(
        ctx,
        { merchantId: filters.merchantId, status: this.flags.status as ApiKey['status'] | undefined },
        { ...p, sortOrder: 'desc' },
      ),
    );
    this.log(
      renderTable(
        page.data,
        [
          { header: 'ID', get: (k) => k.id },
          { header: 'Name', get: (k) => k.name },
          { header: 'Owner', get: (k) => (k.owner.type === 'merchant' ? `merchant ${k.owner.merchantId}` : 'tenant') },
          { header: 'Status', get: (k) => statusColour(k.status) },
          { header: 'Public key', get: (k) => k.publicKey },
          { header: 'Expires', get: (k) => k.expiresAt ?? '' },
        ],
        this.flags,
      ),
    );
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
