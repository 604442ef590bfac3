import { Webhook } from 'standardwebhooks';
import { useApiHarness, expectProblem } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { Receiver, testTls } from '../helpers/receiver';
import { operatorContext } from '../../src/services/access/operators';
import { emitEvent } from '../../src/services/webhooks/events';
import { Dispatcher, RETRY_DELAYS_MS } from '../../src/services/webhooks/dispatcher';
import { createMerchantRecord } from '../../src/services/organization/records';
import { createApiKey } from '../../src/services/api-keys/keys';

let dispatcher: Dispatcher;
const receivers: Receiver[] = [];

// the clock starts at the real time, so the standardwebhooks library's 5-minute tolerance holds
const h = useApiHarness(() => ({ start: new Date().toISOString() }));
beforeAll(async () => {
  dispatcher = new Dispatcher(h.rt, { transport: { allowCidrs: ['127.0.0.1/32', '::1/128'], caFile: testTls().caFile } });
});
h.beforeClose(() => Promise.all(receivers.map((r) => r.close())));

async function receiver(): Promise<Receiver> {
  const r = await new Receiver().start();
  receivers.push(r);
  return r;
}

const tenantKey = () => h.sandbox.tenantKey.secretKey;
const merchantKey = () => h.sandbox.merchantKey.secretKey;

async function merchantEndpoint(url: string, events: string[], key = merchantKey()) {
  const res = await h.as(key).post('/v1/webhooks/endpoints', { url, events });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; secret: string };
}

async function tenantEndpoint(url: string, events: string[]) {
  const res = await h.as(tenantKey()).post('/v1/admin/webhook-endpoints', { url, events });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; secret: string };
}

async function emit(type: string, data: Record<string, unknown>, merchantId: string | null = h.sandbox.merchantId) {
  const ctx = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
  return h.rt.db.transaction((transaction) => emitEvent({ ...ctx, transaction }, { type, data, merchantId }));
}

/** Runs dispatcher rounds until nothing is due now. */
async function drain(): Promise<void> {
  for (let i = 0; i < 50 && (await dispatcher.runOnce()) > 0; i++);
}

async function disableAll() {
  await h.rt.db.models.WebhookEndpoint.update({ status: 'disabled' }, { where: {} });
}

describe(`webhook delivery (${dialectName})`, () => {
  afterEach(disableAll);

  test('a delivery is signed per Standard Webhooks and carries the specified envelope', async () => {
    const r = await receiver();
    const endpoint = await merchantEndpoint(r.url(), ['payment.*']);
    expect(endpoint.secret).toMatch(/^whsec_/);
    const event = await emit('payment.succeeded', { id: 'pay_1', amount: { currency: 'EUR', valueMinor: 1250 }, status: 'captured' });
    await drain();
    expect(r.received).toHaveLength(1);
    const got = r.received[0];
    const verified = new Webhook(endpoint.secret).verify(got.raw, got.headers) as Received['body'];
    expect(verified.events).toHaveLength(1);
    expect(verified.events[0]).toEqual({
      id: event.id,
      type: 'payment.succeeded',
      createdAt: h.clock.now().toISOString(),
      livemode: false,
      data: { id: 'pay_1', amount: { currency: 'EUR', valueMinor: 1250 }, status: 'captured' },
      attempt: 1,
      version: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
    });
    expect(got.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(got.headers['webhook-signature'].split(' ')).toHaveLength(1);
    expect(() => new Webhook('whsec_' + Buffer.alloc(32, 1).toString('base64')).verify(got.raw, got.headers)).toThrow();

    const deliveries = await h.as(merchantKey()).get(`/v1/webhooks/deliveries?endpoint_id=${endpoint.id}`);
    expect(deliveries.body.data).toHaveLength(1);
    expect(deliveries.body.data[0]).toMatchObject({
      status: 'succeeded',
      attemptCount: 1,
      eventType: 'payment.succeeded',
      eventId: event.id,
    });
    const detail = await h.as(tenantKey()).get(`/v1/admin/webhook-deliveries/${deliveries.body.data[0].id}`);
    expect(detail.body.data.attempts).toEqual([
      expect.objectContaining({ attempt: 1, statusCode: 200, success: true, error: null, responseExcerpt: 'ok' }),
    ]);
  });

  test('a receiver that always fails gets exactly 10 attempts at the specified offsets, then webhook.delivery_failed reaches the tenant', async () => {
    const failing = await receiver();
    failing.reply = () => ({ status: 500, body: 'x'.repeat(5000) });
    const ops = await receiver();
    const endpoint = await merchantEndpoint(failing.url(), ['payment.failed']);
    await tenantEndpoint(ops.url(), ['webhook.*']);
    await emit('payment.failed', { id: 'pay_2' });
    const started = h.clock.now().getTime();
    for (let i = 0; i < 12; i++) {
      await drain();
      const [row] = await h.rt.db.models.WebhookDelivery.findAll({ where: { endpointId: endpoint.id } });
      if (row.get('status') !== 'pending') break;
      h.clock.set(row.get('nextAttemptAt') as Date);
    }
    expect(failing.received).toHaveLength(10);
    const offsets = failing.received.map((r) => Number(r.headers['webhook-timestamp']) - Math.floor(started / 1000));
    let expected = 0;
    expect(offsets).toEqual(RETRY_DELAYS_MS.map((d) => (expected += d / 1000)));
    expect(offsets).toEqual([0, 60, 360, 1260, 4860, 26460, 48060, 69660, 91260, 112860]);
    expect(failing.received.map((r) => r.body.events[0].attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(new Set(failing.received.map((r) => r.headers['webhook-id'])).size).toBe(1);

    const [delivery] = (await h.as(merchantKey()).get(`/v1/webhooks/deliveries?endpoint_id=${endpoint.id}`)).body.data;
    expect(delivery).toMatchObject({ status: 'failed', attemptCount: 10, lastError: 'HTTP 500', nextAttemptAt: null });
    const detail = (await h.as(tenantKey()).get(`/v1/admin/webhook-deliveries/${delivery.id}`)).body.data;
    expect(detail.attempts).toHaveLength(10);
    expect(detail.attempts[0].responseExcerpt).toHaveLength(2048);

    expect(ops.types()).toEqual(['webhook.delivery_failed']);
    expect(ops.received[0].body.events[0].data).toMatchObject({
      deliveryId: delivery.id,
      endpointId: endpoint.id,
      eventType: 'payment.failed',
      attempts: 10,
    });
    const ep = (await h.as(merchantKey()).get(`/v1/webhooks/endpoints/${endpoint.id}`)).body.data;
    expect(ep.status).toBe('failing');

    // a manual retry sends once more now; success clears the failing state
    failing.reply = () => ({ status: 204 });
    const retried = await h.as(tenantKey()).post(`/v1/admin/webhook-deliveries/${delivery.id}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.body.data.status).toBe('pending');
    // due already: a second retry has nothing to do
    expectProblem(await h.as(tenantKey()).post(`/v1/admin/webhook-deliveries/${delivery.id}/retry`), 409, 'DELIVERY_ALREADY_DUE');
    await drain();
    expect(failing.received).toHaveLength(11);
    expect(failing.received[10].body.events[0].attempt).toBe(11);
    const after = (await h.as(tenantKey()).get(`/v1/admin/webhook-deliveries/${delivery.id}`)).body.data;
    expect(after.status).toBe('succeeded');
    expect((await h.as(merchantKey()).get(`/v1/webhooks/endpoints/${endpoint.id}`)).body.data.status).toBe('enabled');
    // a succeeded delivery may be sent again too (issue 24 item 6): test/webhooks/resend.test.ts
  });

  test('during a rotation grace period each delivery carries two signatures, each valid for its own secret; after it only the new one', async () => {
    h.clock.set(new Date());
    const r = await receiver();
    const endpoint = await merchantEndpoint(r.url(), ['refund.*']);
    const rotated = await h
      .as(merchantKey())
      .post(`/v1/webhooks/endpoints/${endpoint.id}/rotate-secret`, { graceHours: 1 })
      .set('Idempotency-Key', 'rot-wh-1');
    expect(rotated.status).toBe(200);
    const newSecret = rotated.body.data.secret as string;
    expect(newSecret).not.toBe(endpoint.secret);
    expect(rotated.body.data.previousSecretExpiresAt).toBe(new Date(h.clock.now().getTime() + 3_600_000).toISOString());
    const replay = await h
      .as(merchantKey())
      .post(`/v1/webhooks/endpoints/${endpoint.id}/rotate-secret`, { graceHours: 1 })
      .set('Idempotency-Key', 'rot-wh-1');
    expect(replay.body).toEqual(rotated.body);
    const stored = await h.rt.db.models.Idempotency.findAll();
    expect(JSON.stringify(stored.map((s) => s.get({ plain: true })))).not.toContain(newSecret.slice(6));

    await emit('refund.succeeded', { id: 're_1' });
    await drain();
    const during = r.received[0];
    const signatures = during.headers['webhook-signature'].split(' ');
    expect(signatures).toHaveLength(2);
    const ts = new Date(Number(during.headers['webhook-timestamp']) * 1000);
    expect(signatures).toEqual([
      new Webhook(newSecret).sign(during.headers['webhook-id'], ts, during.raw),
      new Webhook(endpoint.secret).sign(during.headers['webhook-id'], ts, during.raw),
    ]);
    new Webhook(newSecret).verify(during.raw, during.headers);
    new Webhook(endpoint.secret).verify(during.raw, during.headers);

    h.clock.advance(3_600_000);
    await emit('refund.succeeded', { id: 're_2' });
    await drain();
    const after = r.received[1];
    const afterTs = new Date(Number(after.headers['webhook-timestamp']) * 1000);
    expect(after.headers['webhook-signature']).toBe(new Webhook(newSecret).sign(after.headers['webhook-id'], afterTs, after.raw));
  });

  test("merchant endpoints get only their merchant's events, never tenant-only ones, and no fee decomposition", async () => {
    h.clock.set(new Date());
    const ctx = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
    const other = await createMerchantRecord(ctx, { companyId: h.sandbox.companyId, name: 'Other' });
    const otherKey = await createApiKey(ctx, { ownerType: 'merchant', merchantId: other.id });
    const [mine, theirs, tenant, wildcard] = await Promise.all([receiver(), receiver(), receiver(), receiver()]);
    await merchantEndpoint(mine.url(), ['*']);
    await merchantEndpoint(theirs.url(), ['*'], otherKey.secretKey);
    await tenantEndpoint(tenant.url(), ['*']);
    await merchantEndpoint(wildcard.url(), ['payment.*', 'checkout.session.*']);
    expectProblem(
      await h.as(merchantKey()).post('/v1/webhooks/endpoints', { url: mine.url(), events: ['merchant.created'] }),
      400,
      'INVALID_EVENT_SUBSCRIPTION',
    );
    expectProblem(
      await h.as(merchantKey()).post('/v1/webhooks/endpoints', { url: mine.url(), events: ['webhook.*'] }),
      400,
      'INVALID_EVENT_SUBSCRIPTION',
    );

    const full = {
      id: 'pay_9',
      amount: { currency: 'EUR', valueMinor: 500 },
      status: 'captured',
      merchantFee: 20,
      providerFee: 5,
      tenantFee: 10,
      platformFee: 5,
      partnerCommission: 0,
      providerReference: 'psp_1',
      providerStatus: 'AUTHORISED',
      routing: { terminalId: 't1' },
    };
    await emit('payment.succeeded', full);
    await emit('merchant.created', { id: other.id });
    await emit('refund.created', { id: 're_9' });
    await emit('checkout.session.completed', { id: 'cs_9' });
    await drain();

    expect(mine.types().sort()).toEqual(['checkout.session.completed', 'payment.succeeded', 'refund.created']);
    expect(theirs.types()).toEqual([]);
    expect(tenant.types().sort()).toEqual(['checkout.session.completed', 'merchant.created', 'payment.succeeded', 'refund.created']);
    expect(wildcard.types().sort()).toEqual(['checkout.session.completed', 'payment.succeeded']);
    const merchantView = mine.received.find((r) => r.body.events[0].type === 'payment.succeeded')!.body.events[0].data;
    expect(merchantView).toEqual({ id: 'pay_9', amount: { currency: 'EUR', valueMinor: 500 }, status: 'captured', merchantFee: 20 });
    const tenantView = tenant.received.find((r) => r.body.events[0].type === 'payment.succeeded')!.body.events[0].data;
    expect(tenantView).toEqual(full);

    // the other merchant sees none of these deliveries
    const list = await h.as(otherKey.secretKey).get('/v1/webhooks/deliveries');
    expect(list.body.data).toEqual([]);
    const types = await h.as(merchantKey()).get('/v1/webhooks/event-types');
    expect(types.body.data.map((t: { type: string }) => t.type)).not.toContain('merchant.created');
    const tenantTypes = await h.as(tenantKey()).get('/v1/webhooks/event-types');
    expect(tenantTypes.body.data.map((t: { type: string }) => t.type)).toEqual(
      expect.arrayContaining(['merchant.created', 'webhook.delivery_failed', 'payment.succeeded']),
    );
  });

  test('a receiver that answers after 11 s, one that redirects and one on a refused private address each record a failed attempt and are retried', async () => {
    h.clock.set(new Date());
    const [slow, redirecting] = await Promise.all([receiver(), receiver()]);
    slow.reply = () => ({ status: 200, delayMs: 11_000 });
    redirecting.reply = () => ({ status: 302, headers: { location: 'https://example.com/' } });
    // a dispatcher that allows no private range: localhost is refused at connect time
    const strict = new Dispatcher(h.rt, { transport: { allowCidrs: [], caFile: testTls().caFile } });
    const c = await merchantEndpoint(slow.url('/private'), ['dispute.updated']);
    await emit('dispute.updated', { id: 'dp_2' });
    expect(await strict.runOnce()).toBe(1);
    strict['sender'].close();

    const a = await merchantEndpoint(slow.url(), ['dispute.created']);
    const b = await merchantEndpoint(redirecting.url(), ['dispute.created']);
    await emit('dispute.created', { id: 'dp_1' });
    const startedAt = Date.now();
    expect(await dispatcher.runOnce()).toBe(2);
    expect(Date.now() - startedAt).toBeLessThan(14_000);
    const rows = async (endpointId: string) =>
      (await h.as(merchantKey()).get(`/v1/webhooks/deliveries?endpoint_id=${endpointId}`)).body.data[0];
    const [slowRow, redirectRow, privateRow] = await Promise.all([rows(a.id), rows(b.id), rows(c.id)]);
    expect(slowRow).toMatchObject({ status: 'pending', attemptCount: 1, lastError: 'no answer within 10 s' });
    expect(redirectRow).toMatchObject({ status: 'pending', attemptCount: 1, lastError: 'redirect (302) not followed' });
    expect(privateRow).toMatchObject({ status: 'pending', attemptCount: 1 });
    expect(privateRow.lastError).toMatch(/localhost resolves to (127\.0\.0\.1|::1), a private, loopback or reserved address/);
    for (const row of [slowRow, redirectRow, privateRow]) {
      expect(new Date(row.nextAttemptAt).getTime() - new Date(row.lastAttemptAt).getTime()).toBe(60_000);
    }
    expect(slow.received.filter((r) => r.headers['webhook-id'] && r.body.events[0].type === 'dispute.updated')).toHaveLength(0);
    const detail = (await h.as(tenantKey()).get(`/v1/admin/webhook-deliveries/${redirectRow.id}`)).body.data;
    expect(detail.attempts[0]).toMatchObject({ statusCode: 302, success: false });
  }, 30_000);

  test('deleting an endpoint stops its deliveries at once; a 410 answer disables it and tells the tenant', async () => {
    h.clock.set(new Date());
    const [gone, ops, deleted] = await Promise.all([receiver(), receiver(), receiver()]);
    gone.reply = () => ({ status: 410 });
    const doomed = await merchantEndpoint(deleted.url(), ['payout.*']);
    await emit('payout.created', { id: 'po_1' });
    expect((await h.as(merchantKey()).delete(`/v1/webhooks/endpoints/${doomed.id}`)).status).toBe(200);
    expectProblem(await h.as(merchantKey()).get(`/v1/webhooks/endpoints/${doomed.id}`), 404);
    const goneEndpoint = await merchantEndpoint(gone.url(), ['payout.*']);
    await tenantEndpoint(ops.url(), ['webhook.endpoint_disabled']);
    await emit('payout.failed', { id: 'po_2' });
    await drain();
    expect(deleted.received).toHaveLength(0);
    expect(gone.received).toHaveLength(1);
    const ep = (await h.as(merchantKey()).get(`/v1/webhooks/endpoints/${goneEndpoint.id}`)).body.data;
    expect(ep).toMatchObject({ status: 'disabled', disabledReason: 'the receiver answered 410 Gone' });
    expect(ops.types()).toEqual(['webhook.endpoint_disabled']);
    await emit('payout.failed', { id: 'po_3' });
    await drain();
    expect(gone.received).toHaveLength(1);
  });

  test('an endpoint whose deliveries keep failing for 5 days is disabled', async () => {
    h.clock.set(new Date());
    const [bad, ops] = await Promise.all([receiver(), receiver()]);
    bad.reply = () => ({ status: 503 });
    const endpoint = await merchantEndpoint(bad.url(), ['balance.available']);
    await h.as(merchantKey()).patch(`/v1/webhooks/endpoints/${endpoint.id}`, { maxAttempts: 1 });
    await tenantEndpoint(ops.url(), ['webhook.endpoint_disabled']);
    await emit('balance.available', { amount: 1 });
    await drain();
    expect((await h.as(merchantKey()).get(`/v1/webhooks/endpoints/${endpoint.id}`)).body.data.status).toBe('failing');
    h.clock.advance(5 * 24 * 3_600_000);
    await emit('balance.available', { amount: 2 });
    await drain();
    const ep = (await h.as(merchantKey()).get(`/v1/webhooks/endpoints/${endpoint.id}`)).body.data;
    expect(ep).toMatchObject({ status: 'disabled', disabledReason: 'every delivery failed for 5 days with no success' });
    expect(ops.types()).toEqual(['webhook.endpoint_disabled']);
  });
});

type Received = import('../helpers/receiver').Received;
