import { withTransaction } from '../../src/domain/context';
import { operatorContext } from '../../src/services/access/operators';
import { scoped } from '../../src/db/scoped';
import { transition } from '../../src/services/status';
import { PAYMENT_MACHINE, REFUND_MACHINE } from '../../src/services/payments/machines';
import { useMoneyHarness, payWithCard } from '../helpers/money';

// Payments and refunds move through their declared machines (src/services/payments/machines.ts) and transition():
// a move the machine does not allow is its 409, and each move is audited (before and after) and announces its events.

describe('the payment and refund machines', () => {
  const m = useMoneyHarness({ ledger: 'afterAll' });

  const tenant = () => m.as(m.sandbox.tenantKey.secretKey);
  const ops = () => operatorContext(m.rt, { level: 'tenant', tenantId: m.sandbox.tenantId, livemode: false, operator: 'ops-machine' });

  /** the audit entries about a record, oldest first: action and the statuses before and after */
  const auditOf = async (targetId: string) =>
    (
      await m.rt.db.models.AuditEntry.findAll({
        where: { targetId },
        order: [
          ['createdAt', 'ASC'],
          ['id', 'ASC'],
        ],
        raw: true,
      })
    ).map((row) => {
      const entry = row as unknown as { action: string; before: unknown; after: unknown };
      const status = (value: unknown) => ((typeof value === 'string' ? JSON.parse(value) : value) as { status?: string } | null)?.status;
      return { action: entry.action, from: status(entry.before), to: status(entry.after) };
    });

  /** the types of the events whose data is the record `id`, oldest first */
  const eventsOf = async (id: string) =>
    (
      await m.rt.db.models.Event.findAll({
        order: [
          ['createdAt', 'ASC'],
          ['id', 'ASC'],
        ],
        raw: true,
      })
    )
      .map((row) => row as unknown as { type: string; data: unknown })
      .filter((event) => ((typeof event.data === 'string' ? JSON.parse(event.data) : event.data) as { id?: string }).id === id)
      .map((event) => event.type);

  test("authorize, capture, refunds: each move audited with its statuses and announced; refused moves are the machine's 409", async () => {
    const { paymentId } = await payWithCard(m, '4242424242424242', { captureMethod: 'manual' });
    expect(await auditOf(paymentId)).toEqual([
      { action: 'payment.processing', from: undefined, to: 'processing' },
      { action: 'payment.requires_capture', from: 'processing', to: 'requires_capture' },
    ]);

    const captured = await tenant().post(`/v1/payments/${paymentId}/capture`, {});
    expect(captured.status).toBe(200);
    expect(captured.body.data.status).toBe('captured');
    expect((await auditOf(paymentId)).slice(2)).toEqual([{ action: 'payment.succeeded', from: 'requires_capture', to: 'captured' }]);
    expect(await eventsOf(paymentId)).toEqual([
      'payment.created',
      'payment.processing',
      'payment.requires_capture',
      'payment.captured',
      'payment.succeeded',
    ]);

    // refused by the machine: captured is not capturable nor cancelable
    const again = await tenant().post(`/v1/payments/${paymentId}/capture`, {});
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('PAYMENT_NOT_CAPTURABLE');
    const cancel = await tenant().post(`/v1/payments/${paymentId}/cancel`, {});
    expect(cancel.status).toBe(409);
    expect(cancel.body.code).toBe('PAYMENT_NOT_CANCELABLE');

    const part = await tenant().post(`/v1/payments/${paymentId}/refunds`, { amount: { currency: 'EUR', valueMinor: 4_000 } });
    expect(part.status).toBe(201);
    await m.settle();
    const rest = await tenant().post(`/v1/payments/${paymentId}/refunds`, {});
    expect(rest.status).toBe(201);
    await m.settle();
    for (const refund of [part, rest]) {
      const id = refund.body.data.id as string;
      expect(await auditOf(id)).toEqual([
        { action: 'refund.created', from: undefined, to: 'pending' },
        { action: 'refund.succeeded', from: 'pending', to: 'succeeded' },
      ]);
      expect(await eventsOf(id)).toEqual(['refund.created', 'refund.succeeded']);
    }
    expect((await auditOf(paymentId)).slice(3)).toEqual([
      { action: 'payment.partially_refunded', from: 'captured', to: 'partially_refunded' },
      { action: 'payment.refunded', from: 'partially_refunded', to: 'refunded' },
    ]);
    // a refund's success moves its payment without a payment event (refund.succeeded tells it)
    expect((await eventsOf(paymentId)).slice(5)).toEqual([]);

    const more = await tenant().post(`/v1/payments/${paymentId}/refunds`, {});
    expect(more.status).toBe(409);
    expect(more.body.code).toBe('PAYMENT_ALREADY_REFUNDED');

    // moves the machines do not declare from these statuses: INVALID_STATE_TRANSITION, nothing written
    const ctx = ops();
    await m.rt.db.transaction(async (transaction) => {
      const tx = withTransaction(ctx, transaction);
      const payment = await scoped(tx, tx.db.models.Payment).get(paymentId, { lock: true });
      await expect(transition(tx, PAYMENT_MACHINE, payment, 'fail')).rejects.toMatchObject({
        status: 409,
        code: 'INVALID_STATE_TRANSITION',
        message: 'A refunded payment cannot be failed.',
      });
      const refund = await scoped(tx, tx.db.models.Refund).get(part.body.data.id as string);
      await expect(transition(tx, REFUND_MACHINE, refund, 'fail')).rejects.toMatchObject({ status: 409, code: 'INVALID_STATE_TRANSITION' });
    });
    expect((await auditOf(paymentId)).length).toBe(5);
  });

  test('a declined card: processing to failed, audited and announced; a failed payment cannot be canceled', async () => {
    const { paymentId } = await payWithCard(m, '4000000000000002');
    expect(await auditOf(paymentId)).toEqual([
      { action: 'payment.processing', from: undefined, to: 'processing' },
      { action: 'payment.failed', from: 'processing', to: 'failed' },
    ]);
    expect(await eventsOf(paymentId)).toEqual(['payment.created', 'payment.processing', 'payment.failed']);
    const cancel = await tenant().post(`/v1/payments/${paymentId}/cancel`, {});
    expect(cancel.status).toBe(409);
    expect(cancel.body.code).toBe('PAYMENT_NOT_CANCELABLE');
  });

  test('a voided authorization: requires_capture to voided by the cancel move, audited and announced', async () => {
    const { paymentId } = await payWithCard(m, '4242424242424242', { captureMethod: 'manual' });
    const canceled = await tenant().post(`/v1/payments/${paymentId}/cancel`, {});
    expect(canceled.status).toBe(200);
    expect(canceled.body.data.status).toBe('voided');
    expect((await auditOf(paymentId)).slice(2)).toEqual([{ action: 'payment.canceled', from: 'requires_capture', to: 'voided' }]);
    expect((await eventsOf(paymentId)).slice(3)).toEqual(['payment.canceled']);
  });
});
