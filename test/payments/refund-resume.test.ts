import { operatorContext } from '../../src/services/access/operators';
import { InternalError } from '../../src/domain/errors';
import { runIdempotent } from '../../src/services/idempotency';
import { makeRefund, refundRequest } from '../../src/services/payments/refunds';
import { useMoneyHarness, payWithCard } from '../helpers/money';

// A refund request whose refund committed and which then failed before its answer was kept (a defect, a crash) is
// answered, when retried under its Idempotency-Key, with the refund its key's effect recorded: none is made again.

describe('a refund retried after its refund committed', () => {
  const m = useMoneyHarness({ ledger: 'afterAll' });

  test('answers the committed refund (runIdempotent resume), one refund made', async () => {
    const { paymentId } = await payWithCard(m, '4242424242424242');
    const ctx = operatorContext(m.rt, { level: 'tenant', tenantId: m.sandbox.tenantId, livemode: false, operator: 'ops-resume' });
    const body = { amount: { currency: 'EUR', valueMinor: 1_500 } };
    const call = { key: 'resume-1', keyField: 'idempotencyKey', ...refundRequest(paymentId, body) };
    let made: string | undefined;
    await expect(
      runIdempotent(ctx, call, async (c) => {
        made = (await makeRefund(c, paymentId, body)).id;
        throw new InternalError('the process failed after the refund committed');
      }),
    ).rejects.toBeInstanceOf(InternalError);
    const retried = await runIdempotent(ctx, call, () => {
      throw new Error('a resumed request does not run the operation again');
    });
    expect(retried.replayed).toBe(false);
    expect(retried.replayed === false && retried.result.id).toBe(made);
    const refunds = await m.as(m.sandbox.tenantKey.secretKey).get(`/v1/payments/${paymentId}/refunds`);
    expect(refunds.body.data.map((r: { id: string }) => r.id)).toEqual([made]);
  });
});
