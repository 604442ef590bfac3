import { BaseCommand } from '../../src/cli/base-command';
import type { Payment } from '../../src/services/payments/records';
import { capturePayment, getPayment } from '../../src/services/payments/payments';
import { recordArg, ownerFlags } from '../../src/cli/context';
import { amountFlags, amountFrom, renderPayment } from '../../src/cli/payments';

export default class PaymentsCapture extends BaseCommand<typeof PaymentsCapture> {
  static override summary = 'Capture a requires_capture payment (manual capture): the whole authorized amount, or less.';
  static override description =
    "A smaller amount only where the provider supports partial capture (422 PARTIAL_CAPTURE_NOT_SUPPORTED otherwise); 409 PAYMENT_NOT_CAPTURABLE (exit 5) unless the payment is requires_capture. Acts as the payment's tenant; emits payment.captured and payment.succeeded and books the capture net of fees.";
  static override examples = [
    '<%= config.bin %> payments capture 0190a1b2-…',
    '<%= config.bin %> payments capture 0190a1b2-… --amount 12.34',
    '<%= config.bin %> payments capture 0190a1b2-… --amount-minor 1234 --json',
  ];
  static override args = { id: recordArg('payment', { description: 'Payment id', required: true }) };
  static override flags = { ...ownerFlags('payment'), ...amountFlags };

  async run(): Promise<Payment> {
    const ctx = await this.scope();
    const current = await getPayment(ctx, this.args.id);
    const amount = amountFrom(this.flags, current.amount.currency);
    const payment = await capturePayment(ctx, this.args.id, { amount });
    this.log(renderPayment(payment));
    return payment;
  }
}
