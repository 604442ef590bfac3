import { formatMinor } from '../../../src/domain/money';
import { Flags } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import { listFlags, sharedFlags, tableFlags } from '../../../src/cli/flags';
import { pageFooter, renderTable, statusColour, logBesideTable } from '../../../src/cli/output';
import type { Page } from '../../../src/db/scoped';
import type { PartnerAssignment } from '../../../src/services/partners';
import { listAssignments } from '../../../src/services/partners';
import { atPlatform } from '../../../src/cli/context';
import { validateInput } from '../../../src/cli/validate';
import { ListAssignmentsQuery } from '../../../src/api/partners/schemas';

export default class PartnerAssignmentsList extends BaseCommand<typeof PartnerAssignmentsList> {
  static override summary = 'List partner assignments (which partner earns what on which merchant).';
  static override examples = [
    '<%= config.bin %> partners assignments list --partner 6f1c…',
    '<%= config.bin %> partners assignments list --merchant 0b9e… --status active --json',
    '<%= config.bin %> partners assignments list --partner 6f1c… --all --json',
  ];
  static override scopeOf = atPlatform();
  static override flags = {
    ...listFlags,
    all: sharedFlags.all,
    partner: Flags.string({ description: "Only this partner's assignments" }),
    merchant: Flags.string({ description: 'Only assignments to this merchant' }),
    status: Flags.string({ description: 'Only assignments in this status', options: ['active', 'suspended'] }),
    ...tableFlags,
  };

  async run(): Promise<Page<PartnerAssignment>> {
    const ctx = await this.scope();
    const filters = await validateInput(
      ctx,
      ListAssignmentsQuery.pick({ tenantId: true, partnerId: true, merchantId: true }),
      { tenantId: this.flags.tenant, partnerId: this.flags.partner, merchantId: this.flags.merchant },
      { tenantId: 'tenant', partnerId: 'partner', merchantId: 'merchant' },
    );
    const page = await this.listAll((p) =>
      listAssignments(
        ctx,
        {
          tenantId: filters.tenantId,
          partnerId: filters.partnerId,
          merchantId: filters.merchantId,
          status: this.flags.status as PartnerAssignment['status'] | undefined,
        },
        { ...p, sortOrder: 'desc' },
      ),
    );
    this.log(
      renderTable(
        page.data,
        [
          { header: 'ID', get: (a) => a.id },
          { header: 'Partner', get: (a) => a.partnerId },
          { header: 'Merchant', get: (a) => a.merchantId },
          { header: 'Rate', get: (a) => `${a.commissionRate / 10000}%` },
          { header: 'Fixed', get: (a) => (a.commissionFixed ? formatMinor(a.commissionFixed) : '') },
          { header: 'Status', get: (a) => statusColour(a.status) },
          { header: 'From', get: (a) => a.effectiveFrom },
          { header: 'To', get: (a) => a.effectiveTo ?? '' },
        ],
        this.flags,
      ),
    );
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
