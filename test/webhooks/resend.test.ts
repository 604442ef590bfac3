import { useApiHarness, expectProblem } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { Receiver, testTls } from '../helpers/receiver';
import { systemContext } from '../../src/domain/authority';
import { operatorContext } from '../../src/services/access/operators';
import { emitEvent } from '../../src/services/webhooks/events';
import { Dispatcher, RETRY_DELAYS_MS } from '../../src/services/webhooks/dispatcher';
import { createEndpoint, updateEndpoint } from '../../src/services/webhooks/endpoints';
import { replayDelivery, replayableDeliveries, resendEvent, retryDelivery } from '../../src/services/webhooks/deliveries';
import { createMerchantRecord } from '../../src/services/organization/records';
import { createSandbox } from '../../src/services/sandbox/provision';
import type { WebhookDeliveryRow } from '../../src/db/models';

// Issue 24 item 6: any delivery can be sent now (failed, canceled, succeeded, or waiting for a later attempt), a replay
// takes canceled and scheduled deliveries too, and an event can be resent as fresh deliveries.

let dispatcher: Dispatcher;
const receivers: Receiver[] = [];

// the clock starts at the real time: the receivers' TLS and the timestamps stay plausible
const h = useApiHarness(() => ({ start: new Date().toISOString() }));
beforeAll(async () => {
  dispatcher = new Dispatcher(h.rt, { transport: { allowCidrs: ['127.0.0.1/32', '::1/128'], caFile: testTls().caFile } });
});
h.beforeClose(() => Promise.all(receivers.map((r) => r.close())));
afterEach(async () => {
  // no endpoint of one test receives another test's events
  await h.rt.db.models.WebhookEndpoint.update({ status: 'disabled' }, { where: {} });
});

async function receiver(): Promise<Receiver> {
  const r = await new Receiver().start();
  receivers.push(r);
  return r;
}

const tenantKey = () => h.sandbox.tenantKey.secretKey;
const merchantKey = () => h.sandbox.merchantKey.secretKey;
const tenantCtx = () => operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
const merchantCtx = (merchantId = h.sandbox.merchantId) =>
  operatorContext(h.rt, { level: 'merchant', tenantId: h.sandbox.tenantId, merchantId, livemode: false });

async function merchantEndpoint(url: string, events: string[], merchantId?: string) {
  return createEndpoint(merchantCtx(merchantId), { url, events });
}

async function emit(type: string, data: Record<string, unknown> = { id: `obj_${type}` }, merchantId: string | null = h.sandbox.merchantId) {
  return h.rt.db.transaction((transaction) => emitEvent({ ...tenantCtx(), transaction }, { type, data, merchantId }));
}

async function deliveryOf(eventId: string, endpointId: string): Promise<WebhookDeliveryRow> {
  const rows = await h.rt.db.models.WebhookDelivery.findAll({ where: { eventId, endpointId } });
  expect(rows).toHaveLength(1);
  return rows[0].get({ plain: true }) as WebhookDeliveryRow;
}

async function row(id: string): Promise<WebhookDeliveryRow> {
  return (await h.rt.db.models.WebhookDelivery.findByPk(id))!.get({ plain: true }) as WebhookDeliveryRow;
}

async function drain(): Promise<void> {
  for (let i = 0; i < 50 && (await dispatcher.runOnce()) > 0; i++);
}

const retry = (id: string, key = tenantKey()) => h.as(key).post(`/v1/admin/webhook-deliveries/${id}/retry`);
const attemptsOf = async (id: string) =>
  (await h.as(tenantKey()).get(`/v1/admin/webhook-deliveries/${id}`)).body.data.attempts as { attempt: number; success: boolean }[];

describe(`sending a delivery now (${dialectName})`, () => {
  test('a scheduled delivery (pending, next attempt later) is made due now and sent at once, once; its schedule goes on from there', async () => {
    h.clock.set(new Date());
    const r = await receiver();
    r.reply = () => ({ status: 503 });
    const endpoint = await merchantEndpoint(r.url(), ['payment.*']);
    const event = await emit('payment.succeeded');
    await drain();
    const scheduled = await deliveryOf(event.id, endpoint.id);
    expect(scheduled).toMatchObject({ status: 'pending', attemptCount: 1, maxAttempts: 10 });
    expect(new Date(scheduled.nextAttemptAt!).getTime()).toBe(h.clock.now().getTime() + RETRY_DELAYS_MS[1]);
    // nothing is due: the dispatcher sends nothing
    expect(await dispatcher.runOnce()).toBe(0);

    h.clock.advance(5_000);
    const res = await retry(scheduled.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: scheduled.id,
      status: 'pending',
      attemptCount: 1,
      maxAttempts: 10,
      nextAttemptAt: h.clock.now().toISOString(),
    });
    // not a second delivery: the same record
    expect(await h.rt.db.models.WebhookDelivery.count({ where: { eventId: event.id } })).toBe(1);
    // due already: a second retry has nothing to do
    expectProblem(await retry(scheduled.id), 409, 'DELIVERY_ALREADY_DUE');

    r.reply = () => ({ status: 200, body: 'ok' });
    expect(await dispatcher.runOnce()).toBe(1);
    await drain();
    expect(r.received.map((x) => x.body.events[0].attempt)).toEqual([1, 2]);
    expect(new Set(r.received.map((x) => x.headers['webhook-id'])).size).toBe(1);
    expect(await row(scheduled.id)).toMatchObject({ status: 'succeeded', attemptCount: 2, maxAttempts: 10 });
    expect((await attemptsOf(scheduled.id)).map((a) => [a.attempt, a.success])).toEqual([
      [1, false],
      [2, true],
    ]);
  });

  test('a scheduled delivery sent now that fails again keeps its retry schedule (the next delay after attempt 2)', async () => {
    h.clock.set(new Date());
    const r = await receiver();
    r.reply = () => ({ status: 500 });
    const endpoint = await merchantEndpoint(r.url(), ['refund.*']);
    const event = await emit('refund.created');
    await drain();
    const scheduled = await deliveryOf(event.id, endpoint.id);
    expect(await retryDelivery(tenantCtx(), scheduled.id)).toMatchObject({ status: 'pending', attemptCount: 1 });
    const sentAt = h.clock.now().getTime();
    await drain();
    const after = await row(scheduled.id);
    expect(after).toMatchObject({ status: 'pending', attemptCount: 2, maxAttempts: 10 });
    expect(new Date(after.nextAttemptAt!).getTime()).toBe(sentAt + RETRY_DELAYS_MS[2]);
    expect(r.received).toHaveLength(2);
  });

  test('a failed delivery is opened again for one more attempt; the attempts so far are kept', async () => {
    h.clock.set(new Date());
    const r = await receiver();
    r.reply = () => ({ status: 500 });
    const endpoint = await createEndpoint(merchantCtx(), { url: r.url(), events: ['payment.failed'], maxAttempts: 2 });
    const event = await emit('payment.failed');
    await drain();
    h.clock.advance(RETRY_DELAYS_MS[1]);
    await drain();
    const failed = await deliveryOf(event.id, endpoint.id);
    expect(failed).toMatchObject({ status: 'failed', attemptCount: 2, maxAttempts: 2 });

    r.reply = () => ({ status: 204 });
    const res = await retry(failed.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'pending', attemptCount: 2, maxAttempts: 3, failedAt: null });
    await drain();
    expect(r.received.map((x) => x.body.events[0].attempt)).toEqual([1, 2, 3]);
    expect(await row(failed.id)).toMatchObject({ status: 'succeeded', attemptCount: 3 });
    expect((await attemptsOf(failed.id)).map((a) => a.attempt)).toEqual([1, 2, 3]);
    const audit = await h.rt.db.models.AuditEntry.findAll({ where: { targetId: failed.id, action: 'webhook_delivery.retried' } });
    expect(audit).toHaveLength(1);
  });

  test('a canceled delivery (its endpoint was disabled while it retried) is sent again after the endpoint is enabled again, its maxAttempts kept', async () => {
    h.clock.set(new Date());
    const r = await receiver();
    r.reply = () => ({ status: 503 });
    const endpoint = await merchantEndpoint(r.url(), ['checkout.session.*']);
    const event = await emit('checkout.session.completed');
    await drain();
    const d = await deliveryOf(event.id, endpoint.id);
    expect(d).toMatchObject({ status: 'pending', attemptCount: 1 });
    // as webhooks listen does when it stops
    await updateEndpoint(merchantCtx(), endpoint.id, { status: 'disabled' });
    expect(await row(d.id)).toMatchObject({ status: 'canceled', nextAttemptAt: null });

    const refused = await retry(d.id);
    expectProblem(refused, 409, 'WEBHOOK_ENDPOINT_DISABLED');
    expect(refused.body.detail).toContain(endpoint.id);
    expect(refused.body.detail).toContain('disabled by request');
    expect((await row(d.id)).status).toBe('canceled');

    await updateEndpoint(merchantCtx(), endpoint.id, { status: 'enabled' });
    r.reply = () => ({ status: 200, body: 'ok' });
    const res = await retry(d.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      status: 'pending',
      attemptCount: 1,
      maxAttempts: 10,
      nextAttemptAt: h.clock.now().toISOString(),
    });
    await drain();
    await drain();
    expect(r.received.map((x) => x.body.events[0].attempt)).toEqual([1, 2]);
    expect(await row(d.id)).toMatchObject({ status: 'succeeded', attemptCount: 2 });
    expect((await attemptsOf(d.id)).map((a) => [a.attempt, a.success])).toEqual([
      [1, false],
      [2, true],
    ]);
  });

  test('a succeeded delivery is sent again (the same message and event id), its maxAttempts kept: a failing receiver gets the rest of the schedule; a deleted endpoint is refused, naming why', async () => {
    h.clock.set(new Date());
    const r = await receiver();
    const endpoint = await merchantEndpoint(r.url(), ['payment.captured']);
    const event = await emit('payment.captured');
    await drain();
    const d = await deliveryOf(event.id, endpoint.id);
    expect(d.status).toBe('succeeded');
    const res = await retry(d.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'pending', attemptCount: 1, maxAttempts: 10 });
    await drain();
    expect(r.received).toHaveLength(2);
    expect(r.received[1].headers['webhook-id']).toBe(r.received[0].headers['webhook-id']);
    expect(r.received[1].body.events[0]).toMatchObject({ id: event.id, attempt: 2 });
    expect(await row(d.id)).toMatchObject({ status: 'succeeded', attemptCount: 2, maxAttempts: 10 });
    // sent again to a receiver that now fails: one more attempt lowered nothing, so it retries on its schedule
    r.reply = () => ({ status: 503 });
    expect((await retry(d.id)).body.data).toMatchObject({ status: 'pending', attemptCount: 2, maxAttempts: 10 });
    await drain();
    const failing = await row(d.id);
    expect(failing).toMatchObject({ status: 'pending', attemptCount: 3, maxAttempts: 10, failedAt: null });
    expect(new Date(failing.nextAttemptAt!).getTime()).toBe(h.clock.now().getTime() + RETRY_DELAYS_MS[3]);

    expect((await h.as(merchantKey()).delete(`/v1/webhooks/endpoints/${endpoint.id}`)).status).toBe(200);
    const gone = await retry(d.id);
    expectProblem(gone, 409, 'WEBHOOK_ENDPOINT_DELETED');
    expect(gone.body.detail).toContain(endpoint.id);
  });

  test('the retry operation stays tenant and platform only (403 for a merchant key); an unknown id is 404', async () => {
    const r = await receiver();
    const endpoint = await merchantEndpoint(r.url(), ['payment.*']);
    const event = await emit('payment.created');
    const d = await deliveryOf(event.id, endpoint.id);
    expectProblem(await retry(d.id, merchantKey()), 403);
    expectProblem(await retry('00000000-0000-4000-8000-000000000000'), 404);
  });
});

describe(`replay of canceled and scheduled deliveries (${dialectName})`, () => {
  test('the selection takes the statuses asked for, each by its own time; replaying sends each now by the rule of retry', async () => {
    h.clock.set(new Date());
    const r = await receiver();
    r.reply = () => ({ status: 503 });
    const endpoint = await merchantEndpoint(r.url(), ['refund.*', 'payment.*']);
    const scheduledEvent = await emit('refund.succeeded');
    const canceledEvent = await emit('refund.failed');
    await drain();
    const canceled = await deliveryOf(canceledEvent.id, endpoint.id);
    await h.rt.db.models.WebhookDelivery.update(
      { status: 'canceled', nextAttemptAt: null, updatedAt: h.clock.now() },
      { where: { id: canceled.id } },
    );
    const scheduled = await deliveryOf(scheduledEvent.id, endpoint.id);
    const dueEvent = await emit('payment.created'); // pending, due now: not a scheduled delivery
    const due = await deliveryOf(dueEvent.id, endpoint.id);
    const platform = operatorContext(h.rt, { level: 'platform', tenantId: null, livemode: false });
    const since = new Date(h.clock.now().getTime() - 60_000);
    const ids = async (statuses: ('failed' | 'canceled' | 'pending')[]) =>
      (await replayableDeliveries(platform, { since, statuses, endpointId: endpoint.id })).map((x) => x.id);

    expect(await ids(['failed'])).toEqual([]);
    expect(await ids(['canceled'])).toEqual([canceled.id]);
    expect(await ids(['pending'])).toEqual([scheduled.id]);
    expect((await ids(['canceled', 'pending'])).sort()).toEqual([canceled.id, scheduled.id].sort());
    expect(await ids(['pending'])).not.toContain(due.id);
    // a later window finds none of them
    expect(
      await replayableDeliveries(platform, {
        since: new Date(h.clock.now().getTime() + 1),
        statuses: ['canceled', 'pending'],
        endpointId: endpoint.id,
      }),
    ).toEqual([]);

    const rows = await replayableDeliveries(platform, { since, statuses: ['canceled', 'pending'], endpointId: endpoint.id });
    for (const x of rows) expect(await replayDelivery(systemContext(h.rt, x.livemode), x)).toBe('requeued');
    // replayed already: skipped
    for (const x of rows) expect(await replayDelivery(systemContext(h.rt, x.livemode), x)).toBe('skipped');
    expect(await row(canceled.id)).toMatchObject({ status: 'pending', attemptCount: 1, maxAttempts: 10 });
    expect(await row(scheduled.id)).toMatchObject({ status: 'pending', attemptCount: 1, maxAttempts: 10, nextAttemptAt: h.clock.now() });
    r.reply = () => ({ status: 200 });
    await drain();
    expect(await row(canceled.id)).toMatchObject({ status: 'succeeded', attemptCount: 2 });
    expect(await row(scheduled.id)).toMatchObject({ status: 'succeeded', attemptCount: 2 });
    expect(await h.rt.db.models.WebhookDelivery.count({ where: { endpointId: endpoint.id } })).toBe(3);
  });
});

describe(`resending an event (${dialectName})`, () => {
  test('to every endpoint of the scope that receives it now: fresh deliveries, a new message id, the same event id', async () => {
    h.clock.set(new Date());
    const [shop, ops, narrow] = await Promise.all([receiver(), receiver(), receiver()]);
    const shopEndpoint = await merchantEndpoint(shop.url(), ['payment.*']);
    const opsEndpoint = await createEndpoint(tenantCtx(), { url: ops.url(), events: ['payment.succeeded'] });
    await merchantEndpoint(narrow.url(), ['refund.*']);
    const event = await emit('payment.succeeded', {
      id: 'pay_r1',
      amount: { currency: 'EUR', valueMinor: 700 },
      status: 'captured',
      providerFee: 3,
    });
    await drain();
    expect(shop.received).toHaveLength(1);
    expect(ops.received).toHaveLength(1);
    const first = await deliveryOf(event.id, shopEndpoint.id);

    const resent = await resendEvent(tenantCtx(), event.id);
    expect(resent).toMatchObject({ eventId: event.id, type: 'payment.succeeded', livemode: false, deliveriesQueued: 2 });
    expect(resent.deliveries.map((d) => d.endpointId).sort()).toEqual([shopEndpoint.id, opsEndpoint.id].sort());
    expect(
      resent.deliveries.every((d) => d.status === 'pending' && d.attemptCount === 0 && d.maxAttempts === 10 && d.id !== first.id),
    ).toBe(true);
    expect(await h.rt.db.models.AuditEntry.count({ where: { action: 'webhook_event.resent' } })).toBeGreaterThanOrEqual(2);
    await drain();
    expect(shop.received).toHaveLength(2);
    expect(ops.received).toHaveLength(2);
    expect(narrow.received).toHaveLength(0);
    expect(shop.received[1].headers['webhook-id']).not.toBe(shop.received[0].headers['webhook-id']);
    expect(shop.received[1].body.events[0]).toMatchObject({ id: event.id, type: 'payment.succeeded', attempt: 1 });
    // each at its level's view, as on first delivery
    expect(shop.received[1].body.events[0].data.providerFee).toBeUndefined();
    expect(ops.received[1].body.events[0].data.providerFee).toBe(3);
    // the first deliveries are left as they were
    expect(await row(first.id)).toMatchObject({ status: 'succeeded', attemptCount: 1 });

    // a merchant's scope: its own endpoints only
    const mine = await resendEvent(merchantCtx(), event.id);
    expect(mine.deliveries.map((d) => d.endpointId)).toEqual([shopEndpoint.id]);
  });

  test('to one endpoint: only that one; refused (409, saying why) when it cannot receive the event, 404 outside the scope', async () => {
    h.clock.set(new Date());
    const [a, b] = await Promise.all([receiver(), receiver()]);
    const target = await merchantEndpoint(a.url(), ['payment.*']);
    await merchantEndpoint(b.url(), ['payment.*']);
    const notSubscribed = await merchantEndpoint(b.url('/refunds'), ['refund.*']);
    const other = await createMerchantRecord(tenantCtx(), { companyId: h.sandbox.companyId, name: 'Resend other' });
    const othersEndpoint = await merchantEndpoint(b.url('/other'), ['payment.*'], other.id);
    const stranger = await createSandbox(h.rt, { name: 'Resend stranger' });
    const strangersEndpoint = await createEndpoint(
      operatorContext(h.rt, { level: 'tenant', tenantId: stranger.tenantId, livemode: false }),
      { url: b.url('/stranger'), events: ['*'] },
    );
    const event = await emit('payment.requires_capture');
    await drain();
    const before = a.received.length;

    const one = await resendEvent(tenantCtx(), event.id, { endpointId: target.id });
    expect(one.deliveries.map((d) => d.endpointId)).toEqual([target.id]);
    await drain();
    expect(a.received.length).toBe(before + 1);

    await expect(resendEvent(tenantCtx(), event.id, { endpointId: notSubscribed.id })).rejects.toMatchObject({
      status: 409,
      code: 'WEBHOOK_ENDPOINT_NOT_RECEIVING',
      detail: expect.stringContaining('does not subscribe to payment.requires_capture'),
    });
    await expect(resendEvent(tenantCtx(), event.id, { endpointId: othersEndpoint.id })).rejects.toMatchObject({
      status: 409,
      code: 'WEBHOOK_ENDPOINT_NOT_RECEIVING',
      detail: expect.stringContaining(`merchant ${other.id}`),
    });
    await expect(resendEvent(tenantCtx(), event.id, { endpointId: strangersEndpoint.id })).rejects.toMatchObject({ status: 404 });
    // a merchant names only its own endpoints, and sees only its own events
    await expect(resendEvent(merchantCtx(other.id), event.id)).rejects.toMatchObject({ status: 404 });
    await expect(resendEvent(merchantCtx(), event.id, { endpointId: othersEndpoint.id })).rejects.toMatchObject({ status: 404 });
    // disabled
    await updateEndpoint(merchantCtx(), target.id, { status: 'disabled' });
    await expect(resendEvent(tenantCtx(), event.id, { endpointId: target.id })).rejects.toMatchObject({
      status: 409,
      code: 'WEBHOOK_ENDPOINT_NOT_RECEIVING',
      detail: expect.stringContaining('is disabled'),
    });
    // an event of another tenant, or of the other mode, is not found
    await expect(
      resendEvent(operatorContext(h.rt, { level: 'tenant', tenantId: stranger.tenantId, livemode: false }), event.id),
    ).rejects.toMatchObject({ status: 404 });
    await expect(
      resendEvent(operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: true }), event.id),
    ).rejects.toMatchObject({ status: 404 });
    // no refused resend wrote a delivery
    expect(await h.rt.db.models.WebhookDelivery.count({ where: { eventId: event.id } })).toBe(3);
  });
});
