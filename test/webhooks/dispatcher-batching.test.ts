import { useApiHarness } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { Receiver, testTls } from '../helpers/receiver';
import { operatorContext } from '../../src/services/access/operators';
import { emitEvent } from '../../src/services/webhooks/events';
import { Dispatcher, type DispatcherOptions } from '../../src/services/webhooks/dispatcher';
import type { WebhookAttemptRow, WebhookDeliveryRow } from '../../src/db/models';

// The dispatcher records the outcomes of the attempts that finish together in one transaction, claims the next batch
// while one is on the wire, and never sends an attempt twice: not for a claim lost to another worker, not for a
// delivery of its own still in flight whose lease ran out, not for the claims it gives back when it stops.

const receivers: Receiver[] = [];
const dispatchers: Dispatcher[] = [];

const h = useApiHarness(() => ({ start: new Date().toISOString() }));
h.beforeClose(async () => {
  for (const d of dispatchers) d['sender'].close();
  await Promise.all(receivers.map((r) => r.close()));
});
afterEach(async () => {
  await h.rt.db.models.WebhookEndpoint.update({ status: 'disabled' }, { where: {} });
});

function dispatcher(options: DispatcherOptions = {}): Dispatcher {
  const d = new Dispatcher(h.rt, { transport: { allowCidrs: ['127.0.0.1/32', '::1/128'], caFile: testTls().caFile }, ...options });
  dispatchers.push(d);
  return d;
}

async function endpointFor(r: Receiver, type: string): Promise<string> {
  const res = await h.as(h.sandbox.merchantKey.secretKey).post('/v1/webhooks/endpoints', { url: r.url(), events: [type] });
  expect(res.status).toBe(201);
  return res.body.data.id as string;
}

async function emitMany(type: string, count: number): Promise<void> {
  const ctx = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
  await h.rt.db.transaction(async (transaction) => {
    for (let i = 0; i < count; i++)
      await emitEvent({ ...ctx, transaction }, { type, data: { id: `${type}_${i}` }, merchantId: h.sandbox.merchantId });
  });
}

async function deliveries(endpointId: string): Promise<WebhookDeliveryRow[]> {
  return (await h.rt.db.models.WebhookDelivery.findAll({ where: { endpointId } })).map((r) => r.get({ plain: true }) as WebhookDeliveryRow);
}

async function attemptsOf(ids: string[]): Promise<WebhookAttemptRow[]> {
  return (await h.rt.db.models.WebhookAttempt.findAll({ where: { deliveryId: ids } })).map(
    (r) => r.get({ plain: true }) as WebhookAttemptRow,
  );
}

async function waitFor(condition: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The statements the database ran meanwhile (Sequelize's and db/statements' alike pass its beforeQuery hook). */
async function statementsDuring<T>(fn: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  const statements: string[] = [];
  const hook = (options: unknown, query: { sql?: string }) => statements.push(query?.sql ?? String(options));
  h.rt.db.sequelize.addHook('beforeQuery', 'dispatcher-count', hook as never);
  try {
    return { result: await fn(), statements };
  } finally {
    h.rt.db.sequelize.removeHook('beforeQuery', 'dispatcher-count');
  }
}

describe(`the dispatcher's batches (${dialectName})`, () => {
  test('40 deliveries: one claim, one read of the endpoints and one of the events, outcomes recorded several at a time, each with its attempt row', async () => {
    h.clock.set(new Date());
    const r = await new Receiver().start();
    receivers.push(r);
    // the answers come in waves, as under load: the requests arriving within 100 ms of a wave's first are answered
    // together at its end (in one turn of the event loop, so that their outcomes are handed over together)
    let waveEnd = 0;
    r.reply = () => {
      const now = Date.now();
      if (now >= waveEnd) waveEnd = now + 100;
      return { status: 200, delayMs: Math.max(1, waveEnd - now) };
    };
    const endpointId = await endpointFor(r, 'payment.captured');
    await emitMany('payment.captured', 40);
    const { result, statements } = await statementsDuring(() => dispatcher({ batchSize: 50, concurrency: 16 }).runOnce());
    expect(result).toBe(40);
    expect(r.received).toHaveLength(40);
    const rows = await deliveries(endpointId);
    expect(rows.map((d) => [d.status, d.attemptCount, d.lockedBy, d.lockedUntil])).toEqual(Array(40).fill(['succeeded', 1, null, null]));
    const attempts = await attemptsOf(rows.map((d) => d.id));
    expect(attempts).toHaveLength(40);
    expect(new Set(attempts.map((a) => a.deliveryId)).size).toBe(40);
    expect(attempts.every((a) => a.success && a.statusCode === 200 && a.attempt === 1)).toBe(true);

    const count = (pattern: RegExp) => statements.filter((s) => pattern.test(s)).length;
    expect(count(/^UPDATE webhook_deliveries SET "lockedUntil"/)).toBe(1);
    expect(count(/FROM "webhook_endpoints"/)).toBe(1);
    expect(count(/FROM "events"/)).toBe(1);
    // one INSERT of attempt rows and one UPDATE of deliveries per recording transaction, each for several deliveries
    const inserts = statements.filter((s) => /^INSERT INTO "webhook_attempts"/.test(s));
    const rowsOf = (sql: string) => sql.split('), (').length;
    expect(inserts.reduce((sum, sql) => sum + rowsOf(sql), 0)).toBe(40);
    expect(inserts.length).toBeLessThanOrEqual(10);
    expect(Math.max(...inserts.map(rowsOf))).toBeGreaterThanOrEqual(4);
    expect(count(/^WITH v\(.*UPDATE "webhook_deliveries"/)).toBe(inserts.length);
  });

  test('a claim lost to another worker while its attempt is on the wire: that outcome is not recorded, the rest of its transaction is', async () => {
    h.clock.set(new Date());
    const r = await new Receiver().start();
    receivers.push(r);
    const endpointId = await endpointFor(r, 'refund.created');
    await emitMany('refund.created', 5);
    const [taken] = await deliveries(endpointId);
    // the answer for `taken` waits until another worker has its claim
    r.reply = (req) => ({ status: 200, delayMs: req.headers['webhook-id'] === `msg_${taken.id.replace(/-/g, '')}` ? 1_000 : 0 });
    const run = dispatcher().runOnce();
    await waitFor(() => r.received.length === 5);
    await h.rt.db.models.WebhookDelivery.update({ lockedBy: 'another-worker' }, { where: { id: taken.id } });
    expect(await run).toBe(5);
    const rows = await deliveries(endpointId);
    const after = rows.find((d) => d.id === taken.id)!;
    expect(after).toMatchObject({ status: 'pending', attemptCount: 0, lockedBy: 'another-worker' });
    expect(await attemptsOf([taken.id])).toEqual([]);
    const others = rows.filter((d) => d.id !== taken.id);
    expect(others.map((d) => d.status)).toEqual(Array(4).fill('succeeded'));
    expect(await attemptsOf(others.map((d) => d.id))).toHaveLength(4);
  });

  test('a delivery still in flight whose lease ran out is claimed again by its own worker but not sent a second time', async () => {
    h.clock.set(new Date());
    const r = await new Receiver().start();
    receivers.push(r);
    r.reply = () => ({ status: 200, delayMs: 1_000 });
    const endpointId = await endpointFor(r, 'payout.created');
    await emitMany('payout.created', 1);
    const d = dispatcher({ leaseMs: 1_000 });
    const first = d.runOnce();
    await waitFor(() => r.received.length === 1);
    // the lease runs out while the answer is awaited: the delivery is due and unclaimed to the database
    h.clock.advance(2_000);
    expect(await d.runOnce()).toBe(0);
    expect(await first).toBe(1);
    expect(r.received).toHaveLength(1);
    const [row] = await deliveries(endpointId);
    expect(row).toMatchObject({ status: 'succeeded', attemptCount: 1, lockedBy: null });
    expect(await attemptsOf([row.id])).toHaveLength(1);
  });

  test('running, it delivers a stream of events once each; stopped, it finishes what is on the wire and gives back the claims it had not sent', async () => {
    h.clock.set(new Date());
    const r = await new Receiver().start();
    receivers.push(r);
    const endpointId = await endpointFor(r, 'dispute.created');
    await emitMany('dispute.created', 120);
    const running = dispatcher({ batchSize: 20, concurrency: 4, pollMs: 20 });
    running.start();
    await waitFor(() => r.received.length >= 120);
    // events emitted while it runs are picked up by its polling
    await emitMany('dispute.created', 10);
    await waitFor(() => r.received.length >= 130);
    await running.stop();
    expect(new Set(r.received.map((x) => x.headers['webhook-id'])).size).toBe(130);
    expect(r.received).toHaveLength(130);
    expect((await deliveries(endpointId)).every((x) => x.status === 'succeeded' && x.attemptCount === 1)).toBe(true);

    // a slow receiver, one attempt at a time: stopped after the first request, the other claims go back at once
    const slow = await new Receiver().start();
    receivers.push(slow);
    slow.reply = () => ({ status: 200, delayMs: 1_000 });
    const slowEndpoint = await endpointFor(slow, 'dispute.updated');
    await emitMany('dispute.updated', 10);
    const stopping = dispatcher({ batchSize: 10, concurrency: 1, pollMs: 20 });
    stopping.start();
    await waitFor(() => slow.received.length === 1);
    await stopping.stop();
    expect(slow.received).toHaveLength(1);
    const rows = await deliveries(slowEndpoint);
    expect(rows.filter((x) => x.status === 'succeeded')).toHaveLength(1);
    const given = rows.filter((x) => x.status === 'pending');
    expect(given).toHaveLength(9);
    expect(given.every((x) => x.lockedBy === null && x.lockedUntil === null && x.attemptCount === 0)).toBe(true);
  });
});
