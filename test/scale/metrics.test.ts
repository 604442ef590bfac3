import request from 'supertest';
import { QueryTypes } from 'sequelize';
import { createTestRuntime, dialectName, type TestRuntime } from '../helpers/db';
import { useMoneyHarness, payWithCard } from '../helpers/money';
import { Receiver, testTls } from '../helpers/receiver';
import { parsePrometheus, startServe, stopAllServes, sumOf, type Sample, type ServeProcess } from '../helpers/serve';
import { operations } from '../../src/api';
import { ledgerReleaseJob } from '../../src/jobs/ledger-release';
import { createSandbox, type SandboxCredentials } from '../../src/services/sandbox/provision';
import { operatorContext } from '../../src/services/access/operators';
import { createEndpoint } from '../../src/services/webhooks/endpoints';

// GET /metrics (Prometheus text format): requests and latency by operation of the registry, webhook attempts by
// outcome, the dispatcher's queue depth and the outbox lag, scheduler runs.

const OPERATION_IDS = new Set([...operations.map((op) => op.id), 'unmatched', 'other']);

/** Checks every histogram series of `name`: cumulative buckets, +Inf equal to _count; returns the counts by labels. */
function histogramCounts(samples: Sample[], name: string, label: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const count of samples.filter((s) => s.name === `${name}_count`)) {
    const key = count.labels[label];
    const buckets = samples
      .filter((s) => s.name === `${name}_bucket` && s.labels[label] === key)
      .sort(
        (a, b) => (a.labels.le === '+Inf' ? Infinity : Number(a.labels.le)) - (b.labels.le === '+Inf' ? Infinity : Number(b.labels.le)),
      );
    expect(buckets.length).toBeGreaterThan(1);
    for (let i = 1; i < buckets.length; i++) expect(buckets[i].value).toBeGreaterThanOrEqual(buckets[i - 1].value);
    expect(buckets[buckets.length - 1].labels.le).toBe('+Inf');
    expect(buckets[buckets.length - 1].value).toBe(count.value);
    expect(samples.find((s) => s.name === `${name}_sum` && s.labels[label] === key)?.value).toBeGreaterThan(0);
    counts.set(key, count.value);
  }
  return counts;
}

describe(`GET /metrics in one process (${dialectName})`, () => {
  const m = useMoneyHarness();

  const scrape = async (): Promise<Sample[]> => {
    // the queue gauges share one database read for 100 ms: a scrape after a change waits that out
    await new Promise((resolve) => setTimeout(resolve, 150));
    const res = await request(m.app).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    return parsePrometheus(res.text);
  };
  const dueDeliveries = async () => {
    const [row] = await m.rt.db.sequelize.query<{ n: string }>(
      `SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending' AND "nextAttemptAt" <= :now`,
      { replacements: m.rt.db.rawReplacements({ now: m.clock.now() }), type: QueryTypes.SELECT },
    );
    return Number(row.n);
  };

  test('requests by operation, their latency, the queue depth, the outbox lag, webhook attempts and scheduler runs', async () => {
    for (let i = 0; i < 3; i++) await payWithCard(m, '4242424242424242', { settle: false });
    expect((await request(m.app).get('/v1/no-such-route')).status).toBe(404);
    expect((await request(m.app).get('/healthz')).status).toBe(200);
    m.clock.advance(30_000);

    const first = await scrape();
    const requests = first.filter((s) => s.name === 'payplane_http_requests_total');
    expect(requests.length).toBeGreaterThan(0);
    // operation labels are the registry's ids (or the two fixed labels): unknown paths do not grow the label set
    expect(requests.filter((s) => !OPERATION_IDS.has(s.labels.operation))).toEqual([]);
    expect(sumOf(first, 'payplane_http_requests_total', { operation: 'createCheckoutSession', method: 'POST', status: '201' })).toBe(3);
    expect(sumOf(first, 'payplane_http_requests_total', { operation: 'completeCheckoutSession', method: 'POST', status: '200' })).toBe(3);
    expect(sumOf(first, 'payplane_http_requests_total', { operation: 'getPayment', method: 'GET', status: '200' })).toBe(3);
    expect(sumOf(first, 'payplane_http_requests_total', { operation: 'unmatched', status: '404' })).toBe(1);
    expect(sumOf(first, 'payplane_http_requests_total', { operation: 'other', method: 'GET', status: '200' })).toBe(1);
    const latency = histogramCounts(first, 'payplane_http_request_duration_seconds', 'operation');
    expect(latency.get('createCheckoutSession')).toBe(3);
    expect(latency.get('completeCheckoutSession')).toBe(3);
    expect([...latency.keys()].filter((op) => !OPERATION_IDS.has(op))).toEqual([]);

    // the outbox before the dispatcher ran: every due delivery counted, the oldest 30 s old
    const due = await dueDeliveries();
    expect(due).toBeGreaterThan(0);
    expect(sumOf(first, 'payplane_webhook_queue_depth')).toBe(due);
    expect(sumOf(first, 'payplane_outbox_lag_seconds')).toBeGreaterThanOrEqual(30);
    expect(sumOf(first, 'payplane_webhook_attempts_total')).toBe(0);

    await m.settle();
    const second = await scrape();
    expect(m.receiver.received.length).toBeGreaterThan(due);
    const attempts = await m.rt.db.models.WebhookAttempt.count({ where: { success: true } });
    expect(sumOf(second, 'payplane_webhook_attempts_total', { outcome: 'succeeded' })).toBe(m.receiver.received.length);
    expect(attempts).toBe(m.receiver.received.length);
    expect(sumOf(second, 'payplane_webhook_queue_depth')).toBe(0);
    expect(sumOf(second, 'payplane_outbox_lag_seconds')).toBe(0);
    // each delivery's first success is one observation of the delivery lag
    expect(sumOf(second, 'payplane_webhook_delivery_lag_seconds_count')).toBe(m.receiver.received.length);

    // a scheduler tick run here, and the same tick started again: skipped (already run)
    for (let i = 0; i < 2; i++) {
      const job = ledgerReleaseJob.start(m.rt);
      await job.stop();
    }
    const third = await scrape();
    expect(sumOf(third, 'payplane_scheduler_runs_total', { job: 'ledger-release', outcome: 'succeeded' })).toBe(1);
    expect(sumOf(third, 'payplane_scheduler_runs_total', { job: 'ledger-release', outcome: 'skipped' })).toBe(1);
    expect(sumOf(third, 'payplane_scheduler_runs_total', { job: 'ledger-release', outcome: 'failed' })).toBe(0);
    const runs = await m.rt.db.sequelize.query(`SELECT outcome FROM job_runs WHERE job = 'ledger-release'`, { type: QueryTypes.SELECT });
    expect(runs).toEqual([{ outcome: 'succeeded' }]);
  });
});

describe(`GET /metrics of a serve process (${dialectName})`, () => {
  let t: TestRuntime;
  let receiver: Receiver;
  let sandbox: SandboxCredentials;
  let server: ServeProcess;

  beforeAll(async () => {
    t = await createTestRuntime();
    receiver = await new Receiver().start();
    sandbox = await createSandbox(t.rt);
    await createEndpoint(operatorContext(t.rt, { level: 'tenant', tenantId: sandbox.tenantId, livemode: false }), {
      url: receiver.url(),
      events: ['*'],
    });
    server = await startServe(t.db, {
      PAYPLANE_SANDBOX_DELAY_MS: '0',
      PAYPLANE_WEBHOOK_ALLOW_CIDRS: '127.0.0.1/32,::1/128',
      PAYPLANE_WEBHOOK_CA_FILE: testTls().caFile,
      PAYPLANE_DISPATCH_POLL_MS: '100',
    });
  }, 120_000);
  afterAll(async () => {
    await stopAllServes();
    await receiver.close();
    await t.close();
  }, 60_000);

  test('a scrape after payments and their webhooks shows every family, and the process figures', async () => {
    for (let i = 0; i < 2; i++) {
      const session = await server.request('/v1/checkout-sessions', {
        credential: sandbox.merchantKey.secretKey,
        body: {
          amount: { currency: 'EUR', valueMinor: 2_500 },
          successUrl: 'https://shop.example/ok',
          cancelUrl: 'https://shop.example/cancel',
        },
      });
      expect(session.status).toBe(201);
      const { id, clientSecret } = ((await session.json()) as { data: { id: string; clientSecret: string } }).data;
      const completed = await server.request(`/v1/checkout-sessions/${id}/complete`, {
        credential: clientSecret,
        body: {
          paymentMethod: {
            type: 'card',
            card: { number: '4242424242424242', expMonth: 12, expYear: 2030, cvc: '123', holderName: 'Ada Lovelace' },
          },
        },
      });
      expect(completed.status).toBe(200);
    }
    // every event of the two payments delivered (the acquirer's answers and the deliveries run in the process)
    const deadline = Date.now() + 60_000;
    let events: number;
    for (;;) {
      events = await t.rt.db.models.Event.count({ where: { tenantId: sandbox.tenantId } });
      const pending = await t.rt.db.models.WebhookDelivery.count({ where: { status: 'pending' } });
      const captured = await t.rt.db.models.Payment.count({ where: { tenantId: sandbox.tenantId, status: 'captured' } });
      if (captured === 2 && pending === 0 && receiver.received.length >= events) break;
      if (Date.now() > deadline)
        throw new Error(`not delivered: ${captured} captured, ${pending} pending, ${receiver.received.length}/${events} received`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await new Promise((resolve) => setTimeout(resolve, 150));

    const samples = await server.metrics();
    expect(samples.filter((s) => s.name === 'payplane_http_requests_total' && !OPERATION_IDS.has(s.labels.operation))).toEqual([]);
    expect(sumOf(samples, 'payplane_http_requests_total', { operation: 'createCheckoutSession', status: '201' })).toBe(2);
    expect(sumOf(samples, 'payplane_http_requests_total', { operation: 'completeCheckoutSession', status: '200' })).toBe(2);
    expect(histogramCounts(samples, 'payplane_http_request_duration_seconds', 'operation').get('completeCheckoutSession')).toBe(2);
    expect(sumOf(samples, 'payplane_webhook_attempts_total', { outcome: 'succeeded' })).toBe(receiver.received.length);
    expect(receiver.received.length).toBe(events);
    for (const gauge of ['payplane_webhook_queue_depth', 'payplane_outbox_lag_seconds']) {
      expect(samples.filter((s) => s.name === gauge)).toEqual([{ name: gauge, labels: {}, value: 0 }]);
    }
    // the jobs ticked at start: each run or skipped tick is counted
    // (a run is counted when its work is done, before its row records the outcome)
    const runs = await t.rt.db.sequelize.query<{ outcome: string }>(`SELECT outcome FROM job_runs WHERE job = 'ledger-release'`, {
      type: QueryTypes.SELECT,
    });
    const counted = sumOf(samples, 'payplane_scheduler_runs_total', { job: 'ledger-release', outcome: 'succeeded' });
    expect(counted).toBeGreaterThanOrEqual(1);
    expect(counted).toBeGreaterThanOrEqual(runs.filter((r) => r.outcome === 'succeeded').length);
    expect(counted).toBeLessThanOrEqual(runs.length);
    // and the process's own figures
    expect(sumOf(samples, 'payplane_process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(samples.some((s) => s.name.startsWith('payplane_nodejs_eventloop_lag'))).toBe(true);
  }, 90_000);
});
