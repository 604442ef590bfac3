import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import type { Refund } from '../../src/services/payments/records';
import { getRefund } from '../../src/services/payments/refunds';
import { locate, readContext, ownedArg, recordOwnerFlags } from '../../src/cli/context';
import { renderRefund } from '../../src/cli/payments';

export default class RefundsGet extends BaseCommand<typeof RefundsGet> {
  static override summary = 'Show a refund (pending, succeeded or failed).';
  static override examples = ['<%= config.bin %> refunds get 0190c3d4-…', '<%= config.bin %> refunds get 0190c3d4-… --json'];
  static override args = { id: ownedArg('refund', { description: 'Refund id', required: true }) };
  static override flags = {
    tenant: Flags.string({ description: 'Read as this tenant (404 when the refund is another tenant\'s)' }),
    merchant: recordOwnerFlags.merchant,
  };

  async run(): Promise<Refund> {
    const rt = await this.runtime();
    const where = await locate(rt, 'refund', this.args.id, this.flags.tenant);
    const refund = await getRefund(await readContext(rt, this.flags.tenant, where.livemode), where.id);
    this.log(renderRefund(refund));
    return refund;
  }
}
