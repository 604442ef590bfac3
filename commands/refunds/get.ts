import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import type { Refund } from '../../src/services/payments/records';
import { getRefund } from '../../src/services/payments/refunds';
import { recordArg, recordOwnerFlags } from '../../src/cli/context';
import { renderRefund } from '../../src/cli/payments';

export default class RefundsGet extends BaseCommand<typeof RefundsGet> {
  static override summary = 'Show a refund (pending, succeeded or failed).';
  static override examples = ['<%= config.bin %> refunds get 0190c3d4-…', '<%= config.bin %> refunds get 0190c3d4-… --json'];
  static override args = { id: recordArg('refund', { description: 'Refund id', required: true, reads: true }) };
  static override flags = {
    tenant: Flags.string({ description: "Read as this tenant (404 when the refund is another tenant's)" }),
    merchant: recordOwnerFlags.merchant,
  };

  async run(): Promise<Refund> {
    const ctx = await this.scope();
    const refund = await getRefund(ctx, this.args.id);
    this.log(renderRefund(refund));
    return refund;
  }
}
