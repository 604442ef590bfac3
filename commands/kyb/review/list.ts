import { Flags } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import { sharedFlags, tableFlags } from '../../../src/cli/flags';
import { renderTable, statusColour, pageFooter, logBesideTable } from '../../../src/cli/output';
import type { Page } from '../../../src/db/scoped';
import type { KybStatus } from '../../../src/db/models/kyb';
import type { KybSubmission } from '../../../src/services/kyb/submissions';
import { listSubmissions } from '../../../src/services/kyb/submissions';
import { kybFlags } from '../../../src/cli/kyb';
import { validateInput } from '../../../src/cli/validate';
import { ReviewerListQuery } from '../../../src/api/kyb/schemas';

export default class KybReviewList extends BaseCommand<typeof KybReviewList> {
  static override summary = 'List KYB submissions for review.';
  static override examples = [
    '<%= config.bin %> kyb review list --status submitted',
    '<%= config.bin %> kyb review list --tenant 6f1c… --company 9a2b… --json',
    '<%= config.bin %> kyb review list --status submitted --all --json',
  ];
  static override flags = {
    tenant: kybFlags.tenant,
    status: Flags.string({
      description: 'Only submissions in this status',
      options: ['draft', 'submitted', 'in_review', 'information_requested', 'approved', 'rejected'],
    }),
    company: Flags.string({ description: 'Only submissions of this company' }),
    merchant: Flags.string({ description: 'Only submissions made by this merchant' }),
    limit: sharedFlags.limit,
    cursor: sharedFlags.cursor,
    all: sharedFlags.all,
    ...tableFlags,
  };

  async run(): Promise<Page<KybSubmission>> {
    const { status, company, merchant } = this.flags;
    const ctx = await this.scope();
    const filters = await validateInput(
      ctx,
      ReviewerListQuery.pick({ companyId: true, merchantId: true }),
      { companyId: company, merchantId: merchant },
      { companyId: 'company', merchantId: 'merchant' },
    );
    const page = await this.listAll((p) =>
      listSubmissions(
        ctx,
        { status: status as KybStatus | undefined, companyId: filters.companyId, merchantId: filters.merchantId },
        { ...p, sortOrder: 'desc' },
      ),
    );
    this.log(
      renderTable(
        page.data,
        [
          { header: 'ID', get: (s) => s.id },
          { header: 'Status', get: (s) => statusColour(s.status) },
          { header: 'Company', get: (s) => s.companyId },
          { header: 'Merchant', get: (s) => s.merchantId },
          { header: 'Legal name', get: (s) => (s.data.legalName as string | undefined) ?? '' },
          { header: 'Documents', get: (s) => s.documents.length },
          { header: 'Submitted', get: (s) => s.submittedAt ?? '' },
        ],
        this.flags,
      ),
    );
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
