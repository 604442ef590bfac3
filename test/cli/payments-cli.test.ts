import request from 'supertest';
import { withRuntimeOf, dialectName } from '../helpers/db';
import { useCliSandbox } from '../helpers/cli';
import { expectLedgerInvariant } from '../helpers/ledger';
import { about, storedEvents } from '../helpers/events';
import { createApp } from '../../src/http/app';
import { runDueSandboxOperations } from '../../src/services/sandbox/acquirer';

/**
 * The payments and refunds CLI on real sandbox payments made by `events trigger` (checkout session → complete →
 * the sandbox acquirer's answers run by the command itself): list, get, partial refunds with an idempotency key,
 * manual capture, cancel, and the exit codes of refused moves. Outputs are parsed from --json.
 */

jest.setTimeout(180_000);

const s = useCliSandbox();
const cli = s.cli;

const CARD_NUMBERS = ['4242424242424242', '4000000000005126', '4000000000000002'];
const NO_ESCAPES = /\u001b\[/;

afterAll(async () => {
  // no command ever prints a card number
  for (const out of s.outputs) for (const number of CARD_NUMBERS) expect(out.stdout + out.stderr).not.toContain(number);
});

const apiGet = (p: string) =>
  withRuntimeOf(s.db, (rt) => request(createApp(rt)).get(p).set('Authorization', `Bearer ${s.sandbox.tenantKey.secretKey}`));

async function trigger(type: string) {
  const res = await cli('events', 'trigger', type, '--tenant', s.sandbox.tenantId, '--merchant', s.sandbox.merchantId, '--json');
  expect(res.status).toBe(0);
  return res.json();
}

const eventTypesOf = (paymentId: string) =>
  withRuntimeOf(s.db, async (rt) => (await storedEvents(rt, { tenantId: s.sandbox.tenantId }, about(paymentId))).map((e) => e.type));

describe(`payplane payments and refunds (${dialectName})`, () => {
  let paid: string;

  test('help lists the commands with examples', async () => {
    const [payments, refunds, create] = await Promise.all([
      cli('payments', '--help'),
      cli('refunds', '--help'),
      cli('refunds', 'create', '--help'),
    ]);
    for (const cmd of ['list', 'get', 'capture', 'cancel']) expect(payments.stdout).toContain(`payments ${cmd}`);
    for (const cmd of ['create', 'list', 'get']) expect(refunds.stdout).toContain(`refunds ${cmd}`);
    expect(create.stdout).toContain('EXAMPLES');
    expect(create.stdout).toContain('--idempotency-key');
  });

  test('events trigger payment.succeeded makes a real captured sandbox payment; list and get show it', async () => {
    const triggered = await trigger('payment.succeeded');
    expect(triggered).toMatchObject({
      type: 'payment.succeeded',
      sample: false,
      paymentStatus: 'captured',
      card: { brand: 'visa', last4: '4242' },
    });
    paid = triggered.paymentId;
    expect(triggered.events.map((e: { type: string }) => e.type)).toEqual([
      'checkout.session.created',
      'payment.created',
      'payment.processing',
      'payment.succeeded',
      'payment.captured',
      'checkout.session.completed',
    ]);
    expect(triggered.events.find((e: { type: string }) => e.type === 'payment.succeeded').id).toBe(triggered.eventId);

    const [list, table, failedOnly, live, got, api] = await Promise.all([
      cli('payments', 'list', '--tenant', s.sandbox.tenantId, '--json'),
      cli('payments', 'list', '--merchant', s.sandbox.merchantId),
      cli('payments', 'list', '--status', 'failed', '--json'),
      cli('payments', 'list', '--live', '--json'),
      cli('payments', 'get', paid, '--json'),
      apiGet(`/v1/payments/${paid}`),
    ]);
    expect(list.status).toBe(0);
    expect(list.json().data.map((p: { id: string }) => p.id)).toEqual([paid]);
    expect(list.json().pagination.totalCount).toBe(1);
    expect(table.status).toBe(0);
    expect(table.stdout).toContain(paid);
    expect(table.stdout).toContain('25.00 EUR');
    expect(table.stdout).toContain('visa •••• 4242');
    expect(table.stdout).toMatch(/1 of 1/);
    expect(table.stdout).not.toMatch(NO_ESCAPES);
    expect(failedOnly.json().data).toEqual([]);
    expect(live.json().data).toEqual([]);

    expect(got.status).toBe(0);
    const payment = got.json();
    expect(api.status).toBe(200);
    expect(payment).toEqual(api.body.data);
    expect(payment).toMatchObject({
      id: paid,
      tenantId: s.sandbox.tenantId,
      merchantId: s.sandbox.merchantId,
      status: 'captured',
      captureMethod: 'automatic',
      livemode: false,
      amount: { currency: 'EUR', valueMinor: 2500 },
      card: { brand: 'visa', last4: '4242' },
    });
    const b = payment.amountBreakdown;
    expect(b.captured.valueMinor).toBe(2500);
    expect(b.net.valueMinor).toBe(b.captured.valueMinor - b.refunded.valueMinor - b.fee.valueMinor);
    expect(payment.feeBreakdown).not.toBeNull();
    expect(payment.routingDecision).toMatchObject({ terminals: [payment.terminalId] });

    const text = await cli('payments', 'get', paid);
    expect(text.stdout).toContain('Amounts');
    expect(text.stdout).toContain('Fees');
    expect(text.stdout).toContain('Routing');
    expect(text.stdout).toMatch(/captured\s+│\s+25\.00 EUR/);
  });

  test('refunds create: a partial refund reaches succeeded; the idempotency key replays it; list and get', async () => {
    const first = await cli(
      'refunds',
      'create',
      paid,
      '--amount',
      '10.00',
      '--reason',
      'damaged item',
      '--idempotency-key',
      'cli-refund-1',
      '--json',
    );
    expect(first.status).toBe(0);
    const refund = first.json();
    expect(refund).toMatchObject({
      paymentId: paid,
      status: 'succeeded',
      amount: { currency: 'EUR', valueMinor: 1000 },
      reason: 'damaged item',
    });

    const [replay, reused, tooMuch, badAmount, both] = await Promise.all([
      cli('refunds', 'create', paid, '--amount', '10.00', '--reason', 'damaged item', '--idempotency-key', 'cli-refund-1', '--json'),
      cli('refunds', 'create', paid, '--amount', '11.00', '--idempotency-key', 'cli-refund-1', '--json'),
      cli('refunds', 'create', paid, '--amount-minor', '1501', '--json'),
      cli('refunds', 'create', paid, '--amount', '1.234', '--json'),
      cli('refunds', 'create', paid, '--amount', '1', '--amount-minor', '100', '--json'),
    ]);
    expect(replay.status).toBe(0);
    expect(replay.json()).toEqual(refund);
    // the key lives in the tenant's scope, as the API's: the tenant's secret key replays the same refund
    const api = await withRuntimeOf(s.db, (rt) =>
      request(createApp(rt))
        .post(`/v1/payments/${paid}/refunds`)
        .set('Authorization', `Bearer ${s.sandbox.tenantKey.secretKey}`)
        .set('Idempotency-Key', 'cli-refund-1')
        .send({ amount: { currency: 'EUR', valueMinor: 1000 }, reason: 'damaged item' }),
    );
    expect(api.status).toBe(201);
    expect(api.headers['idempotent-replayed']).toBe('true');
    expect(api.body.data.id).toBe(refund.id);
    expect(reused.status).toBe(5);
    expect(reused.json().error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(tooMuch.status).toBe(6);
    expect(tooMuch.json().error.code).toBe('REFUND_EXCEEDS_REFUNDABLE');
    expect(badAmount.status).toBe(2);
    expect(badAmount.json().error.errors[0]).toMatchObject({ path: '--amount', message: expect.stringContaining('2 decimal places') });
    expect(both.status).toBe(2);
    expect(both.json().error.errors[0].path).toBe('--amount');

    const [list, got, payment, apiList] = await Promise.all([
      cli('refunds', 'list', paid, '--json'),
      cli('refunds', 'get', refund.id, '--json'),
      cli('payments', 'get', paid, '--json'),
      apiGet(`/v1/payments/${paid}/refunds`),
    ]);
    expect(list.json().data).toEqual([refund]);
    expect(apiList.body.data).toEqual([refund]);
    expect(got.json()).toEqual(refund);
    expect(payment.json()).toMatchObject({
      status: 'partially_refunded',
      amountBreakdown: { captured: { valueMinor: 2500 }, refunded: { valueMinor: 1000 } },
    });
    expect((await eventTypesOf(paid)).filter((t) => t.startsWith('refund.'))).toEqual(['refund.created', 'refund.succeeded']);

    // without waiting the command says the refund is still pending; a later command's acquirer run settles it
    const pending = await cli('refunds', 'create', paid, '--amount-minor', '500', '--wait-seconds', '0');
    expect(pending.status).toBe(0);
    expect(pending.stdout).toMatch(/status\s+pending/);
    expect(pending.stdout).toContain('Still pending');
    const rest = await cli('refunds', 'create', paid, '--json');
    expect(rest.json()).toMatchObject({ status: 'succeeded', amount: { valueMinor: 1000 } });
    const all = (await cli('refunds', 'list', paid, '--json')).json().data as { status: string; amount: { valueMinor: number } }[];
    expect(all.map((r) => [r.amount.valueMinor, r.status])).toEqual([
      [1000, 'succeeded'],
      [500, 'succeeded'],
      [1000, 'succeeded'],
    ]);
    expect((await cli('payments', 'get', paid, '--json')).json()).toMatchObject({
      status: 'refunded',
      amountBreakdown: { refunded: { valueMinor: 2500 } },
    });
  });

  test('capture of a captured payment is 409 (exit 5); unknown ids are 404 (exit 4); a bad id names the argument', async () => {
    const [capture, missing, malformed, missingRefund] = await Promise.all([
      cli('payments', 'capture', paid, '--json'),
      cli('payments', 'get', '00000000-0000-4000-8000-000000000000', '--json'),
      cli('payments', 'get', 'pay_123', '--json'),
      cli('refunds', 'get', '00000000-0000-4000-8000-000000000000', '--json'),
    ]);
    expect(capture.status).toBe(5);
    expect(capture.json().error).toMatchObject({ code: 'PAYMENT_NOT_CAPTURABLE', status: 409 });
    expect(missing.status).toBe(4);
    expect(missingRefund.status).toBe(4);
    expect(malformed.status).toBe(2);
    expect(malformed.json().error.errors[0].path).toBe('PAYMENT_ID');
  });

  test('a manual-capture payment is captured with payments capture', async () => {
    const triggered = await trigger('payment.requires_capture');
    expect(triggered.paymentStatus).toBe('requires_capture');
    const id = triggered.paymentId as string;
    const tooMuch = await cli('payments', 'capture', id, '--amount', '25.01', '--json');
    expect(tooMuch.status).toBe(6);
    expect(tooMuch.json().error.code).toBe('CAPTURE_EXCEEDS_AUTHORIZED');
    const captured = await cli('payments', 'capture', id, '--amount-minor', '2500', '--json');
    expect(captured.status).toBe(0);
    expect(captured.json()).toMatchObject({
      id,
      status: 'captured',
      captureMethod: 'manual',
      amountBreakdown: { authorized: { valueMinor: 2500 }, captured: { valueMinor: 2500 } },
    });
    expect((await apiGet(`/v1/payments/${id}`)).body.data.status).toBe('captured');
    expect((await eventTypesOf(id)).filter((t) => t.startsWith('payment.'))).toEqual([
      'payment.created',
      'payment.processing',
      'payment.requires_capture',
      'payment.captured',
      'payment.succeeded',
    ]);
    const again = await cli('payments', 'capture', id, '--json');
    expect(again.status).toBe(5);
    expect(again.json().error.code).toBe('PAYMENT_NOT_CAPTURABLE');
  });

  test('payments cancel voids a requires_capture payment, needs --yes off a terminal, and is 409 afterwards', async () => {
    const id = (await trigger('payment.requires_capture')).paymentId as string;
    const unconfirmed = await cli('payments', 'cancel', id);
    expect(unconfirmed.status).toBe(2);
    expect(unconfirmed.stderr).toContain('--yes');
    expect((await cli('payments', 'get', id, '--json')).json().status).toBe('requires_capture');

    const canceled = await cli('payments', 'cancel', id, '--yes', '--json');
    expect(canceled.status).toBe(0);
    expect(canceled.json()).toMatchObject({
      id,
      status: 'voided',
      amountBreakdown: { captured: { valueMinor: 0 }, refunded: { valueMinor: 0 } },
    });
    expect(await eventTypesOf(id)).toContain('payment.canceled');
    const [again, refunds, refundVoided, filtered] = await Promise.all([
      cli('payments', 'cancel', id, '--yes', '--json'),
      cli('refunds', 'list', id, '--json'),
      cli('refunds', 'create', id, '--json'),
      cli('payments', 'list', '--tenant', s.sandbox.tenantId, '--status', 'voided', '--json'),
    ]);
    expect(again.status).toBe(5);
    expect(again.json().error.code).toBe('PAYMENT_NOT_CANCELABLE');
    expect(refunds.json().data).toEqual([]);
    expect(refundVoided.status).toBe(5);
    expect(refundVoided.json().error.code).toBe('PAYMENT_NOT_REFUNDABLE');
    expect(filtered.json().data.map((p: { id: string }) => p.id)).toEqual([id]);

    // a captured payment cannot be canceled
    const capturedCancel = await cli('payments', 'cancel', paid, '--yes', '--json');
    expect(capturedCancel.status).toBe(5);
  });

  test('events trigger drives the other scenarios: failed, canceled, refund.failed, requires_action', async () => {
    const [failed, canceled, refundFailed, action] = [
      await trigger('payment.failed'),
      await trigger('payment.canceled'),
      await trigger('refund.failed'),
      await trigger('payment.requires_action'),
    ];
    expect(failed).toMatchObject({ paymentStatus: 'failed', card: { last4: '0002' } });
    expect(canceled).toMatchObject({ paymentStatus: 'voided' });
    expect(canceled.events.map((e: { type: string }) => e.type)).toContain('payment.canceled');
    expect(refundFailed).toMatchObject({ paymentStatus: 'captured', refundStatus: 'failed', card: { last4: '5126' } });
    expect(refundFailed.events.map((e: { type: string }) => e.type).slice(-2)).toEqual(['refund.created', 'refund.failed']);
    expect(action).toMatchObject({ paymentStatus: 'requires_action' });
    const payment = (await cli('payments', 'get', action.paymentId, '--json')).json();
    expect(payment.action).toMatchObject({ type: 'redirect', url: expect.stringContaining('/sandbox/3ds/') });
    // the ledger holds after all of it
    await withRuntimeOf(s.db, (rt) => expectLedgerInvariant(rt));
  });

  test('events trigger makes real records for the checkout session and balance types', async () => {
    const created = await trigger('checkout.session.created');
    expect(created).toMatchObject({ type: 'checkout.session.created', sample: false, paymentId: null, card: null });
    const expired = await trigger('checkout.session.expired');
    expect(expired.events.map((e: { type: string }) => e.type)).toEqual(['checkout.session.created', 'checkout.session.expired']);
    const sessions = await Promise.all([created, expired].map((t) => apiGet(`/v1/checkout-sessions/${t.checkoutSessionId}`)));
    expect(sessions.map((r) => r.body.data.status)).toEqual(['open', 'expired']);

    // the merchant's funds are still pending (48 hours of holding): a refund takes the available balance below zero
    const negative = await trigger('balance.negative');
    expect(negative).toMatchObject({ type: 'balance.negative', sample: false, refundStatus: 'succeeded' });
    const event = await withRuntimeOf(
      s.db,
      async (rt) => (await rt.db.models.Event.findByPk(negative.eventId))!.get({ plain: true }) as { data: Record<string, unknown> },
    );
    expect(event.data).toMatchObject({ refundId: negative.refundId, paymentId: negative.paymentId, merchantId: s.sandbox.merchantId });
    expect((event.data.available as { valueMinor: number }).valueMinor).toBeLessThan(0);

    const reached = await trigger('balance.threshold_reached');
    expect(reached).toMatchObject({
      type: 'balance.threshold_reached',
      sample: false,
      paymentStatus: 'captured',
      thresholdId: expect.any(String),
    });
    const thresholdEvent = await withRuntimeOf(
      s.db,
      async (rt) => (await rt.db.models.Event.findByPk(reached.eventId))!.get({ plain: true }) as { data: Record<string, unknown> },
    );
    expect(thresholdEvent.data).toMatchObject({
      sourceId: reached.paymentId,
      balanceType: 'pending',
      direction: 'above',
      threshold: { id: reached.thresholdId },
    });
    // the threshold made for it is gone again
    expect((await apiGet(`/v1/balance-thresholds?merchantId=${s.sandbox.merchantId}`)).body.data).toEqual([]);

    // balance.available: a payment of a past day, beyond the 48 hours of holding, released by the job's own code
    const released = await trigger('balance.available');
    expect(released).toMatchObject({ type: 'balance.available', sample: false, released: expect.any(Number) });
    expect(Date.now() - Date.parse(released.paidAt)).toBeGreaterThan(48 * 3_600_000);
    const releaseEvent = await withRuntimeOf(
      s.db,
      async (rt) => (await rt.db.models.Event.findByPk(released.eventId))!.get({ plain: true }) as { data: Record<string, unknown> },
    );
    expect(releaseEvent.data).toMatchObject({
      sourceType: 'payment',
      sourceId: released.paymentId,
      merchantId: s.sandbox.merchantId,
      kind: 'pending',
    });
    const pastPayment = (await apiGet(`/v1/payments/${released.paymentId}`)).body.data;
    // made at noon UTC of that day (its clock ran on while the payment was made)
    expect([pastPayment.status, pastPayment.createdAt.slice(0, 13)]).toEqual(['captured', released.paidAt.slice(0, 13)]);
    await withRuntimeOf(s.db, (rt) => expectLedgerInvariant(rt));
  });

  test('payments get --wait waits while the payment is processing: exit 8 after --timeout, the answer once the acquirer has given it', async () => {
    // a payment whose acquirer answer nobody has run yet (no serve, no jobs): it stays processing
    const paymentId = await withRuntimeOf(s.db, async (rt) => {
      const app = createApp(rt);
      const auth = `Bearer ${s.sandbox.tenantKey.secretKey}`;
      const session = await request(app)
        .post('/v1/checkout-sessions')
        .set('Authorization', auth)
        .send({ merchantId: s.sandbox.merchantId, amount: { currency: 'EUR', valueMinor: 1234 }, successUrl: 'https://example.com/ok' });
      expect(session.status).toBe(201);
      const paid = await request(app)
        .post(`/v1/checkout-sessions/${session.body.data.id}/complete`)
        .set('Authorization', auth)
        .send({
          paymentMethod: {
            type: 'card',
            card: { number: '4242424242424242', expMonth: 12, expYear: 2034, cvc: '123', holderName: 'Wait Test' },
          },
        });
      expect(paid.status).toBe(200);
      expect(paid.body.data.paymentStatus).toBe('processing');
      return paid.body.data.paymentId as string;
    });
    const late = await cli('payments', 'get', paymentId, '--wait', '--timeout', '1', '--json');
    expect(late.status).toBe(8);
    expect(late.json().error).toMatchObject({ code: 'PAYMENT_STILL_PROCESSING' });
    // the acquirer answers while the command waits
    const waiting = cli('payments', 'get', paymentId, '--wait', '--timeout', '60', '--json');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await withRuntimeOf(s.db, (rt) => runDueSandboxOperations(rt))).toBeGreaterThanOrEqual(1);
    const answered = await waiting;
    expect(answered.status).toBe(0);
    expect(answered.json()).toMatchObject({ id: paymentId, status: 'captured' });
    // --timeout only with --wait
    expect((await cli('payments', 'get', paymentId, '--timeout', '5')).status).toBe(2);
  });
});
