import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { runIdempotent } from '../../src/services/idempotency';
import { getRefund, makeRefund, refundRequest } from '../../src/services/payments/refunds';
import { ValidationError } from '../../src/domain/errors';
import type { Refund } from '../../src/services/payments/records';
import { getPayment } from '../../src/services/payments/payments';
import { recordArg, ownerFlags } from '../../src/cli/context';
import { amountFlags, amountFrom, renderRefund } from '../../src/cli/payments';
import { awaitSandboxRefund } from '../../src/services/sandbox/answers';

export default class RefundsCreate extends BaseCommand<typeof RefundsCreate> {
  static override summary = 'Refund a captured payment, in whole (default) or in part.';
  static override description =
    "Creates a pending refund (refund.created) and sends it to the provider; the final state (refund.succeeded or refund.failed) arrives asynchronously. For a sandbox payment the command runs the sandbox acquirer's answers itself and waits up to --wait-seconds for the final state (or says it is still pending). Never beyond what remains refundable (422 REFUND_EXCEEDS_REFUNDABLE); partial refunds only where the provider supports them. With --idempotency-key a retry returns the same refund (the rule of the API's Idempotency-Key, in the payment's tenant scope).";
  static override examples = [
    '<%= config.bin %> refunds create 0190a1b2-…',
    '<%= config.bin %> refunds create 0190a1b2-… --amount 10.00 --reason "damaged item" --idempotency-key order-1001-r1',
    '<%= config.bin %> refunds create 0190a1b2-… --amount-minor 500 --json',
  ];
  static override args = { paymentId: recordArg('payment', { name: 'PAYMENT_ID', description: 'Payment id', required: true }) };
  static override flags = {
    ...ownerFlags('payment'),
    ...amountFlags,
    reason: Flags.string({ description: 'Why the payment is refunded (up to 500 characters)' }),
    'idempotency-key': Flags.string({ description: 'A key of your choosing (1-128 characters): the same key returns the same refund' }),
    'wait-seconds': Flags.integer({
      description: 'How long to wait for the final state of a sandbox refund (0: do not wait)',
      default: 10,
      min: 0,
      max: 120,
    }),
  };

  async run(): Promise<Refund> {
    const rt = await this.runtime();
    const ctx = await this.scope();
    const payment = await getPayment(ctx, this.args.paymentId);
    const amount = amountFrom(this.flags, payment.amount.currency);
    if (this.flags.reason !== undefined && (this.flags.reason.length < 1 || this.flags.reason.length > 500)) {
      throw ValidationError.field('--reason', 'must be 1 to 500 characters');
    }
    const body = { ...(amount ? { amount } : {}), ...(this.flags.reason !== undefined ? { reason: this.flags.reason } : {}) };
    // the Idempotency-Key rule of the API (runIdempotent): the key is the caller's (the payment's tenant), as for its secret keys
    const key = this.flags['idempotency-key'];
    const outcome = await runIdempotent(ctx, { key, keyField: '--idempotency-key', ...refundRequest(this.args.paymentId, body) }, (c) =>
      makeRefund(c, this.args.paymentId, body),
    );
    const { replayed } = outcome;
    // a replay shows the refund as it is now
    let refund = outcome.replayed ? await getRefund(ctx, outcome.replay.id) : outcome.result;
    if (this.flags['wait-seconds'] > 0)
      refund = await awaitSandboxRefund(rt, ctx, refund, payment.providerIntegrationId, this.flags['wait-seconds'] * 1000);
    if (replayed) this.log(`Idempotency key already used: the refund it created is shown.\n`);
    this.log(renderRefund(refund));
    if (refund.status === 'pending')
      this.log(`\nStill pending: the provider has not answered yet. Check later with: ${this.config.bin} refunds get ${refund.id}`);
    return refund;
  }
}
