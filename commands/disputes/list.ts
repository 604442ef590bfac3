import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { asReader, withScope } from '../../src/cli/context';
import { sharedFlags, tableFlags } from '../../src/cli/flags';
import { validateInput } from '../../src/cli/validate';
import { pageFooter, logBesideTable } from '../../src/cli/output';
import type { Page } from '../../src/db/scoped';
import type { Dispute } from '../../src/services/disputes/disputes';
import { listDisputes } from '../../src/services/disputes/disputes';
import { ListDisputesQuery } from '../../src/api/disputes/schemas';
import { DISPUTE_REASONS, DISPUTE_STATUSES } from '../../src/db/models/disputes';
import { renderDisputes } from '../../src/cli/disputes';

export default class DisputesList extends BaseCommand<typeof DisputesList> {
  static override summary = 'List disputes, newest first: of every tenant, or of one with --tenant.';
  static override description =
    "Sandbox (test) disputes unless --live. Amounts are shown in the currency's major unit; --json returns the records (GET /v1/disputes) with integer minor units.";
  static override examples = [
    '<%= config.bin %> disputes list',
    '<%= config.bin %> disputes list --tenant 6f1c… --status needs_response',
    '<%= config.bin %> disputes list --tenant 6f1c… --merchant 0b9e… --reason fraudulent --json',
    '<%= config.bin %> disputes list --payment 0190a1b2-… --json',
    '<%= config.bin %> disputes list --all --json',
  ];
  static override flags = {
    tenant: withScope(Flags.string({ description: "Only this tenant's disputes (omit to see every tenant, as the platform)" }), asReader),
    merchant: Flags.string({ description: "Only this merchant's disputes" }),
    payment: Flags.string({ description: 'Only the disputes of this payment' }),
    status: Flags.string({ description: 'Only disputes in this status', options: [...DISPUTE_STATUSES] }),
    reason: Flags.string({ description: 'Only disputes for this reason', options: [...DISPUTE_REASONS] }),
    live: sharedFlags.live,
    limit: sharedFlags.limit,
    cursor: sharedFlags.cursor,
    all: sharedFlags.all,
    ...tableFlags,
  };

  async run(): Promise<Page<Dispute>> {
    const ctx = await this.scope();
    const input = await validateInput(
      ctx,
      ListDisputesQuery,
      {
        status: this.flags.status,
        reason: this.flags.reason,
        merchantId: this.flags.merchant,
        paymentId: this.flags.payment,
        cursor: this.flags.cursor,
        limit: this.flags.limit,
      },
      { merchantId: 'merchant', paymentId: 'payment' },
    );
    const { cursor: _cursor, limit: _limit, sortOrder, ...filters } = input;
    const page = await this.listAll((p) => listDisputes(ctx, filters, { ...p, sortOrder: sortOrder ?? 'desc' }));
    this.log(renderDisputes(page.data, this.flags));
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
