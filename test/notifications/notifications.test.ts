import request from 'supertest';
import { useMoneyHarness, payWithCard } from '../helpers/money';
import { expectProblem } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { storedEvents } from '../helpers/events';
import { connectorFor, registerConnector, type NotificationItem } from '../../src/connectors';
import type { PaymentRow, ProviderNotificationRow } from '../../src/db/models';
import { providerNotificationsJob } from '../../src/jobs/provider-notifications';
import { runDueNotifications } from '../../src/services/notifications/redelivery';
import { backgroundJobs } from '../../src/jobs';
import {
  NOTIFICATION_GIVE_UP_MS,
  NOTIFICATION_LEASE_MS,
  applyNotification,
  notificationRetryDelayMs,
} from '../../src/services/notifications/inbox';
import { newId } from '../../src/util/ids';
import { publicUrl } from '../../src/util/public-url';
import { operatorContext } from '../../src/services/access/operators';
import { getTerminal } from '../../src/services/processing/terminals/terminals';
import { renderTerminal } from '../../src/cli/processing';
import { ACCEPTED, authorizationOutcome, notify, sign, testAcquirer } from './test-acquirer';

/**
 * POST /v1/provider-notifications/{terminalId}: an acquirer's notifications checked by the terminal's connector (a test
 * acquirer registered on the sandbox provider's code, its notifications signed with an HMAC), stored once by event id
 * and applied to payments, refunds and disputes; forged ones refused (401, nothing stored), repeats answered and
 * changing nothing, reordered ones applied later by the provider-notifications job (the injected clock).
 */

const CARD = '4242424242424242';
const WINDOW_SECONDS = 60;
const m = useMoneyHarness({ ledger: 'afterAll', config: { authFailuresPerAddress: 6, authFailureWindowSeconds: WINDOW_SECONDS } });
const sandboxCard = connectorFor('sandbox-card');
const acquirer = testAcquirer(sandboxCard);
const merchant = () => m.as(m.sandbox.merchantKey.secretKey);
const tenant = () => m.as(m.sandbox.tenantKey.secretKey);
const terminalId = () => m.sandbox.terminalId;

beforeAll(() => registerConnector('sandbox-card', acquirer.connector));
afterAll(() => registerConnector('sandbox-card', sandboxCard));

async function paymentRow(id: string): Promise<PaymentRow> {
  return (await m.rt.db.models.Payment.findByPk(id))!.get({ plain: true }) as PaymentRow;
}

async function inbox(where: Partial<ProviderNotificationRow> = {}): Promise<ProviderNotificationRow[]> {
  const rows = await m.rt.db.models.ProviderNotification.findAll({ where: where as never });
  return rows.map((r) => r.get({ plain: true }) as ProviderNotificationRow);
}

/** A payment the test acquirer answered pending (processing): its id, attempt and the acquirer's reference. */
async function pendingPayment(captureMethod: 'automatic' | 'manual' = 'automatic', amount = 5_000) {
  const { paymentId } = await payWithCard(m, CARD, { amount, captureMethod, settle: false });
  const row = await paymentRow(paymentId);
  expect(row.status).toBe('processing');
  return { paymentId, attemptId: row.currentAttemptId!, providerReference: `pi_${row.currentAttemptId}` };
}

/** A payment captured through the acquirer's approval notification. */
async function capturedPayment(amount = 5_000) {
  const p = await pendingPayment('automatic', amount);
  expect((await notify(m.app, terminalId(), [authorizationOutcome(`evt_${newId()}`, p.providerReference, p.attemptId)])).status).toBe(200);
  expect((await paymentRow(p.paymentId)).status).toBe('captured');
  return p;
}

const disputeOpened = (
  eventId: string,
  paymentProviderReference: string,
  providerReference: string,
  valueMinor: number,
): NotificationItem => ({
  eventId,
  type: 'charge.dispute.created',
  kind: 'dispute',
  notice: {
    type: 'opened',
    paymentProviderReference,
    providerReference,
    amount: { currency: 'EUR', valueMinor },
    reason: 'fraudulent',
    evidenceDueBy: new Date(m.clock.now().getTime() + 7 * 86_400_000).toISOString(),
  },
});

const disputeDecided = (eventId: string, providerReference: string, outcome: 'won' | 'lost'): NotificationItem => ({
  eventId,
  type: 'charge.dispute.closed',
  kind: 'dispute',
  notice: { type: 'decided', providerReference, outcome },
});

const refundOutcome = (
  eventId: string,
  reference: string | null,
  providerReference: string,
  paymentProviderReference: string,
): NotificationItem => ({
  eventId,
  type: 'charge.refund.updated',
  kind: 'outcome',
  operation: 'refund',
  reference,
  providerReference,
  paymentProviderReference,
  result: { status: 'succeeded', providerReference },
});

async function disputesOf(paymentId: string) {
  const res = await tenant().get(`/v1/disputes?paymentId=${paymentId}`);
  expect(res.status).toBe(200);
  return res.body.data as Array<{ id: string; status: string; providerReference: string; closedReason: string | null }>;
}

const runJob = () => providerNotificationsJob.runNow(m.rt) as Promise<Record<string, number>>;

describe(`acquirer notifications (${dialectName})`, () => {
  test('the job is one of serve', () => {
    expect(backgroundJobs).toContain(providerNotificationsJob);
  });

  test("an approval moves a pending payment (found by the acquirer's reference): the acquirer's answer; a repeat changes nothing", async () => {
    const p = await pendingPayment();
    const eventId = `evt_${newId()}`;
    const item = authorizationOutcome(eventId, p.providerReference, null);
    const res = await notify(m.app, terminalId(), [item]);
    expect(res.status).toBe(ACCEPTED.status);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toBe(ACCEPTED.body);
    const payment = await paymentRow(p.paymentId);
    expect(payment).toMatchObject({ status: 'captured', providerReference: p.providerReference });
    const [stored] = await inbox({ eventId });
    expect(stored).toMatchObject({
      status: 'applied',
      terminalId: terminalId(),
      tenantId: m.sandbox.tenantId,
      livemode: false,
      kind: 'outcome',
      type: 'payment_intent.succeeded',
      attempts: 1,
      lockedBy: null,
      lastError: null,
    });
    expect(stored.appliedAt).not.toBeNull();
    expect(stored.item).toEqual(item);
    const captured = await storedEvents(m.rt, { type: 'payment.captured' }, (d) => d.id === p.paymentId);
    expect(captured).toHaveLength(1);

    // the acquirer's retry: answered the same, stored once, applied once
    const again = await notify(m.app, terminalId(), [item]);
    expect([again.status, again.text]).toEqual([200, '[accepted]']);
    expect(await inbox({ eventId })).toHaveLength(1);
    expect((await paymentRow(p.paymentId)).updatedAt).toEqual(payment.updatedAt);
    expect(await storedEvents(m.rt, { type: 'payment.captured' }, (d) => d.id === p.paymentId)).toHaveLength(1);
  });

  test("an item about another terminal's payment (same tenant and acquirer) is left alone: a terminal's credentials settle its own payments only", async () => {
    const other = await tenant().post('/v1/admin/terminals', {
      providerIntegrationId: (await paymentRow((await pendingPayment()).paymentId)).providerIntegrationId,
      name: 'Second account',
      credentials: { merchantAccount: 'second', apiKey: 'k2' },
      supportedCurrencies: ['EUR'],
      supportedBrands: ['visa'],
      supportedPaymentMethodTypes: ['card'],
    });
    expect(other.status).toBe(201);
    const p = await pendingPayment();
    const res = await notify(m.app, other.body.data.id, [authorizationOutcome(`evt_${newId()}`, p.providerReference, p.attemptId)]);
    expect(res.status).toBe(200);
    expect(await paymentRow(p.paymentId)).toMatchObject({ status: 'processing' });
    const [stored] = await inbox({ terminalId: other.body.data.id });
    expect(stored).toMatchObject({ status: 'ignored' });
    // its own terminal's URL settles it
    expect((await notify(m.app, terminalId(), [authorizationOutcome(`evt_${newId()}`, p.providerReference, p.attemptId)])).status).toBe(
      200,
    );
    expect(await paymentRow(p.paymentId)).toMatchObject({ status: 'captured' });
    expect((await tenant().post(`/v1/admin/terminals/${other.body.data.id}/disable`)).status).toBe(200);
  });

  test('a decline by our reference fails the payment; an item the platform does not act on is stored as ignored', async () => {
    const p = await pendingPayment();
    const declined = authorizationOutcome(`evt_${newId()}`, p.providerReference, p.attemptId, {
      status: 'declined',
      declineCode: 'insufficient_funds',
      rawCode: 'insufficient_funds',
    });
    const other: NotificationItem = { eventId: `evt_${newId()}`, type: 'customer.created', kind: 'ignored' };
    expect((await notify(m.app, terminalId(), [declined, other])).status).toBe(200);
    expect(await paymentRow(p.paymentId)).toMatchObject({ status: 'failed', errorCode: 'insufficient_funds' });
    expect((await inbox({ eventId: declined.eventId }))[0].status).toBe('applied');
    expect((await inbox({ eventId: other.eventId }))[0].status).toBe('ignored');
  });

  test('a refund outcome completes the pending refund', async () => {
    const p = await capturedPayment(6_000);
    const created = await merchant().post(`/v1/payments/${p.paymentId}/refunds`, { amount: { currency: 'EUR', valueMinor: 6_000 } });
    expect(created.status).toBe(201);
    const refund = created.body.data;
    expect(refund.status).toBe('pending');
    const res = await notify(m.app, terminalId(), [refundOutcome(`evt_${newId()}`, refund.id, `re_${refund.id}`, p.providerReference)]);
    expect(res.status).toBe(200);
    expect((await merchant().get(`/v1/refunds/${refund.id}`)).body.data.status).toBe('succeeded');
    expect((await paymentRow(p.paymentId)).status).toBe('refunded');
  });

  test('a dispute opened, then decided', async () => {
    const p = await capturedPayment(7_000);
    const dp = `dp_${newId()}`;
    expect((await notify(m.app, terminalId(), [disputeOpened(`evt_${newId()}`, p.providerReference, dp, 7_000)])).status).toBe(200);
    const [opened] = await disputesOf(p.paymentId);
    expect(opened).toMatchObject({ status: 'needs_response', providerReference: dp });
    expect((await notify(m.app, terminalId(), [disputeDecided(`evt_${newId()}`, dp, 'lost')])).status).toBe(200);
    const [decided] = await disputesOf(p.paymentId);
    expect(decided).toMatchObject({ id: opened.id, status: 'lost' });
  });

  test('a forged notification is 401 and changes nothing; nor does one the connector cannot read', async () => {
    const p = await pendingPayment();
    const before = (await inbox()).length;
    const eventId = `evt_${newId()}`;
    const forged = await notify(m.app, terminalId(), [authorizationOutcome(eventId, p.providerReference, p.attemptId)], { forged: true });
    expectProblem(forged, 401, 'NOTIFICATION_SIGNATURE_INVALID');
    expect(forged.headers['content-type']).toMatch(/^application\/problem\+json/);
    const unsigned = await notify(m.app, terminalId(), [], { raw: 'not json at all' });
    expectProblem(unsigned, 401, 'NOTIFICATION_SIGNATURE_INVALID');
    expect((await inbox()).length).toBe(before);
    expect((await paymentRow(p.paymentId)).status).toBe('processing');
  });

  test('an unknown terminal, and a terminal whose connector takes no notifications, are 404', async () => {
    const item = [authorizationOutcome(`evt_${newId()}`, 'pi_x', null)];
    expectProblem(await notify(m.app, newId(), item), 404);
    expectProblem(await notify(m.app, 'not-a-terminal', item), 404);
    // the payout terminal's sandbox connector has no parseNotification
    expectProblem(await notify(m.app, m.sandbox.payoutTerminalId, item), 404);
    registerConnector('sandbox-card', sandboxCard);
    try {
      expectProblem(await notify(m.app, terminalId(), item), 404);
    } finally {
      registerConnector('sandbox-card', acquirer.connector);
    }
    expect(await inbox({ eventId: item[0].eventId })).toHaveLength(0);
  });

  test('a dispute decided before it was opened waits, and the job applies it once due', async () => {
    const p = await capturedPayment(8_000);
    const dp = `dp_${newId()}`;
    const decided = disputeDecided(`evt_${newId()}`, dp, 'won');
    expect((await notify(m.app, terminalId(), [decided])).status).toBe(200);
    const [waiting] = await inbox({ eventId: decided.eventId });
    expect(waiting).toMatchObject({ status: 'received', attempts: 1, lockedBy: null });
    expect(waiting.lastError).toMatch(/not known yet/);
    expect(new Date(waiting.nextAttemptAt!).getTime()).toBe(m.clock.now().getTime() + notificationRetryDelayMs(1));

    expect((await notify(m.app, terminalId(), [disputeOpened(`evt_${newId()}`, p.providerReference, dp, 8_000)])).status).toBe(200);
    expect((await disputesOf(p.paymentId))[0].status).toBe('needs_response');
    // not due yet
    expect((await runJob()).applied).toBe(0);
    expect((await inbox({ eventId: decided.eventId }))[0].status).toBe('received');
    m.clock.advance(notificationRetryDelayMs(1));
    expect((await runJob()).applied).toBe(1);
    expect((await inbox({ eventId: decided.eventId }))[0]).toMatchObject({ status: 'applied', attempts: 2, lastError: null });
    expect((await disputesOf(p.paymentId))[0]).toMatchObject({ status: 'won', providerReference: dp });
    // applied once
    expect((await runJob()).applied).toBe(0);
  });

  test("a refund outcome before its refund is known waits (found later by the acquirer's reference)", async () => {
    const p = await capturedPayment(4_000);
    const early = `re_early_${newId()}`;
    const item = refundOutcome(`evt_${newId()}`, null, early, p.providerReference);
    expect((await notify(m.app, terminalId(), [item])).status).toBe(200);
    expect((await inbox({ eventId: item.eventId }))[0].status).toBe('received');
    acquirer.refund = () => ({ status: 'pending', providerReference: early });
    try {
      const created = await merchant().post(`/v1/payments/${p.paymentId}/refunds`, { amount: { currency: 'EUR', valueMinor: 1_500 } });
      expect(created.status).toBe(201);
      expect(created.body.data.status).toBe('pending');
      m.clock.advance(notificationRetryDelayMs(1));
      expect((await runJob()).applied).toBe(1);
      expect((await merchant().get(`/v1/refunds/${created.body.data.id}`)).body.data.status).toBe('succeeded');
      expect((await paymentRow(p.paymentId)).status).toBe('partially_refunded');
    } finally {
      acquirer.refund = (r) => ({ status: 'pending', providerReference: `re_${r.reference}` });
    }
  });

  test('two workers running the job together apply each due item once (a claim per item)', async () => {
    const p = await capturedPayment(4_000);
    const refs = [`re_a_${newId()}`, `re_b_${newId()}`];
    const items = refs.map((ref) => refundOutcome(`evt_${newId()}`, null, ref, p.providerReference));
    expect((await notify(m.app, terminalId(), items)).status).toBe(200);
    const queue = [...refs];
    acquirer.refund = () => ({ status: 'pending', providerReference: queue.shift()! });
    try {
      const refundIds: string[] = [];
      for (let i = 0; i < 2; i++) {
        const created = await merchant().post(`/v1/payments/${p.paymentId}/refunds`, { amount: { currency: 'EUR', valueMinor: 1_000 } });
        expect(created.status).toBe(201);
        refundIds.push(created.body.data.id);
      }
      m.clock.advance(notificationRetryDelayMs(1));
      const runs = await Promise.all([
        runDueNotifications(m.rt, { workerId: 'worker-1' }),
        runDueNotifications(m.rt, { workerId: 'worker-2' }),
      ]);
      expect(runs[0].applied + runs[1].applied).toBe(2);
      for (const item of items) expect((await inbox({ eventId: item.eventId }))[0]).toMatchObject({ status: 'applied', attempts: 2 });
      for (const id of refundIds) expect((await merchant().get(`/v1/refunds/${id}`)).body.data.status).toBe('succeeded');
      expect((await paymentRow(p.paymentId)).refundedMinor).toBe(2_000);
    } finally {
      acquirer.refund = (r) => ({ status: 'pending', providerReference: `re_${r.reference}` });
    }
  });

  test("a worker whose claim was taken over applies nothing (the change rolled back); the claim's holder applies it", async () => {
    const p = await pendingPayment();
    const now = m.clock.now();
    const item = authorizationOutcome(`evt_${newId()}`, p.providerReference, p.attemptId);
    const row = (
      await m.rt.db.models.ProviderNotification.create({
        id: newId(),
        providerIntegrationId: (await paymentRow(p.paymentId)).providerIntegrationId,
        terminalId: terminalId(),
        tenantId: m.sandbox.tenantId,
        livemode: false,
        eventId: item.eventId,
        type: item.type,
        kind: item.kind,
        item,
        status: 'received',
        attempts: 0,
        nextAttemptAt: now,
        lockedBy: 'another-worker',
        lockedUntil: new Date(now.getTime() + NOTIFICATION_LEASE_MS),
        createdAt: now,
        updatedAt: now,
      } as never)
    ).get({ plain: true }) as ProviderNotificationRow;
    // this worker's stale view: it believes it holds the item
    expect(await applyNotification(m.rt, { ...row, lockedBy: 'stale-worker' }, 'stale-worker')).toBe('deferred');
    expect((await paymentRow(p.paymentId)).status).toBe('processing');
    expect((await inbox({ eventId: item.eventId }))[0]).toMatchObject({ status: 'received', lockedBy: 'another-worker' });
    // the lease runs out: the job claims and applies it
    m.clock.advance(NOTIFICATION_LEASE_MS);
    expect((await runJob()).applied).toBeGreaterThanOrEqual(1);
    expect((await inbox({ eventId: item.eventId }))[0]).toMatchObject({ status: 'applied', lockedBy: null });
    expect((await paymentRow(p.paymentId)).status).toBe('captured');
  });

  test('a dispute of a payment not captured yet waits for its capture (PAYMENT_NOT_CAPTURED_YET)', async () => {
    const p = await pendingPayment('manual', 3_000);
    expect((await notify(m.app, terminalId(), [authorizationOutcome(`evt_${newId()}`, p.providerReference, p.attemptId)])).status).toBe(
      200,
    );
    expect((await paymentRow(p.paymentId)).status).toBe('requires_capture');
    const dp = `dp_${newId()}`;
    const opened = disputeOpened(`evt_${newId()}`, p.providerReference, dp, 3_000);
    expect((await notify(m.app, terminalId(), [opened])).status).toBe(200);
    const [waiting] = await inbox({ eventId: opened.eventId });
    expect(waiting.status).toBe('received');
    expect(waiting.lastError).toMatch(/captured/);
    expect(await disputesOf(p.paymentId)).toHaveLength(0);

    // tried again while still not captured: the backoff doubles
    m.clock.advance(notificationRetryDelayMs(1));
    expect((await runJob()).deferred).toBe(1);
    const again = (await inbox({ eventId: opened.eventId }))[0];
    expect(again.attempts).toBe(2);
    expect(new Date(again.nextAttemptAt!).getTime()).toBe(m.clock.now().getTime() + notificationRetryDelayMs(2));

    expect((await merchant().post(`/v1/payments/${p.paymentId}/capture`, {})).status).toBe(200);
    m.clock.advance(notificationRetryDelayMs(2));
    expect((await runJob()).applied).toBe(1);
    expect((await disputesOf(p.paymentId))[0]).toMatchObject({ status: 'needs_response', providerReference: dp });
  });

  test('an item that never becomes applicable is given up after a day (failed)', async () => {
    const item = disputeDecided(`evt_${newId()}`, `dp_never_${newId()}`, 'lost');
    expect((await notify(m.app, terminalId(), [item])).status).toBe(200);
    m.clock.advance(NOTIFICATION_GIVE_UP_MS);
    const run = await runJob();
    expect(run.failed).toBeGreaterThanOrEqual(1);
    expect((await inbox({ eventId: item.eventId }))[0]).toMatchObject({ status: 'failed', lockedBy: null });
    m.clock.advance(NOTIFICATION_GIVE_UP_MS);
    expect((await runJob()).failed).toBe(0);
  });

  test('a terminal shows its notificationUrl (absolute, read-only) when its connector takes notifications; null otherwise', async () => {
    const id = terminalId();
    const got = await tenant().get(`/v1/admin/terminals/${id}`);
    expect(got.status).toBe(200);
    const url = got.body.data.notificationUrl as string;
    expect(url).toMatch(new RegExp(`^https?://[^/]+/v1/provider-notifications/${id}$`));
    // the URL it shows is the one that takes the notifications
    const p = await pendingPayment();
    const body = JSON.stringify({ items: [authorizationOutcome(`evt_${newId()}`, p.providerReference, null)] });
    const posted = await request(m.app)
      .post(new URL(url).pathname)
      .set('Content-Type', 'application/json')
      .set('X-Test-Signature', sign(id, body))
      .send(body);
    expect(posted.status).toBe(200);
    expect((await paymentRow(p.paymentId)).status).toBe('captured');

    const listed = await tenant().get('/v1/admin/terminals?limit=100');
    // (each supertest request comes to a port of its own: the origin differs, the path not)
    expect(new URL(listed.body.data.find((t: { id: string }) => t.id === id).notificationUrl).pathname).toBe(
      `/v1/provider-notifications/${id}`,
    );
    // a connector without notifications: none
    expect(listed.body.data.find((t: { id: string }) => t.id === m.sandbox.payoutTerminalId).notificationUrl).toBeNull();
    registerConnector('sandbox-card', sandboxCard);
    try {
      expect((await tenant().get(`/v1/admin/terminals/${id}`)).body.data.notificationUrl).toBeNull();
    } finally {
      registerConnector('sandbox-card', acquirer.connector);
    }
    // read-only: not a field of an update
    expectProblem(await tenant().patch(`/v1/admin/terminals/${id}`, { notificationUrl: 'https://evil.example/' }), 400);
    expect((await tenant().get(`/v1/admin/terminals/${id}`)).body.data.notificationUrl).toMatch(/^http/);
  });

  test('the CLI shows it too (no request: the public base of the configuration)', async () => {
    const id = terminalId();
    const ctx = operatorContext(m.rt, { level: 'tenant', tenantId: m.sandbox.tenantId, livemode: false });
    const terminal = await getTerminal(ctx, id);
    expect(terminal.notificationUrl).toBe(publicUrl(m.rt, `/v1/provider-notifications/${id}`));
    expect(renderTerminal(terminal)).toMatch(new RegExp(`notificationUrl\\s+${terminal.notificationUrl!.replace(/[.]/g, '\\.')}`));
    const withBase = { ...ctx, config: { ...ctx.config, publicBaseUrl: 'https://pay.example.com' } };
    expect((await getTerminal(withBase, id)).notificationUrl).toBe(`https://pay.example.com/v1/provider-notifications/${id}`);
  });

  test('failed checks count in the failed-authentication throttle of the address (429 past its limit)', async () => {
    // a new window of the throttle
    m.clock.advance(WINDOW_SECONDS * 1000);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      statuses.push((await notify(m.app, terminalId(), [authorizationOutcome(`evt_${i}`, 'pi_x', null)], { forged: true })).status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 429]);
    m.clock.advance(WINDOW_SECONDS * 1000);
    const p = await pendingPayment();
    expect((await notify(m.app, terminalId(), [authorizationOutcome(`evt_${newId()}`, p.providerReference, null)])).status).toBe(200);
  });
});
