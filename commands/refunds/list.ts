import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags, tableFlags } from '../../src/cli/flags';
import { pageFooter, logBesideTable } from '../../src/cli/output';
import type { Page } from '../../src/db/scoped';
import type { Refund } from '../../src/services/payments/records';
import { listRefunds } from '../../src/services/payments/refunds';
import { recordArg, recordOwnerFlags } from '../../src/cli/context';
import { renderRefunds } from '../../src/cli/payments';

export default class RefundsList extends BaseCommand<typeof RefundsList> {
  static override summary = 'List the refunds of a payment, newest first.';
  static override examples = [
    '<%= config.bin %> refunds list 0190a1b2-…',
    '<%= config.bin %> refunds list 0190a1b2-… --json',
    '<%= config.bin %> refunds list 0190a1b2-… --all --json',
  ];
  static override args = {
    paymentId: recordArg('payment', { name: 'PAYMENT_ID', description: 'Payment id', required: true, reads: true }),
  };
  static override flags = {
    tenant: Flags.string({ description: "Read as this tenant (404 when the payment is another tenant's)" }),
    merchant: recordOwnerFlags.merchant,
    limit: sharedFlags.limit,
    cursor: sharedFlags.cursor,
    all: sharedFlags.all,
    ...tableFlags,
  };

  async run(): Promise<Page<Refund>> {
    const ctx = await this.scope();
    const page = await this.listAll((p) => listRefunds(ctx, this.args.paymentId, { ...p, sortOrder: 'desc' }));
    this.log(renderRefunds(page.data, this.flags));
    logBesideTable(this, this.flags, pageFooter(page));
    return page;
  }
}
