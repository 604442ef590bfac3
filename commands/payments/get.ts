import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { locatePayment, paymentServices, readContext, renderPayment } from '../../src/cli/payments-cli';
import type { Payment } from '../../src/services/payments/records';

export default class PaymentsGet extends BaseCommand<typeof PaymentsGet> {
  static override summary = 'Show a payment: its amounts (authorized, captured, refunded, fee, net), fee breakdown and routing summary.';
  static override description =
    'Found by id in either mode. The operator\'s view: provider reference, terminal, fee decomposition and the routing decision are included (merchant API keys never see them).';
  static override examples = ['<%= config.bin %> payments get 0190a1b2-…', '<%= config.bin %> payments get 0190a1b2-… --json'];
  static override args = { id: Args.string({ description: 'Payment id', required: true }) };
  static override flags = {
    tenant: Flags.string({ description: 'Read as this tenant (404 when the payment is another tenant\'s)' }),
  };

  async run(): Promise<Payment> {
    const rt = await this.runtime();
    const where = await locatePayment(rt, this.args.id, this.flags.tenant);
    const payment = await paymentServices.payments().getPayment(await readContext(rt, this.flags.tenant, where.livemode), where.id);
    this.log(renderPayment(payment));
    return payment;
  }
}
