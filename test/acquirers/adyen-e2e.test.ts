import request from 'supertest';
import { useMoneyHarness, payWithCard, openSession, testCard } from '../helpers/money';
import { dialectName } from '../helpers/db';
import { AdyenFake, type FakeNotification } from '../fakes/adyen';
import {
  acquirerConfig,
  ADYEN_PROVIDER as ADYEN,
  createAcquirerTerminal,
  disableSandboxTerminal,
  pointProvider,
} from '../helpers/acquirers';
import { expectProblem } from '../helpers/api';
import { runDueNotifications } from '../../src/services/notifications/redelivery';
import { eur } from '../helpers/amounts';
import type { LedgerEntryRow } from '../../src/db/models';
import { connectorFor, registerConnector } from '../../src/connectors';
import { recoverStalledCalls } from '../../src/services/payments/recovery';

/**
 * Adyen end to end through the API: a terminal of provider `adyen` on the sandbox merchant (the sandbox card
 * terminal disabled, so routing picks it), its integration's connectorBaseUrl on the fake, payments answered by the
 * fake and settled by its HMAC-signed notifications at POST /v1/provider-notifications/{terminalId}.
 */

const m = useMoneyHarness({
  ledger: 'afterAll',
  config: acquirerConfig(2000),
});
let fake: AdyenFake;
let terminalId: string;

const tenant = () => m.as(m.sandbox.tenantKey.secretKey);
const merchant = () => m.as(m.sandbox.merchantKey.secretKey);
const payment = async (id: string) => (await tenant().get(`/v1/payments/${id}`)).body.data;

/** The ledger entries booked for a payment (its capture), in order. */
async function ledgerEntriesOf(paymentId: string): Promise<LedgerEntryRow[]> {
  const rows = await m.rt.db.models.LedgerEntry.findAll({ where: { sourceId: paymentId } as never, order: [['id', 'ASC']], raw: true });
  return rows as unknown as LedgerEntryRow[];
}

/** The payment's attempts (records: their codes are internal). */
async function attemptsOf(paymentId: string) {
  const rows = await m.rt.db.models.PaymentAttempt.findAll({ where: { paymentId } as never, order: [['createdAt', 'ASC']] });
  return rows.map((r) => r.get({ plain: true }) as Record<string, any>);
}

/** The pspReference the fake gave the payment's current attempt (our reference), whether or not its answer arrived. */
async function pspOfAttempt(paymentId: string): Promise<string> {
  const row = (await m.rt.db.models.Payment.findByPk(paymentId))!.get({ plain: true }) as { currentAttemptId: string };
  const found = [...fake.payments.values()].filter((p) => p.reference === row.currentAttemptId);
  expect(found).toHaveLength(1);
  return found[0]!.pspReference;
}

/** The sandbox merchant's EUR balance as the API reports it. */
async function balance() {
  const res = await tenant().get(`/v1/balances?merchantId=${m.sandbox.merchantId}&currency=EUR`);
  expect(res.status).toBe(200);
  return res.body.data[0];
}

/** Delivers a notification as Adyen does (no bearer credential: its items' HMAC is the check). */
async function notify(n: FakeNotification) {
  const res = await request(m.app).post(`/v1/provider-notifications/${terminalId}`).set(n.headers).send(n.body);
  await m.settle();
  return res;
}

function expectAccepted(res: request.Response) {
  expect(res.status).toBe(200);
  expect(res.text).toBe('[accepted]');
}

/**
 * The customer passes or fails the fake's 3DS page and comes back to our return page (/provider-returns/{attemptId})
 * with Adyen's redirectResult. The payment engine does not send an actionReturnUrl yet (main), so the fake sends the
 * customer to the merchant's returnUrl: the test takes the redirectResult from there to our return page.
 */
async function returnFromChallenge(paymentId: string, url: string, outcome: 'pass' | 'fail') {
  const back = new URL(await fake.completeChallenge(url, outcome));
  const redirectResult = back.searchParams.get('redirectResult');
  expect(redirectResult).toBeTruthy();
  const row = (await m.rt.db.models.Payment.findByPk(paymentId))!.get({ plain: true }) as { currentAttemptId: string };
  const target = back.pathname.startsWith('/provider-returns/')
    ? back.pathname + back.search
    : `/provider-returns/${row.currentAttemptId}?redirectResult=${encodeURIComponent(redirectResult!)}`;
  return request(m.app).get(target);
}

beforeAll(async () => {
  fake = await new AdyenFake().start();
  await pointProvider(m, ADYEN, fake.baseUrl);
  terminalId = await createAcquirerTerminal(m, ADYEN, fake.credentials(), {
    name: 'Adyen EU',
    mcc: '5734',
    descriptor: 'PAYPLANE TEST',
    supportedCurrencies: ['EUR'],
  });
  await disableSandboxTerminal(m);
});
afterAll(async () => {
  await fake?.stop();
});

describe(`Adyen through the API (${dialectName})`, () => {
  test('checkout complete answered Received is processing; the AUTHORISATION notification captures it; a repeat changes nothing', async () => {
    const paid = await payWithCard(m, '4000000000000036');
    expect(paid.payment).toMatchObject({ status: 'processing', providerIntegrationId: ADYEN, terminalId });
    const psp = paid.payment.providerReference as string;
    expect(psp).toMatch(/^[0-9A-F]{16}$/);
    const n = fake.notification(fake.authorisation(psp, true));
    expectAccepted(await notify(n));
    const after = await payment(paid.paymentId);
    expect(after).toMatchObject({ status: 'captured', amountBreakdown: { captured: { valueMinor: 10_000 } } });
    expectAccepted(await notify(n));
    expect(await payment(paid.paymentId)).toEqual(after);
    expect(await m.eventTypesAbout(paid.paymentId)).toEqual(expect.arrayContaining(['payment.captured']));
  });

  test('a refused AUTHORISATION notification fails the payment with its decline code', async () => {
    const paid = await payWithCard(m, '4000000000000036');
    const psp = paid.payment.providerReference as string;
    expectAccepted(await notify(fake.notification(fake.authorisation(psp, false, 'Not enough balance'))));
    expect(await payment(paid.paymentId)).toMatchObject({ status: 'failed', errorCode: 'insufficient_funds' });
  });

  test('a manual capture is answered pending; its CAPTURE notification captures it, booked once; a refused CAPTURE clears it; a cancel is voided by its CANCELLATION', async () => {
    const paid = await payWithCard(m, '4111111111111111', { captureMethod: 'manual' });
    expect(paid.payment).toMatchObject({ status: 'requires_capture', terminalId });
    const psp = paid.payment.providerReference as string;

    const captured = await merchant().post(`/v1/payments/${paid.paymentId}/capture`, { amount: eur(6000) });
    expect(captured.status).toBe(200);
    expect(await payment(paid.paymentId)).toMatchObject({ status: 'requires_capture', providerStatus: 'capture_pending' });
    const [capturePsp] = fake.modificationsOf(psp, 'captures');
    expect(fake.modifications.get(capturePsp!)).toMatchObject({ amount: { currency: 'EUR', value: 6000 } });
    // a second capture meanwhile is refused: one capture at a time
    expectProblem(
      await merchant().post(`/v1/payments/${paid.paymentId}/capture`, { amount: eur(1000) }),
      409,
      'PAYMENT_OPERATION_IN_PROGRESS',
    );
    expect(await ledgerEntriesOf(paid.paymentId)).toEqual([]);

    const n = fake.notification(fake.modificationOutcome(capturePsp!));
    expectAccepted(await notify(n));
    const after = await payment(paid.paymentId);
    expect(after).toMatchObject({ status: 'captured', amountBreakdown: { captured: eur(6000) } });
    expect(after.amountBreakdown.fee.valueMinor).toBeGreaterThan(0);
    expect(after.amountBreakdown.net.valueMinor).toBe(6000 - after.amountBreakdown.fee.valueMinor);
    const booked = await ledgerEntriesOf(paid.paymentId);
    expect(booked.length).toBeGreaterThan(0);
    expect(new Set(booked.map((e) => e.postingId)).size).toBe(1);
    const events = await m.eventTypesAbout(paid.paymentId);
    expect(events.filter((t) => t === 'payment.captured')).toHaveLength(1);

    expectAccepted(await notify(n));
    expect(await payment(paid.paymentId)).toEqual(after);
    expect(await ledgerEntriesOf(paid.paymentId)).toEqual(booked);
    expect(await m.eventTypesAbout(paid.paymentId)).toEqual(events);

    // a capture Adyen refuses afterwards (CAPTURE success=false): the operation cleared, the reason kept
    const refused = await payWithCard(m, '4111111111111111', { captureMethod: 'manual' });
    const refusedPsp = refused.payment.providerReference as string;
    expect((await merchant().post(`/v1/payments/${refused.paymentId}/capture`)).status).toBe(200);
    const [refusedCapture] = fake.modificationsOf(refusedPsp, 'captures');
    expectAccepted(await notify(fake.notification(fake.modificationOutcome(refusedCapture!, false))));
    const cleared = await payment(refused.paymentId);
    expect(cleared).toMatchObject({ status: 'requires_capture', providerStatus: 'capture_refused' });
    expect(cleared.lastOperationError).toMatch(/capture .*refused by the provider.*Modification refused by the acquirer/);
    expect(await ledgerEntriesOf(refused.paymentId)).toEqual([]);

    // and then canceled: the cancel is accepted for later, its CANCELLATION voids the payment
    const canceled = await merchant().post(`/v1/payments/${refused.paymentId}/cancel`);
    expect(canceled.status).toBe(200);
    expect(await payment(refused.paymentId)).toMatchObject({ status: 'requires_capture', providerStatus: 'void_pending' });
    const [cancelPsp] = fake.modificationsOf(refusedPsp, 'cancels');
    expectAccepted(await notify(fake.notification(fake.modificationOutcome(cancelPsp!))));
    expect(await payment(refused.paymentId)).toMatchObject({ status: 'voided', lastOperationError: null });
    expect(await m.eventTypesAbout(refused.paymentId)).toEqual(expect.arrayContaining(['payment.canceled']));
  });

  test('an authorization whose answer timed out waits for its AUTHORISATION notification: never sent again, even after a crash', async () => {
    const authorizations = () => fake.requestsTo(/^\/v72\/payments$/).length;
    const timeout = m.rt.config.connectorTimeoutMs;
    m.rt.config.connectorTimeoutMs = 300;
    fake.loseAnswer(/^\/v72\/payments$/);
    const before = authorizations();
    let lost: Awaited<ReturnType<typeof payWithCard>>;
    try {
      lost = await payWithCard(m, '4111111111111111');
    } finally {
      m.rt.config.connectorTimeoutMs = timeout;
    }
    expect(lost.payment).toMatchObject({ status: 'processing' });
    expect(await attemptsOf(lost.paymentId)).toEqual([expect.objectContaining({ status: 'pending', providerReference: null })]);
    const psp = pspOfAttempt(lost.paymentId);

    // Adyen offers no look-up: the recovery job waits for the notification, it never sends the card again
    m.clock.advance(3 * 60_000);
    expect(await recoverStalledCalls(m.rt, { staleMs: 60_000 })).toBe(0);
    await m.settle();
    expect(await payment(lost.paymentId)).toMatchObject({ status: 'processing' });
    const [waiting] = await attemptsOf(lost.paymentId);
    expect(waiting).toMatchObject({ status: 'pending', providerReference: null });
    // it was looked at (to the back of the recovery queue), not left alone as too recent
    expect(new Date(waiting!.updatedAt).getTime()).toBe(m.clock.now().getTime());
    expect(authorizations()).toBe(before + 1);

    expectAccepted(await notify(fake.notification(fake.authorisation(await psp, true))));
    expect(await payment(lost.paymentId)).toMatchObject({ status: 'captured', providerReference: await psp });
    expect(await attemptsOf(lost.paymentId)).toEqual([expect.objectContaining({ status: 'succeeded', providerReference: await psp })]);
    expect(authorizations()).toBe(before + 1);

    // the process dies between Adyen's answer and its record (the connector's call done, then a plain Error)
    const adyen = connectorFor('adyen');
    registerConnector('adyen', {
      ...adyen,
      authorize: async (env, terminal, req) => {
        await adyen.authorize(env, terminal, req);
        throw new Error('the process died before recording the answer');
      },
    });
    let crashed: { sessionId: string; status: number };
    try {
      const session = await openSession(m, { amount: eur(4200), successUrl: 'https://shop.example/ok' });
      const res = await merchant().post(`/v1/checkout-sessions/${session.id}/complete`, {
        paymentMethod: { type: 'card', card: testCard('5555555555554444') },
      });
      crashed = { sessionId: session.id, status: res.status };
    } finally {
      registerConnector('adyen', adyen);
    }
    expect(crashed.status).toBe(500);
    const [row] = (await m.rt.db.models.Payment.findAll({ where: { checkoutSessionId: crashed.sessionId } as never, raw: true })) as any[];
    expect(row).toMatchObject({ status: 'processing' });
    expect(await attemptsOf(row.id)).toEqual([expect.objectContaining({ status: 'pending', providerReference: null })]);
    const crashedPsp = await pspOfAttempt(row.id);
    m.clock.advance(3 * 60_000);
    await recoverStalledCalls(m.rt, { staleMs: 60_000 });
    expect(await payment(row.id)).toMatchObject({ status: 'processing' });
    expectAccepted(await notify(fake.notification(fake.authorisation(crashedPsp, true))));
    expect(await payment(row.id)).toMatchObject({ status: 'captured', amountBreakdown: { captured: eur(4200) } });
    expect(authorizations()).toBe(before + 2);
  });

  test('an approval that arrives after the payment was canceled is voided at Adyen, durably (a failed cancel tried again), confirmed by CANCELLATION', async () => {
    const paid = await payWithCard(m, '4000000000000036');
    expect(paid.payment).toMatchObject({ status: 'processing' });
    const psp = paid.payment.providerReference as string;
    const canceled = await merchant().post(`/v1/payments/${paid.paymentId}/cancel`);
    expect(canceled.status).toBe(200);
    expect(await payment(paid.paymentId)).toMatchObject({ status: 'voided' });
    expect(fake.modificationsOf(psp, 'cancels')).toEqual([]);

    // Adyen approves it after all; its first cancel fails (a 5xx)
    const cancels = () => fake.requestsTo(new RegExp(`^/v72/payments/${psp}/cancels$`));
    fake.failOnce(/\/cancels$/, 500);
    expectAccepted(await notify(fake.notification(fake.authorisation(psp, true))));
    expect(cancels()).toHaveLength(1);
    expect(fake.modificationsOf(psp, 'cancels')).toEqual([]);
    const [attempt] = await attemptsOf(paid.paymentId);
    expect(attempt).toMatchObject({ status: 'succeeded', providerReference: psp, lateVoidStatus: 'pending' });
    expect(attempt!.lateVoidError).toMatch(/.+/);
    const after = await payment(paid.paymentId);
    expect(after).toMatchObject({ status: 'voided' });

    // recovery tries it again (same reference): Adyen receives it, and its CANCELLATION confirms it
    m.clock.advance(2 * 60_000);
    await recoverStalledCalls(m.rt);
    expect(cancels()).toHaveLength(2);
    const [cancelPsp] = fake.modificationsOf(psp, 'cancels');
    expect(fake.modifications.get(cancelPsp!)).toMatchObject({ reference: cancels()[0]!.body.reference });
    expect((await attemptsOf(paid.paymentId))[0]).toMatchObject({ lateVoidStatus: 'pending', lateVoidError: null });
    // not sent again while Adyen's notification is awaited
    m.clock.advance(10 * 60_000);
    await recoverStalledCalls(m.rt);
    expect(cancels()).toHaveLength(2);

    expectAccepted(await notify(fake.notification(fake.modificationOutcome(cancelPsp!))));
    expect((await attemptsOf(paid.paymentId))[0]).toMatchObject({ lateVoidStatus: 'done' });
    expect(await payment(paid.paymentId)).toEqual(after);
    m.clock.advance(2 * 24 * 60 * 60_000);
    await recoverStalledCalls(m.rt);
    expect(cancels()).toHaveLength(2);
  });

  test('3DS by redirect: the fake page returns the customer to our return page, /payments/details captures the payment', async () => {
    const paid = await payWithCard(m, '4212345678901245', { settle: false });
    expect(paid.payment).toMatchObject({ status: 'requires_action', action: { type: 'redirect' } });
    const res = await returnFromChallenge(paid.paymentId, paid.payment.action.url, 'pass');
    expect(res.status).toBe(303);
    expect(res.headers.location).toMatch(/^https:\/\/shop\.example\/ok/);
    await m.settle();
    const after = await payment(paid.paymentId);
    expect(after).toMatchObject({ status: 'captured' });
    expect(after.providerReference).toMatch(/^[0-9A-F]{16}$/);
    // Adyen's AUTHORISATION notification of it afterwards changes nothing
    expectAccepted(await notify(fake.notification(fake.authorisation(after.providerReference, true))));
    expect(await payment(paid.paymentId)).toEqual(after);
  });

  test('3DS failed at the fake page: the payment fails authentication_failed', async () => {
    const paid = await payWithCard(m, '4212345678901245', { settle: false });
    expect((await returnFromChallenge(paid.paymentId, paid.payment.action.url, 'fail')).status).toBe(303);
    await m.settle();
    expect(await payment(paid.paymentId)).toMatchObject({ status: 'failed', errorCode: 'authentication_failed' });
  });

  test('partial refunds are pending until their REFUND notifications, delivered in reverse order', async () => {
    const paid = await payWithCard(m, '5555555555554444');
    expect(paid.payment.status).toBe('captured');
    const psp = paid.payment.providerReference as string;
    const first = await merchant().post(`/v1/payments/${paid.paymentId}/refunds`, { amount: { currency: 'EUR', valueMinor: 3000 } });
    const second = await merchant().post(`/v1/payments/${paid.paymentId}/refunds`, { amount: { currency: 'EUR', valueMinor: 2000 } });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(first.body.data.status).toBe('pending');
    expect(second.body.data.status).toBe('pending');
    const [firstPsp, secondPsp] = fake.modificationsOf(psp, 'refunds');
    expectAccepted(await notify(fake.notification(fake.modificationOutcome(secondPsp!))));
    expectAccepted(await notify(fake.notification(fake.modificationOutcome(firstPsp!))));
    expect((await tenant().get(`/v1/refunds/${first.body.data.id}`)).body.data.status).toBe('succeeded');
    expect((await tenant().get(`/v1/refunds/${second.body.data.id}`)).body.data.status).toBe('succeeded');
    expect(await payment(paid.paymentId)).toMatchObject({ amountBreakdown: { refunded: { valueMinor: 5000 } } });
  });

  test("a refund settled by REFUND_FAILED fails: nothing booked, the merchant's balance and the refundable amount as before", async () => {
    const paid = await payWithCard(m, '4111111111111111');
    expect(paid.payment.status).toBe('captured');
    const psp = paid.payment.providerReference as string;
    const before = await balance();
    const refund = await merchant().post(`/v1/payments/${paid.paymentId}/refunds`, { amount: eur(7000) });
    expect(refund.status).toBe(201);
    expect(refund.body.data.status).toBe('pending');
    const during = await balance();
    const [refundPsp] = fake.modificationsOf(psp, 'refunds');
    const failed = fake.notification(fake.modificationOutcome(refundPsp!, true, 'REFUND_FAILED'));
    expectAccepted(await notify(failed));
    const settled = (await tenant().get(`/v1/refunds/${refund.body.data.id}`)).body.data;
    expect(settled).toMatchObject({ status: 'failed' });
    expect(await ledgerEntriesOf(refund.body.data.id)).toEqual([]);
    expect(await balance()).toEqual(before);
    expect(await payment(paid.paymentId)).toMatchObject({ status: 'captured', amountBreakdown: { refunded: eur(0) } });
    expect(await m.eventTypesAbout(refund.body.data.id)).toEqual(expect.arrayContaining(['refund.failed']));
    // repeated: nothing more
    expectAccepted(await notify(failed));
    expect((await tenant().get(`/v1/refunds/${refund.body.data.id}`)).body.data).toEqual(settled);
    expect(await balance()).toEqual(before);
    // the whole amount is refundable again
    const again = await merchant().post(`/v1/payments/${paid.paymentId}/refunds`, { amount: eur(10_000) });
    expect(again.status).toBe(201);
    expectAccepted(await notify(fake.notification(fake.modificationOutcome(fake.modificationsOf(psp, 'refunds')[1]!))));
    expect(await payment(paid.paymentId)).toMatchObject({ amountBreakdown: { refunded: eur(10_000) } });
    expect(during).toEqual(before);
  });

  test('a refund whose answer was lost fails after a day without news; a late REFUND from Adyen books it after all, once', async () => {
    const paid = await payWithCard(m, '4111111111111111');
    const psp = paid.payment.providerReference as string;
    const before = await balance();
    const timeout = m.rt.config.connectorTimeoutMs;
    m.rt.config.connectorTimeoutMs = 300;
    fake.loseAnswer(/^\/v72\/payments\/[^/]+\/refunds$/);
    let created: request.Response;
    try {
      created = await merchant().post(`/v1/payments/${paid.paymentId}/refunds`, { amount: eur(2500) });
    } finally {
      m.rt.config.connectorTimeoutMs = timeout;
    }
    expect(created.status).toBe(201);
    const refundId = created.body.data.id as string;
    const refund = async () => (await tenant().get(`/v1/refunds/${refundId}`)).body.data;
    expect(await refund()).toMatchObject({ status: 'pending' });

    // Adyen offers no look-up: a day without its notification, the refund fails (nothing refunded as far as we know)
    m.clock.advance(25 * 60 * 60_000);
    await recoverStalledCalls(m.rt, { staleMs: 60_000 });
    await m.settle();
    expect(await refund()).toMatchObject({ status: 'failed' });
    expect(await payment(paid.paymentId)).toMatchObject({ status: 'captured', amountBreakdown: { refunded: eur(0) } });
    expect(await balance()).toEqual(before);

    // Adyen did refund the cardholder: its REFUND arrives late and the refund is booked after all, once
    const [refundPsp] = fake.modificationsOf(psp, 'refunds');
    const late = fake.notification(fake.modificationOutcome(refundPsp!));
    expectAccepted(await notify(late));
    expect(await refund()).toMatchObject({ status: 'succeeded' });
    expect(await payment(paid.paymentId)).toMatchObject({ status: 'partially_refunded', amountBreakdown: { refunded: eur(2500) } });
    const booked = await ledgerEntriesOf(refundId);
    expect(booked.length).toBeGreaterThan(0);
    expectAccepted(await notify(late));
    expect(await ledgerEntriesOf(refundId)).toEqual(booked);
    expect((await m.eventTypesAbout(refundId)).filter((t) => t === 'refund.succeeded')).toHaveLength(1);
  });

  test("a refund Adyen confirmed (REFUND) then failed (REFUND_FAILED): failed, the money and its fee back in the merchant's balance", async () => {
    const paid = await payWithCard(m, '4111111111111111');
    const psp = paid.payment.providerReference as string;
    const before = { balance: await balance(), payment: await payment(paid.paymentId) };
    const other = await merchant().post(`/v1/payments/${paid.paymentId}/refunds`, { amount: eur(1000) });
    const refund = await merchant().post(`/v1/payments/${paid.paymentId}/refunds`, { amount: eur(4000) });
    expect([other.status, refund.status]).toEqual([201, 201]);
    const [otherPsp, refundPsp] = fake.modificationsOf(psp, 'refunds');
    expectAccepted(await notify(fake.notification(fake.modificationOutcome(otherPsp!))));
    const afterOther = { balance: await balance(), payment: await payment(paid.paymentId) };
    expectAccepted(await notify(fake.notification(fake.modificationOutcome(refundPsp!))));
    const refundId = refund.body.data.id as string;
    expect((await tenant().get(`/v1/refunds/${refundId}`)).body.data).toMatchObject({ status: 'succeeded' });
    const refunded = await balance();
    expect(refunded.available.valueMinor).toBeLessThanOrEqual(afterOther.balance.available.valueMinor - 4000);
    expect(await payment(paid.paymentId)).toMatchObject({ status: 'partially_refunded', amountBreakdown: { refunded: eur(5000) } });

    const failed = fake.notification(fake.modificationOutcome(refundPsp!, true, 'REFUND_FAILED'));
    expectAccepted(await notify(failed));
    const reversed = (await tenant().get(`/v1/refunds/${refundId}`)).body.data;
    expect(reversed).toMatchObject({ status: 'failed', amount: eur(4000) });
    expect(await balance()).toEqual(afterOther.balance);
    const after = await payment(paid.paymentId);
    expect(after).toEqual({ ...afterOther.payment, updatedAt: after.updatedAt });
    expect(await m.eventTypesAbout(refundId)).toEqual(['refund.created', 'refund.succeeded', 'refund.failed']);
    const reversal = await ledgerEntriesOf(refundId);
    expect(reversal.filter((e) => e.sourceType === 'refund_reversal')).toHaveLength(
      reversal.filter((e) => e.sourceType === 'refund').length,
    );
    const transactions = await tenant().get(`/v1/balance-transactions?merchantId=${m.sandbox.merchantId}&type=refund_reversal`);
    expect(transactions.status).toBe(200);
    expect(transactions.body.data).toEqual([expect.objectContaining({ type: 'refund_reversal', sourceId: refundId })]);
    // repeated: nothing more
    expectAccepted(await notify(failed));
    expect((await tenant().get(`/v1/refunds/${refundId}`)).body.data).toEqual(reversed);
    expect(await ledgerEntriesOf(refundId)).toEqual(reversal);

    // the other refund failed too: the payment captured again, the balance as before any refund
    expectAccepted(await notify(fake.notification(fake.modificationOutcome(otherPsp!, true, 'REFUND_FAILED'))));
    const whole = await payment(paid.paymentId);
    expect(whole).toEqual({ ...before.payment, updatedAt: whole.updatedAt });
    expect(whole).toMatchObject({ status: 'captured', amountBreakdown: { refunded: eur(0) } });
    expect(await balance()).toEqual(before.balance);
  });

  test('a CHARGEBACK opens a dispute, CHARGEBACK_REVERSED decides it won', async () => {
    const paid = await payWithCard(m, '4111111111111111');
    const psp = paid.payment.providerReference as string;
    const chargeback = fake.chargeback(psp, { defensePeriodEndsAt: '2026-03-20T12:00:00+00:00' });
    expectAccepted(await notify(fake.notification(chargeback.item)));
    const [dispute] = (await tenant().get(`/v1/disputes?paymentId=${paid.paymentId}`)).body.data;
    expect(dispute).toMatchObject({ status: 'needs_response', reason: 'fraudulent', amount: { currency: 'EUR', valueMinor: 10_000 } });
    expectAccepted(await notify(fake.notification(fake.disputeDecision(chargeback.disputePspReference, 'won'))));
    expect((await tenant().get(`/v1/disputes/${dispute.id}`)).body.data.status).toBe('won');
  });

  test('a dispute decided before it was opened (reordered) waits, and is applied once the CHARGEBACK arrived', async () => {
    const paid = await payWithCard(m, '5555555555554444');
    const psp = paid.payment.providerReference as string;
    const chargeback = fake.chargeback(psp);
    expectAccepted(await notify(fake.notification(fake.disputeDecision(chargeback.disputePspReference, 'lost'))));
    expect((await tenant().get(`/v1/disputes?paymentId=${paid.paymentId}`)).body.data).toEqual([]);
    expectAccepted(await notify(fake.notification(chargeback.item)));
    m.clock.advance(60_000);
    await runDueNotifications(m.rt);
    await m.settle();
    const [dispute] = (await tenant().get(`/v1/disputes?paymentId=${paid.paymentId}`)).body.data;
    expect(dispute).toMatchObject({ status: 'lost' });
  });

  test('SECOND_CHARGEBACK after CHARGEBACK loses the dispute; a repeated and a reordered notification change nothing more', async () => {
    const paid = await payWithCard(m, '4111111111111111');
    const psp = paid.payment.providerReference as string;
    const chargeback = fake.chargeback(psp);
    expectAccepted(await notify(fake.notification(chargeback.item)));
    const [opened] = (await tenant().get(`/v1/disputes?paymentId=${paid.paymentId}`)).body.data;
    expect(opened).toMatchObject({ status: 'needs_response', amount: eur(10_000) });
    const afterOpen = await balance();

    const lost = fake.notification(fake.disputeDecision(chargeback.disputePspReference, 'lost'));
    expectAccepted(await notify(lost));
    const decided = (await tenant().get(`/v1/disputes/${opened.id}`)).body.data;
    expect(decided).toMatchObject({ status: 'lost' });
    const settled = { balance: await balance(), entries: await ledgerEntriesOf(opened.id), events: await m.eventTypesAbout(opened.id) };
    expect(settled.events.filter((t) => t === 'dispute.lost')).toHaveLength(1);
    // a lost dispute keeps the money the CHARGEBACK took: nothing more moved
    expect(settled.balance).toEqual(afterOpen);

    // repeated (the same item again), then reordered: the CHARGEBACK delivered again after the decision, and Adyen's
    // NOTIFICATION_OF_CHARGEBACK (which comes before a CHARGEBACK) arriving last: nothing more changes
    const notice = fake.notificationItem('NOTIFICATION_OF_CHARGEBACK', {
      pspReference: chargeback.disputePspReference,
      originalReference: psp,
      merchantReference: fake.payments.get(psp)!.reference,
      amount: { currency: 'EUR', value: 10_000 },
      additionalData: { disputeStatus: 'Undefended', chargebackReasonCode: '10.4' },
    });
    expectAccepted(await notify(lost));
    expectAccepted(await notify(fake.notification(chargeback.item)));
    expectAccepted(await notify(fake.notification(notice)));
    m.clock.advance(60_000);
    await runDueNotifications(m.rt);
    await m.settle();
    expect((await tenant().get(`/v1/disputes?paymentId=${paid.paymentId}`)).body.data).toEqual([decided]);
    expect(await balance()).toEqual(settled.balance);
    expect(await ledgerEntriesOf(opened.id)).toEqual(settled.entries);
    expect(await m.eventTypesAbout(opened.id)).toEqual(settled.events);

    // a CHARGEBACK_REVERSED arriving after the SECOND_CHARGEBACK (an earlier stage, delivered late): the dispute stays
    // lost, no money moves; Adyen's word is kept for the tenant to reconcile
    expectAccepted(await notify(fake.notification(fake.disputeDecision(chargeback.disputePspReference, 'won'))));
    expect((await tenant().get(`/v1/disputes/${opened.id}`)).body.data).toMatchObject({ status: 'lost', acquirerOutcome: 'won' });
    expect(await balance()).toEqual(settled.balance);
    expect(await ledgerEntriesOf(opened.id)).toEqual(settled.entries);
  });

  test("the connector checks an Adyen terminal's credentials before they are sealed (400 naming the field)", async () => {
    const body = (credentials: Record<string, string>) => ({
      providerIntegrationId: ADYEN,
      name: 'Adyen bad',
      credentials,
      supportedCurrencies: ['EUR'],
    });
    const notHex = await tenant().post('/v1/admin/terminals', body({ ...fake.credentials(), hmacKey: 'not-a-hex-key' }));
    expectProblem(notHex, 400, 'INVALID_CREDENTIALS');
    expect(notHex.body.errors.map((e: { path: string }) => e.path)).toEqual(['body.credentials.hmacKey']);
    expect(JSON.stringify(notHex.body)).not.toContain(fake.apiKey);
    const prefixOnSandbox = await tenant().post(
      '/v1/admin/terminals',
      body({ ...fake.credentials(), liveEndpointUrlPrefix: 'abc-Company' }),
    );
    expectProblem(prefixOnSandbox, 400, 'CREDENTIALS_MODE_MISMATCH');
  });

  test('a forged item is 401 problem+json and changes nothing', async () => {
    const paid = await payWithCard(m, '4000000000000036');
    const psp = paid.payment.providerReference as string;
    const n = fake.notification(fake.authorisation(psp, true));
    n.json.notificationItems[0]!.NotificationRequestItem.success = 'false';
    const res = await notify({ ...n, body: JSON.stringify(n.json) });
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(await payment(paid.paymentId)).toMatchObject({ status: 'processing' });
  });
});
