import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import type { Payment } from '../../src/services/payments/records';
import { getPayment } from '../../src/services/payments/payments';
import { recordArg, recordOwnerFlags } from '../../src/cli/context';
import { renderPayment, waitWhileProcessing } from '../../src/cli/payments';

export default class PaymentsGet extends BaseCommand<typeof PaymentsGet> {
  static override summary = 'Show a payment: its amounts (authorized, captured, refunded, fee, net), fee breakdown and routing summary.';
  static override description =
    "Found by id in either mode. The operator's view: provider reference, terminal, fee decomposition and the routing decision are included (merchant API keys never see them).";
  static override examples = [
    '<%= config.bin %> payments get 0190a1b2-…',
    '<%= config.bin %> payments get 0190a1b2-… --json',
    '<%= config.bin %> payments get 0190a1b2-… --wait --timeout 10',
  ];
  static override args = { id: recordArg('payment', { description: 'Payment id', required: true, reads: true }) };
  static override flags = {
    tenant: Flags.string({ description: "Read as this tenant (404 when the payment is another tenant's)" }),
    merchant: recordOwnerFlags.merchant,
    wait: Flags.boolean({ description: 'Wait until the provider has answered (the payment has left processing), up to --timeout' }),
    timeout: Flags.integer({
      description: 'Seconds --wait waits at most, then exit code 8 (default 30)',
      min: 1,
      max: 3600,
      dependsOn: ['wait'],
    }),
  };

  async run(): Promise<Payment> {
    const ctx = await this.scope();
    const read = () => getPayment(ctx, this.args.id);
    const payment = this.flags.wait ? await waitWhileProcessing(read, (this.flags.timeout ?? 30) * 1000) : await read();
    this.log(renderPayment(payment));
    return payment;
  }
}
