import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { asReader, withScope } from '../../src/cli/context';
import { sharedFlags, tableFlags } from '../../src/cli/flags';
import { validateInput } from '../../src/cli/validate';
import { pageFooter, logBesideTable } from '../../src/cli/output';
import type { Page } from '../../src/db/scoped';
import type { Payment } from '../../src/services/payments/records';
import { ListPaymentsQuery } from '../../src/api/payments/schemas';
import { listPayments } from '../../src/services/payments/payments';
import { renderPayments } from '../../src/cli/payments';

export default class PaymentsList extends BaseCommand<typeof PaymentsList> {
  static override summary = 'List payments, newest first: of every tenant, or of one with --tenant.';
  static override description =
    "Sandbox (test) payments unless --live. Amounts are shown in the currency's major unit; --json returns the records (GET /v1/payments) with integer minor units.";
  static override examples = [
    '<%= config.bin %> payments list',
    '<%= config.bin %> payments list --tenant 6f1c… --merchant 0b9e… --status captured',
    '<%= config.bin %> payments list --session 3a7d… --json',
    '<%= config.bin %> payments list --all --json',
  ];
  static override flags = {
    tenant: withScope(Flags.string({ description: "Only this tenant's payments (omit to see every tenant, as the platform)" }), asReader),
    merchant: Flags.string({ description: "Only this merchant's payments" }),
    status: Flags.string({
      description: 'Only payments in this status',
      options: ['processing', 'requires_action', 'requires_capture', 'captured', 'failed', 'voided', 'refunded', 'partially_refunded'],
    }),
    session: Flags.string({ description: 'Only the payments of this checkout session' }),
    live: sharedFlags.live,
    limit: sharedFlags.limit,
    cursor: sharedFlags.cursor,
    all: sharedFlags.all,
    ...tableFlags,
  };

  async run(): Promise<Page<Payment>> {
    const ctx = await this.scope();
    const input = await validateInput(
      ctx,
      ListPaymentsQuery,
      {
        status: this.flags.status,
        merchantId: this.flags.merchant,
        checkoutSessionId: this.flags.session,
        cursor: this.flags.cursor,
        limit: this.flags.limit,
      },
      { merchantId: 'merchant', checkoutSessionId: 'session' },
    );
    const { cursor: _cursor, limit: _limit, sortOrder, ...filters } = input;
    const page = await this.listAll((p) => listPayments(ctx, filters, { ...p, sortOrder: sortOrder ?? 'desc' }));
    this.log(renderPayments(page.data, this.flags));
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
