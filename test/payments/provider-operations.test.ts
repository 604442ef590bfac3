import { useMoneyHarness, payWithCard } from '../helpers/money';
import { expectProblem } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { operatorContext } from '../../src/services/access/operators';
import { ConnectorError, connectorFor, registerConnector, type Connector } from '../../src/connectors';
import type { ConnectorResult } from '../../src/connectors/types';
import { capturePayment, PAYMENT_OPERATION_LEASE_MS } from '../../src/services/payments/payments';
import { recoverStalledCalls } from '../../src/services/payments/recovery';
import { takeConnectionViolations } from '../../src/db/database';
import type { PaymentRow } from '../../src/db/models';

/**
 * Capture and cancel through the one provider-call helper (src/services/provider-call.ts): the operation is recorded
 * on the payment before the provider is called with no transaction open, and applied after. The recorded operation is
 * the claim (a second capture or cancel meanwhile is 409, the provider is called once), a refusal leaves the payment
 * as it was, and one whose process died between the call and the apply is finished by recovery, once.
 */

const m = useMoneyHarness({ ledger: 'afterEach' });
const sandboxCard = connectorFor('sandbox-card');
afterEach(async () => {
  registerConnector('sandbox-card', sandboxCard);
});

const merchant = () => m.as(m.sandbox.merchantKey.secretKey);
const row = async (id: string) => (await m.rt.db.models.Payment.findByPk(id))!.get({ plain: true }) as PaymentRow;

/** The sandbox acquirer with one operation replaced; counts its calls. */
function replacing(
  operation: 'capture' | 'void' | 'refund' | 'authorize',
  answer: (original: () => Promise<ConnectorResult>) => Promise<ConnectorResult>,
) {
  const calls: string[] = [];
  const connector = Object.create(sandboxCard) as Connector;
  connector[operation] = async (env, terminal, request) => {
    calls.push(operation);
    return answer(() =>
      (sandboxCard[operation] as (...args: unknown[]) => Promise<ConnectorResult>).call(sandboxCard, env, terminal, request),
    );
  };
  registerConnector('sandbox-card', connector);
  return calls;
}

describe(`capture and cancel through the provider-call helper (${dialectName})`, () => {
  test('while a capture waits for its provider, a second capture and a cancel are 409 and the provider is called once', async () => {
    const { paymentId } = await payWithCard(m, '4242424242424242', { captureMethod: 'manual' });
    let entered!: () => void;
    const inCall = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const calls = replacing('capture', async (original) => {
      entered();
      await gate;
      return original();
    });
    const first = merchant()
      .post(`/v1/payments/${paymentId}/capture`, {})
      .then((res) => res);
    await inCall;
    // the provider is being called: no transaction is open, the payment is still requires_capture to readers
    expect((await merchant().get(`/v1/payments/${paymentId}`)).body.data.status).toBe('requires_capture');
    expectProblem(await merchant().post(`/v1/payments/${paymentId}/capture`, {}), 409, 'PAYMENT_OPERATION_IN_PROGRESS');
    expectProblem(await merchant().post(`/v1/payments/${paymentId}/cancel`), 409, 'PAYMENT_OPERATION_IN_PROGRESS');
    release();
    const captured = await first;
    expect(captured.status).toBe(200);
    expect(captured.body.data.status).toBe('captured');
    expect(calls).toEqual(['capture']);
    expect(await row(paymentId)).toMatchObject({ status: 'captured', pendingOperation: null, pendingOperationUntil: null });
  });

  test('a provider refusal leaves the payment requires_capture (422) and it can be captured or canceled after', async () => {
    const { paymentId } = await payWithCard(m, '4242424242424242', { captureMethod: 'manual' });
    replacing('capture', async () => ({
      status: 'declined',
      providerReference: null,
      declineCode: 'capture_refused',
      message: 'Refused.',
    }));
    expectProblem(await merchant().post(`/v1/payments/${paymentId}/capture`, {}), 422, 'CAPTURE_DECLINED');
    replacing('void', async () => ({ status: 'failed', providerReference: null, declineCode: 'void_refused', message: 'Refused.' }));
    expectProblem(await merchant().post(`/v1/payments/${paymentId}/cancel`), 422, 'VOID_DECLINED');
    expect(await row(paymentId)).toMatchObject({ status: 'requires_capture', pendingOperation: null });
    expect(Number((await row(paymentId)).capturedMinor)).toBe(0);
    registerConnector('sandbox-card', sandboxCard);
    expect((await merchant().post(`/v1/payments/${paymentId}/cancel`)).body.data.status).toBe('voided');
  });

  test('a capture whose process died after the provider call is finished by recovery once its lease ran out, and only once', async () => {
    const { paymentId } = await payWithCard(m, '4242424242424242', { captureMethod: 'manual' });
    // the provider captures, then the process dies before the answer is applied
    const calls = replacing('capture', async (original) => {
      await original();
      throw new Error('process died after the provider call');
    });
    const died = await merchant().post(`/v1/payments/${paymentId}/capture`, {});
    expect(died.status).toBe(500);
    expect(await row(paymentId)).toMatchObject({ status: 'requires_capture', pendingOperation: { kind: 'capture', amountMinor: 10_000 } });
    // the recorded capture is still the claim: nobody else captures or cancels meanwhile
    expectProblem(await merchant().post(`/v1/payments/${paymentId}/cancel`), 409, 'PAYMENT_OPERATION_IN_PROGRESS');
    registerConnector('sandbox-card', sandboxCard);
    const recorded = replacing('capture', (original) => original());
    expect(await recoverStalledCalls(m.rt)).toBe(0); // the lease still holds
    m.clock.advance(PAYMENT_OPERATION_LEASE_MS + 1_000);
    const mark = m.events().length;
    expect(await recoverStalledCalls(m.rt)).toBe(1);
    expect(await recoverStalledCalls(m.rt)).toBe(0);
    expect(calls).toEqual(['capture']);
    expect(recorded).toEqual(['capture']); // sent again once, with the same reference
    expect(await row(paymentId)).toMatchObject({ status: 'captured', pendingOperation: null });
    expect(Number((await row(paymentId)).capturedMinor)).toBe(10_000);
    await m.settle();
    expect(
      m
        .events()
        .slice(mark)
        .filter((e) => e.data.id === paymentId)
        .map((e) => e.type)
        .sort(),
    ).toEqual(['payment.captured', 'payment.succeeded']);
  });

  test('a capture the provider did not answer (timeout, 5xx) stays recorded: 503, 409 to another amount, sent again by recovery until it answers, booked once', async () => {
    const { paymentId } = await payWithCard(m, '4242424242424242', { captureMethod: 'manual' });
    // the provider captures the whole amount, but its answer is lost (the connector's timeout: a retryable ConnectorError)
    const lost = replacing('capture', async (original) => {
      await original();
      throw new ConnectorError('connector capture call failed: TimeoutError', true);
    });
    expectProblem(await merchant().post(`/v1/payments/${paymentId}/capture`, {}), 503, 'PROVIDER_UNAVAILABLE');
    expect(await row(paymentId)).toMatchObject({ status: 'requires_capture', pendingOperation: { kind: 'capture', amountMinor: 10_000 } });
    // another amount under the same reference, or a cancel, would contradict what the provider may have done
    expectProblem(
      await merchant().post(`/v1/payments/${paymentId}/capture`, { amount: { currency: 'EUR', valueMinor: 5_000 } }),
      409,
      'PAYMENT_OPERATION_IN_PROGRESS',
    );
    expectProblem(await merchant().post(`/v1/payments/${paymentId}/cancel`), 409, 'PAYMENT_OPERATION_IN_PROGRESS');
    // recovery after the lease: still no answer, so it stays recorded; then the provider answers and it is booked once
    m.clock.advance(PAYMENT_OPERATION_LEASE_MS + 1_000);
    await recoverStalledCalls(m.rt);
    expect(await row(paymentId)).toMatchObject({ status: 'requires_capture', pendingOperation: { kind: 'capture' } });
    const resent = replacing('capture', (original) => original());
    m.clock.advance(PAYMENT_OPERATION_LEASE_MS + 1_000);
    expect(await recoverStalledCalls(m.rt)).toBe(1);
    expect(lost).toEqual(['capture', 'capture']);
    expect(resent).toEqual(['capture']);
    expect(await row(paymentId)).toMatchObject({ status: 'captured', pendingOperation: null });
    expect(Number((await row(paymentId)).capturedMinor)).toBe(10_000);
  });

  test('a capture the connector could not send at all (not retryable) is cleared: 503 and the payment as it was', async () => {
    const { paymentId } = await payWithCard(m, '4242424242424242', { captureMethod: 'manual' });
    const calls = replacing('capture', async () => {
      throw new ConnectorError('connector is not served over https', false);
    });
    expectProblem(await merchant().post(`/v1/payments/${paymentId}/capture`, {}), 503, 'PROVIDER_UNAVAILABLE');
    expect(calls).toEqual(['capture']);
    expect(await row(paymentId)).toMatchObject({ status: 'requires_capture', pendingOperation: null });
    registerConnector('sandbox-card', sandboxCard);
    expect((await merchant().post(`/v1/payments/${paymentId}/capture`, {})).body.data.status).toBe('captured');
  });

  test("a refund or an authorization the provider did not answer stays pending (no failure, no cascade): the provider's own later answer, or recovery resending the refund with the same reference, settles it once (recovery would resend it with the same reference otherwise)", async () => {
    // a refund: the provider refunds, its answer is lost
    const { paymentId } = await payWithCard(m, '4242424242424242');
    const lostRefunds = replacing('refund', async (original) => {
      await original();
      throw new ConnectorError('connector refund call failed: TimeoutError', true);
    });
    const created = await merchant().post(`/v1/payments/${paymentId}/refunds`, { amount: { currency: 'EUR', valueMinor: 2_500 } });
    expect(created.status).toBe(201);
    expect(created.body.data.status).toBe('pending');
    const refundId = created.body.data.id as string;
    const refundRow = async () =>
      (await m.rt.db.models.Refund.findByPk(refundId))!.get({ plain: true }) as { status: string; providerReference: string | null };
    expect(await refundRow()).toMatchObject({ status: 'pending', providerReference: null });
    // an authorization whose answer is lost: the payment stays processing with its one attempt pending, no cascade
    const lostAuth = replacing('authorize', async (original) => {
      await original();
      throw new ConnectorError('connector authorize call failed: TimeoutError', true);
    });
    const paid = await payWithCard(m, '4242424242424242', { settle: false });
    expect((await row(paid.paymentId)).status).toBe('processing');
    const attempts = async () =>
      (await m.rt.db.models.PaymentAttempt.findAll({ where: { paymentId: paid.paymentId } })).map(
        (a) => a.get({ plain: true }) as { status: string },
      );
    expect((await attempts()).map((a) => a.status)).toEqual(['pending']);
    expect(lostRefunds).toEqual(['refund']);
    expect(lostAuth).toEqual(['authorize']);
    // the provider's own asynchronous answers arrive (the sandbox acquirer answers after its delay): each applied to
    // the one pending record, once
    registerConnector('sandbox-card', sandboxCard);
    await m.settle();
    expect((await attempts()).map((a) => a.status)).toEqual(['succeeded']);
    expect((await row(paid.paymentId)).status).toBe('captured');
    expect((await refundRow()).status).toBe('succeeded');
    expect(Number((await row(paymentId)).refundedMinor)).toBe(2_500);
    m.clock.advance(3 * 60_000);
    expect(await recoverStalledCalls(m.rt)).toBe(0);
  });

  test('the helper refuses to call a provider inside an open transaction', async () => {
    const { paymentId } = await payWithCard(m, '4242424242424242', { captureMethod: 'manual' });
    const ctx = operatorContext(m.rt, {
      level: 'merchant',
      tenantId: m.sandbox.tenantId,
      merchantId: m.sandbox.merchantId,
      livemode: false,
    });
    await expect(m.rt.db.transaction((transaction) => capturePayment({ ...ctx, transaction }, paymentId, {}))).rejects.toMatchObject({
      code: 'PROVIDER_CALL_IN_TRANSACTION',
    });
    expect((await row(paymentId)).status).toBe('requires_capture');
  });
});

describe(`the connection guard (${dialectName})`, () => {
  test('a query outside the open transaction of its flow, or a second transaction, throws and is recorded', async () => {
    const { Tenant } = m.rt.db.models;
    await expect(m.rt.db.transaction(async () => Tenant.count())).rejects.toThrow(/connection guard/);
    await expect(m.rt.db.transaction(async () => m.rt.db.transaction(async () => 1))).rejects.toThrow(/connection guard/);
    // swallowed, it is still recorded (test/setup-after-env.ts fails the test with it)
    await m.rt.db.transaction(async () => Tenant.count().catch(() => 0));
    expect(takeConnectionViolations()).toHaveLength(3);
    // inside the transaction, and after it, nothing is refused
    await m.rt.db.transaction(async (transaction) => Tenant.count({ transaction }));
    await Tenant.count();
    expect(takeConnectionViolations()).toEqual([]);
  });

  test("a transaction opened straight through Sequelize (outside Database.transaction) throws and is recorded; a savepoint of the flow's is fine", async () => {
    const { Tenant } = m.rt.db.models;
    await expect(m.rt.db.sequelize.transaction(async (transaction) => Tenant.count({ transaction }))).rejects.toThrow(
      /connection guard: a transaction was opened through Sequelize, outside Database\.transaction/,
    );
    await expect(m.rt.db.transaction(async () => m.rt.db.sequelize.transaction(async () => 1))).rejects.toThrow(
      /outside Database\.transaction while this request or job holds an open transaction/,
    );
    expect(takeConnectionViolations()).toHaveLength(2);
    await m.rt.db.transaction(async (transaction) =>
      m.rt.db.sequelize.transaction({ transaction }, async (savepoint) => Tenant.count({ transaction: savepoint })),
    );
    expect(takeConnectionViolations()).toEqual([]);
  });

  test('a call out of the process (a provider, a webhook endpoint) started while the flow holds a transaction throws and is recorded', async () => {
    await expect(
      m.rt.db.transaction(async () => m.rt.db.assertNoOpenTransaction('the provider call (sandbox-card capture)')),
    ).rejects.toThrow(
      /connection guard: the provider call \(sandbox-card capture\) was started while this request or job holds an open transaction/,
    );
    expect(takeConnectionViolations()).toHaveLength(1);
    // between two transactions, nothing is refused
    await m.rt.db.transaction(async () => 1);
    m.rt.db.assertNoOpenTransaction('the provider call (sandbox-card capture)');
    expect(takeConnectionViolations()).toEqual([]);
  });
});
