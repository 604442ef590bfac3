import { QueryTypes } from 'sequelize';
import { createTestRuntime, onPostgres, type TestRuntime } from '../helpers/db';
import { Receiver, testTls } from '../helpers/receiver';
import { startServe, stopAllServes, sumOf, type Sample, type ServeProcess } from '../helpers/serve';
import { expectLedgerInvariant } from '../helpers/ledger';
import { createSandbox, type SandboxCredentials } from '../../src/services/sandbox/provision';
import { operatorContext } from '../../src/services/access/operators';
import { createEndpoint } from '../../src/services/webhooks/endpoints';

// Scale-out on Postgres (issue 9): two `serve` processes on one database take 1,000 sandbox card payments between
// them and deliver their webhooks together; idempotency holds across the processes, no webhook attempt is sent
// twice, every scheduler tick runs in exactly one process, and the ledger stays balanced. Postgres only: SQLite
// is one writer, one process.

const PAYMENTS = 1000;
const IN_FLIGHT = 8;
const RELEASE_MS = 500;

const describePostgres = onPostgres ? describe : describe.skip;

let t: TestRuntime;
let receiver: Receiver;
let sandbox: SandboxCredentials;
let servers: ServeProcess[] = [];

beforeAll(async () => {
  if (!onPostgres) return;
  t = await createTestRuntime();
  receiver = await new Receiver().start();
  receiver.reply = () => ({ status: 200 });
  sandbox = await createSandbox(t.rt);
  // the default limit (600 a minute) would refuse most of this test's requests
  await t.rt.db.models.Tenant.update({ doorRateLimitPerMinute: 1_000_000 }, { where: { id: sandbox.tenantId } });
  const ctx = operatorContext(t.rt, { level: 'tenant', tenantId: sandbox.tenantId, livemode: false });
  await createEndpoint(ctx, { url: receiver.url(), events: ['*'] });
  const env = {
    PAYPLANE_SANDBOX_DELAY_MS: '0',
    PAYPLANE_WEBHOOK_ALLOW_CIDRS: '127.0.0.1/32,::1/128',
    PAYPLANE_WEBHOOK_CA_FILE: testTls().caFile,
    PAYPLANE_DISPATCH_POLL_MS: '100',
    PAYPLANE_LEDGER_RELEASE_MS: String(RELEASE_MS),
    PAYPLANE_WITHDRAWAL_COOLING_MS: String(RELEASE_MS),
    PAYPLANE_HOLDING_PERIOD_HOURS: '0',
  };
  servers = await Promise.all([startServe(t.db, env), startServe(t.db, env)]);
}, 120_000);

afterAll(async () => {
  if (!onPostgres) return;
  await stopAllServes();
  await receiver.close();
  await t.close();
}, 60_000);

interface Answer {
  status: number;
  replayed: boolean;
  body: any;
}

async function call(server: ServeProcess, pathname: string, credential: string, body: unknown, idempotencyKey: string): Promise<Answer> {
  const res = await server.request(pathname, { credential, body, headers: { 'Idempotency-Key': idempotencyKey } });
  return { status: res.status, replayed: res.headers.get('idempotent-replayed') === 'true', body: await res.json() };
}

function expectStatus(answer: Answer, status: number, what: string): void {
  if (answer.status !== status) throw new Error(`${what}: expected ${status}, got ${answer.status} ${JSON.stringify(answer.body)}`);
}

const count = async (sql: string, replacements: Record<string, unknown> = {}): Promise<number> => {
  const [row] = await t.rt.db.sequelize.query<{ n: string }>(sql, { replacements, type: QueryTypes.SELECT });
  return Number(row.n);
};

/** Polls `check` (which says what is still missing, or null) until it is done. */
async function waitUntil(check: () => Promise<string | null>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const missing = await check();
    if (missing === null) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${missing}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

interface Replays {
  sequential: number;
  concurrent: number;
}

/**
 * Payment i: the session is created on one process and completed on the other (alternating which comes first).
 * Every 10th payment also sends each request again with the same Idempotency-Key to the other process once the
 * first answered; every 25th sends its complete to both processes at once.
 */
async function pay(i: number, replays: Replays): Promise<void> {
  const [one, other] = i % 2 === 0 ? servers : [servers[1], servers[0]];
  const key = sandbox.merchantKey.secretKey;
  const sessionBody = {
    amount: { currency: 'EUR', valueMinor: 1_000 + i },
    captureMethod: 'automatic',
    merchantReference: `order-${i}`,
    successUrl: 'https://shop.example/ok',
    cancelUrl: 'https://shop.example/cancel',
  };
  const created = await call(one, '/v1/checkout-sessions', key, sessionBody, `session-${i}`);
  expectStatus(created, 201, `session ${i}`);
  expect(created.replayed).toBe(false);
  if (i % 10 === 0) {
    const again = await call(other, '/v1/checkout-sessions', key, sessionBody, `session-${i}`);
    expectStatus(again, 201, `session ${i} again`);
    expect(again.replayed).toBe(true);
    expect(again.body).toEqual(created.body);
    replays.sequential++;
  }
  const { id, clientSecret } = created.body.data as { id: string; clientSecret: string };
  const card = {
    paymentMethod: {
      type: 'card',
      card: { number: '4242424242424242', expMonth: 12, expYear: 2030, cvc: '123', holderName: 'Ada Lovelace' },
    },
  };
  const path = `/v1/checkout-sessions/${id}/complete`;
  if (i % 25 === 3) {
    // the same complete on both processes at once: one runs it, the other waits for it and replays its answer
    const both = await Promise.all([call(other, path, clientSecret, card, `pay-${i}`), call(one, path, clientSecret, card, `pay-${i}`)]);
    both.forEach((answer) => expectStatus(answer, 200, `complete ${i} (concurrent)`));
    expect(both.map((a) => a.replayed).sort()).toEqual([false, true]);
    expect(both[0].body).toEqual(both[1].body);
    replays.concurrent++;
    return;
  }
  const completed = await call(other, path, clientSecret, card, `pay-${i}`);
  expectStatus(completed, 200, `complete ${i}`);
  expect(completed.replayed).toBe(false);
  expect(completed.body.data.paymentId).toEqual(expect.any(String));
  if (i % 10 === 0) {
    const again = await call(one, path, clientSecret, card, `pay-${i}`);
    expectStatus(again, 200, `complete ${i} again`);
    expect(again.replayed).toBe(true);
    expect(again.body).toEqual(completed.body);
    replays.sequential++;
  }
}

/** Scheduler counts of both processes, per job: runs (succeeded + failed) and skipped ticks. */
function schedulerCounts(scrapes: Sample[][]): { runs: Map<string, number>; skipped: number[] } {
  const runs = new Map<string, number>();
  for (const samples of scrapes) {
    for (const s of samples.filter((x) => x.name === 'payplane_scheduler_runs_total' && x.labels.outcome !== 'skipped')) {
      runs.set(s.labels.job, (runs.get(s.labels.job) ?? 0) + s.value);
    }
  }
  return { runs, skipped: scrapes.map((samples) => sumOf(samples, 'payplane_scheduler_runs_total', { outcome: 'skipped' })) };
}

describePostgres('two serve processes on one Postgres database', () => {
  test('1,000 payments and their webhooks spread over both processes: idempotent across them, every event delivered, no attempt sent twice, every scheduler tick run once, the ledger balanced', async () => {
    const replays: Replays = { sequential: 0, concurrent: 0 };
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < PAYMENTS) {
          await pay(next++, replays).catch((error) => {
            // a process that died says why
            const states = servers.map(
              (s) => `serve ${s.child.pid}: exit ${s.child.exitCode ?? s.child.signalCode ?? 'running'}\n${s.output().slice(-2000)}`,
            );
            throw new Error(`${(error as Error).stack ?? error}\n${states.join('\n')}`);
          });
        }
      }),
    );
    expect(replays).toEqual({ sequential: 2 * Math.ceil(PAYMENTS / 10), concurrent: Math.floor((PAYMENTS + 21) / 25) });

    // drained: every payment answered by the sandbox acquirer, every balance released, every delivery made
    const tenant = { tenant: sandbox.tenantId };
    await waitUntil(async () => {
      const open = await count(`SELECT count(*) AS n FROM payments WHERE "tenantId" = :tenant AND status <> 'captured'`, tenant);
      const operations = await count(`SELECT count(*) AS n FROM sandbox_acquirer_operations WHERE "doneAt" IS NULL`);
      const releases = await count(`SELECT count(*) AS n FROM ledger_releases WHERE "releasedAt" IS NULL`);
      const undelivered = await count(`SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending'`);
      const events = await count(`SELECT count(*) AS n FROM events WHERE "tenantId" = :tenant`, tenant);
      const deliveries = await count(`SELECT count(*) AS n FROM webhook_deliveries WHERE "tenantId" = :tenant`, tenant);
      return open + operations + releases + undelivered === 0 && deliveries === events
        ? null
        : `${open} payments open, ${operations} acquirer answers, ${releases} releases, ${undelivered} deliveries pending, ${deliveries}/${events} deliveries/events`;
    }, 120_000);

    // exactly 1,000 payments, each in one succeeded session
    expect(await count(`SELECT count(*) AS n FROM payments WHERE "tenantId" = :tenant`, tenant)).toBe(PAYMENTS);
    expect(await count(`SELECT count(*) AS n FROM payments WHERE "tenantId" = :tenant AND status = 'captured'`, tenant)).toBe(PAYMENTS);
    expect(await count(`SELECT count(*) AS n FROM checkout_sessions WHERE "tenantId" = :tenant`, tenant)).toBe(PAYMENTS);
    expect(
      await count(
        `SELECT count(*) AS n FROM checkout_sessions WHERE "tenantId" = :tenant AND status = 'complete' AND "paymentStatus" = 'captured'`,
        tenant,
      ),
    ).toBe(PAYMENTS);
    expect(await count(`SELECT count(DISTINCT "paymentId") AS n FROM checkout_sessions WHERE "tenantId" = :tenant`, tenant)).toBe(PAYMENTS);

    // every event of the tenant has a succeeded delivery, and the receiver got it
    const events = await t.rt.db.sequelize.query<{ id: string; type: string }>(`SELECT id, type FROM events WHERE "tenantId" = :tenant`, {
      replacements: tenant,
      type: QueryTypes.SELECT,
    });
    // each payment's events once: nothing processed twice across the processes
    const perType = new Map<string, number>();
    for (const e of events) perType.set(e.type, (perType.get(e.type) ?? 0) + 1);
    for (const type of ['checkout.session.completed', 'payment.created', 'payment.succeeded', 'payment.captured'])
      expect([type, perType.get(type)]).toEqual([type, PAYMENTS]);
    expect(perType.get('balance.available')).toBeGreaterThan(0);
    const undelivered = await t.rt.db.sequelize.query<{ id: string }>(
      `SELECT e.id FROM events e WHERE e."tenantId" = :tenant
         AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d."eventId" = e.id AND d.status = 'succeeded')`,
      { replacements: tenant, type: QueryTypes.SELECT },
    );
    expect(undelivered).toEqual([]);
    const received = new Set(receiver.received.map((r) => r.body.events[0].id));
    expect(events.filter((e) => !received.has(e.id))).toEqual([]);

    // no attempt sent twice: not to the receiver, not in the attempt records
    const sends = receiver.received.map((r) => `${r.headers['webhook-id']}#${r.body.events[0].attempt}`);
    expect(sends.length - new Set(sends).size).toBe(0);
    const twice = await t.rt.db.sequelize.query(
      `SELECT "deliveryId", attempt, count(*) AS n FROM webhook_attempts GROUP BY "deliveryId", attempt HAVING count(*) > 1`,
      { type: QueryTypes.SELECT },
    );
    expect(twice).toEqual([]);
    // every attempt reached the receiver, which answered 200 to each: none failed
    const failed = await t.rt.db.sequelize.query(
      `SELECT attempt, "statusCode", error, "durationMs" FROM webhook_attempts WHERE NOT success`,
      { type: QueryTypes.SELECT },
    );
    expect(failed).toEqual([]);
    expect(await count(`SELECT count(*) AS n FROM webhook_attempts`)).toBe(sends.length);

    // both processes delivered some (worker ids are <host>:<pid>:<random>)
    const workers = await t.rt.db.sequelize.query<{ workerId: string; n: string }>(
      `SELECT "workerId", count(*) AS n FROM webhook_attempts GROUP BY "workerId"`,
      { type: QueryTypes.SELECT },
    );
    const pids = new Set(workers.map((w) => Number(w.workerId.split(':')[1])));
    expect(pids).toEqual(new Set(servers.map((s) => s.child.pid)));

    const ledger = await expectLedgerInvariant(t.rt);
    expect(ledger.postings).toBeGreaterThanOrEqual(2 * PAYMENTS); // a capture and a release each

    // every scheduler tick ran once: one job_runs row per (job, slot), and the processes' run counters add up to
    // the rows. A snapshot is consistent when no run is in progress and the counters did not move around the read.
    let snapshot: { scrapes: Sample[][]; rows: Array<{ job: string; slot: string; outcome: string; workerId: string }> } | undefined;
    for (let tries = 0; tries < 50 && !snapshot; tries++) {
      const before = await Promise.all(servers.map((s) => s.metrics()));
      const rows = await t.rt.db.sequelize.query<{ job: string; slot: string; outcome: string; workerId: string }>(
        `SELECT job, slot, outcome, "workerId" FROM job_runs ORDER BY job, slot`,
        { type: QueryTypes.SELECT },
      );
      const after = await Promise.all(servers.map((s) => s.metrics()));
      const same = JSON.stringify(schedulerCounts(before)) === JSON.stringify(schedulerCounts(after));
      if (same && rows.every((r) => r.outcome !== 'running')) snapshot = { scrapes: after, rows };
      else await new Promise((resolve) => setTimeout(resolve, 37));
    }
    if (!snapshot) throw new Error('no consistent snapshot of the scheduler counters and job_runs in 50 tries');
    const { runs, skipped } = schedulerCounts(snapshot.scrapes);
    const rowsPerJob = new Map<string, number>();
    for (const row of snapshot.rows) rowsPerJob.set(row.job, (rowsPerJob.get(row.job) ?? 0) + 1);
    expect(new Set(snapshot.rows.map((r) => `${r.job}|${r.slot}`)).size).toBe(snapshot.rows.length);
    expect(Object.fromEntries(runs)).toEqual(Object.fromEntries(rowsPerJob));
    expect(snapshot.rows.filter((r) => r.outcome !== 'succeeded')).toEqual([]);
    for (const n of skipped) expect(n).toBeGreaterThan(0);
    // both processes ran some ticks
    expect(new Set(snapshot.rows.map((r) => Number(r.workerId.split(':')[1])))).toEqual(new Set(servers.map((s) => s.child.pid)));
    // the interval jobs ran every tick from their first on: no slot missing (up to a few ticks before the last one,
    // which a process busy with an earlier tick may still be about to claim)
    for (const job of ['ledger-release', 'withdrawal-method-cooling']) {
      const slots = snapshot.rows.filter((r) => r.job === job).map((r) => Number(r.slot));
      expect(slots.length).toBeGreaterThan(10);
      const missing = [];
      for (let slot = slots[0]; slot <= slots[slots.length - 1] - 4 * RELEASE_MS; slot += RELEASE_MS)
        if (!slots.includes(slot)) missing.push(slot);
      expect({ job, missing }).toEqual({ job, missing: [] });
    }
  }, 360_000);
});
