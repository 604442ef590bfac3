import { BaseCommand } from '../../src/cli/base-command';
import { sharedFlags } from '../../src/cli/flags';
import type { Payment } from '../../src/services/payments/records';
import { cancelPayment, getPayment } from '../../src/services/payments/payments';
import { recordArg, ownerFlags } from '../../src/cli/context';
import { renderPayment } from '../../src/cli/payments';
import { formatMinor } from '../../src/domain/money';

export default class PaymentsCancel extends BaseCommand<typeof PaymentsCancel> {
  static override summary = 'Cancel (void) a processing, requires_action or requires_capture payment.';
  static override description =
    'The authorization is voided at the provider; no refund is created and nothing is booked; payment.canceled is emitted and the status becomes voided. 409 PAYMENT_NOT_CANCELABLE (exit 5) once captured or final: refund a captured payment instead. Asks for confirmation on a terminal unless --yes.';
  static override examples = ['<%= config.bin %> payments cancel 0190a1b2-…', '<%= config.bin %> payments cancel 0190a1b2-… --yes --json'];
  static override args = { id: recordArg('payment', { description: 'Payment id', required: true }) };
  static override flags = { ...ownerFlags('payment'), yes: sharedFlags.yes };

  async run(): Promise<Payment> {
    const ctx = await this.scope();
    const current = await getPayment(ctx, this.args.id);
    await this.confirmAction(this.flags.yes, {
      verb: 'Cancel',
      noun: 'payment',
      name: `${formatMinor(current.amount)}, ${current.status}`,
      id: current.id,
      consequence: 'The authorization is voided.',
    });
    const payment = await cancelPayment(ctx, this.args.id);
    this.log(renderPayment(payment));
    return payment;
  }
}
