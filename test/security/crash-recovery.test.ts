import os from 'node:os';
import { Client } from 'pg';
import { Op, QueryTypes, type Transaction } from 'sequelize';
import { createTestRuntime, dialectName, onPostgres, type TestRuntime } from '../helpers/db';
import { Receiver, testTls } from '../helpers/receiver';
import { startServe, stopAllServes, type ServeProcess } from '../helpers/serve';
import { expectLedgerInvariant } from '../helpers/ledger';
import { TEST_IBAN } from '../helpers/withdrawals';
import { fundByAdjustment } from '../helpers/funding';
import { createSandbox, type SandboxCredentials } from '../../src/services/sandbox/provision';
import { operatorContext } from '../../src/services/access/operators';
import { createEndpoint } from '../../src/services/webhooks/endpoints';
import { recoverStalledCalls } from '../../src/services/payments/recovery';
import { CrashClient, Watchdog, crashWindowOf, seeded, type CrashWindow, type Failure, type OpRecord, type Target } from './crash/client';

/**
 * Crash recovery (issue 10, item 4). `serve` is killed with SIGKILL three times, at different phases, while clients
 * take payments (checkout session + complete), refund some, request withdrawals, and an operator approves and
 * executes them, and while the dispatcher delivers their webhooks; each time it is restarted on the same database and
 * the clients go on, sending every unanswered POST again with its Idempotency-Key and body until it gets a definite
 * answer. Then: every client operation has exactly one effect, no payment is refunded beyond what was captured, the
 * ledger balances, every event reached the receiver at least once, no Idempotency-Key stays in progress, and every
 * withdrawal left half-way can still be moved to an end through the API.
 *
 * An Idempotency-Key a dead process held is free as soon as the restarted process (or any on the same machine) sees
 * that its process is gone (src/services/idempotency.ts ownerGone), and its retry gets the operation's answer: the
 * answer rebuilt from what the dead request committed (its key was marked in the same transaction as its effect), or
 * the operation run again when it committed nothing. So no retry of a dead process's key is told to wait (409
 * IDEMPOTENCY_KEY_IN_USE), and every complete is answered 200. A sandbox acquirer answer's lease
 * (src/jobs/sandbox-acquirer.ts) lasts 60 s with no setting to shorten it: the test moves the dead process's to now.
 * The dispatcher's lease has a setting (3 s here).
 * Provider calls a dead process committed but never made are sent by the payment-recovery job's function (every
 * minute in `serve`, for calls older than 2 minutes), called here once the load is over.
 *
 * The second kill certainly finds requests holding their keys (no race): test-only triggers on idempotency_records
 * (holdAnswers) keep every request from storing its answer or freeing its key, the process is killed as soon as a
 * request has claimed one, and the triggers are dropped before the restart. The other kills land where they land.
 *
 * A 5xx or a network error is allowed only for a request in flight at a kill (the client records each one with its
 * time; see test/security/crash/client.ts). No wait is a fixed time: every wait is for an event (a count, an answer,
 * a restart), and the run's budget is counted in progress (Watchdog in crash/client.ts): it fails, with its own message
 * and the summary of the run, only when nothing has moved for a minute (more when `serve` was seen to start slower),
 * so a loaded machine, slower at everything, does not fail it, while a hang does. Jest's limit is only a backstop.
 */

const SEED = Number(process.env.PAYPLANE_CRASH_SEED ?? 20260310);
const CLIENTS = 4;
const PAYMENTS_PER_CLIENT = 14;
/**
 * Jest's limits: backstops only (a run here takes about a minute idle, three on a machine at a load of 20). A stalled
 * run fails earlier, by its Watchdog, with its summary.
 */
const TEST_TIMEOUT = 20 * 60_000;
/** a restart of `serve` takes a few seconds idle, half a minute at a load of 20: its own limits, far above */
const START_LIMITS = { startMs: 5 * 60_000, readyMs: 5 * 60_000 };
const WINDOW_TEST_TIMEOUT = 10 * 60_000;

let t: TestRuntime;
let receiver: Receiver;
let sandbox: SandboxCredentials;
let server: ServeProcess;
let methodId: string;
/** the budget of the running test (a new one per test) */
let budget: Watchdog;
/** how long the first `serve` took to start: the first measure of the machine's speed, for every budget */
let firstStartMs = 0;

const env: Record<string, string> = {
  PAYPLANE_SANDBOX_DELAY_MS: '0',
  PAYPLANE_SANDBOX_POLL_MS: '100',
  PAYPLANE_WEBHOOK_ALLOW_CIDRS: '127.0.0.1/32,::1/128',
  PAYPLANE_DISPATCH_POLL_MS: '100',
  // a dead dispatcher's claims come back after 3 s (the default is a minute)
  PAYPLANE_DISPATCH_LEASE_MS: '3000',
  // a slow receiver and few parallel sends keep a backlog of deliveries, so that the kills find the dispatcher at work
  PAYPLANE_DISPATCH_CONCURRENCY: '2',
  PAYPLANE_LEDGER_RELEASE_MS: '500',
  PAYPLANE_HOLDING_PERIOD_HOURS: '0',
};

beforeAll(async () => {
  // as serve's env: what the test's own recovery captures is released at once too
  t = await createTestRuntime({ config: { sandboxDelayMs: 0, holdingPeriodHours: 0 } });
  receiver = await new Receiver().start();
  receiver.reply = () => ({ status: 200, delayMs: 15 });
  env.PAYPLANE_WEBHOOK_CA_FILE = testTls().caFile;
  sandbox = await createSandbox(t.rt);
  await t.rt.db.models.Tenant.update(
    { doorRateLimitPerMinute: 1_000_000, withdrawalCoolingPeriodHours: 0, withdrawalMakerChecker: false },
    { where: { id: sandbox.tenantId } },
  );
  const ctx = operatorContext(t.rt, { level: 'tenant', tenantId: sandbox.tenantId, livemode: false });
  await createEndpoint(ctx, { url: receiver.url(), events: ['*'] });
  // funds for the withdrawals (as if earlier payments had been released)
  await fundByAdjustment(operatorContext(t.rt, { level: 'platform', tenantId: null, livemode: false }), {
    tenantId: sandbox.tenantId,
    merchantId: sandbox.merchantId,
    valueMinor: 10_000_000,
    sourceId: 'crash-test-funding',
  });
  const starting = Date.now();
  server = await startServe(t.db, env, [], START_LIMITS);
  firstStartMs = Date.now() - starting;
  const res = await server.request('/v1/merchant-withdrawal-methods', {
    credential: sandbox.merchantKey.secretKey,
    body: { methodType: 'bank_account', label: 'Main account', details: { iban: TEST_IBAN, accountHolderName: 'Sandbox Merchant GmbH' } },
    headers: { 'Idempotency-Key': 'method-1' },
  });
  const method = await res.json();
  if (res.status !== 201 || method.data.status !== 'active') throw new Error(`withdrawal method: ${res.status} ${JSON.stringify(method)}`);
  methodId = method.data.id;
}, 12 * 60_000);

beforeEach(() => {
  budget = new Watchdog(() => `the budget of ${expect.getState().currentTestName ?? 'the test'}`);
  budget.observeStart(firstStartMs);
});

afterEach(() => budget.stop());

afterAll(async () => {
  await stopAllServes();
  await receiver?.close();
  await t?.close();
}, 60_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const tenantOf = () => ({ tenant: sandbox.tenantId });

/**
 * Polls `check` (null: done, else what is missing) until it is done. What is missing changing is progress (a queue
 * going down); fails with what is missing when the run's budget runs out.
 */
async function waitUntil(check: () => Promise<string | null> | string | null, pollMs = 100): Promise<void> {
  // a state not seen before (going back and forth between two is not progress)
  const seen = new Set<string>();
  for (;;) {
    const missing = await check();
    if (missing === null) return;
    if (!seen.has(missing)) budget.progress();
    seen.add(missing);
    if (budget.expired()) throw new Error(`timed out waiting: ${missing} (${budget.reason.message})`);
    await sleep(pollMs);
  }
}

/** `work`, or a failure naming `what` when the run's budget runs out first (a hung kill or restart included). */
async function within<T>(what: string, work: Promise<T>): Promise<T> {
  let onAbort: (() => void) | undefined;
  const ranOut = new Promise<never>((_, reject) => {
    onAbort = () => reject(new Error(`${what}: ${budget.reason.message}`));
    if (budget.signal.aborted) onAbort();
    else budget.signal.addEventListener('abort', onAbort, { once: true });
  });
  ranOut.catch(() => undefined);
  try {
    return await Promise.race([work, ranOut]);
  } finally {
    budget.signal.removeEventListener('abort', onAbort!);
  }
}

async function count(sql: string, replacements: Record<string, unknown> = {}): Promise<number> {
  const [row] = await t.rt.db.sequelize.query<{ n: string }>(sql, { replacements, type: QueryTypes.SELECT });
  return Number(row.n);
}

function rows<T extends object>(sql: string, replacements: Record<string, unknown> = tenantOf()): Promise<T[]> {
  return t.rt.db.sequelize.query<T>(sql, { replacements, type: QueryTypes.SELECT });
}

interface HeldKey {
  id: string;
  owner: string;
  key: string;
  path: string;
}

/** One SIGKILL: what the dead process held. */
interface Crash {
  label: string;
  pid: number;
  /** just before the SIGKILL */
  killStartedAt: number;
  /** once the process was gone */
  killedAt: number;
  /** once its successor answered /readyz (0 until then) */
  restartedAt: number;
  /** Idempotency-Keys it had claimed and not finished (idempotency_records.ownerProcess names it: its pid first) */
  heldKeys: HeldKey[];
  /** sandbox acquirer answers it had claimed */
  heldOperations: number;
  /** webhook deliveries it had claimed */
  heldDeliveries: number;
  /** scheduler ticks it was running */
  runningTicks: number;
  /** payment attempts and refunds committed but never sent to the provider */
  unsent: number;
  /** the payments of those attempts (what a recovery, the test's or `serve`'s own job, may fail when the card is gone) */
  unsentPayments: string[];
}

const crashes: Crash[] = [];

/** The kills so far, for the clients: a network error or 5xx is allowed for a request in flight at one of them. */
const crashWindows = (): CrashWindow[] => crashes.map((c) => ({ label: c.label, from: c.killStartedAt, to: c.restartedAt || Infinity }));
const target: Target = { url: () => server.url, windows: crashWindows };

/** Idempotency-Keys in progress claimed by the process `pid` (idempotency_owners ids start with the pid). */
function keysHeldBy(pid: number): Promise<HeldKey[]> {
  return t.rt.db.models.Idempotency.findAll({
    where: { state: 'in_progress', ownerProcess: { [Op.like]: `${pid}-%` } },
    raw: true,
  }) as unknown as Promise<HeldKey[]>;
}

/**
 * SIGKILL the current serve, note what it held, restart it on the same database (after `beforeRestart`). Its sandbox
 * acquirer leases are let run out at once (60 s, no setting); its Idempotency-Keys are left as they are: the new
 * process must see by itself that their process is gone.
 */
async function crash(label: string, beforeRestart?: () => Promise<void>): Promise<{ record: Crash }> {
  const { SandboxOperation, WebhookDelivery } = t.rt.db.models;
  const dead = server;
  const pid = dead.child.pid!;
  const exited = new Promise((resolve) => dead.child.once('exit', resolve));
  const record: Crash = {
    label,
    pid,
    killStartedAt: Date.now(),
    killedAt: 0,
    restartedAt: 0,
    heldKeys: [],
    heldOperations: 0,
    heldDeliveries: 0,
    runningTicks: 0,
    unsent: 0,
    unsentPayments: [],
  };
  crashes.push(record);
  dead.child.kill('SIGKILL');
  await exited;
  record.killedAt = Date.now();
  const like = { [Op.like]: `%:${pid}:%` };
  const keys = await keysHeldBy(pid);
  const operations = (await SandboxOperation.findAll({ where: { doneAt: null, lockedBy: like }, raw: true })) as unknown as Array<{
    id: string;
    lockedBy: string;
  }>;
  Object.assign(record, {
    heldKeys: keys,
    heldOperations: operations.length,
    heldDeliveries: await WebhookDelivery.count({ where: { status: 'pending', lockedBy: like } }),
    runningTicks: await count(`SELECT count(*) AS n FROM job_runs WHERE outcome = 'running' AND "workerId" = :worker`, {
      worker: `${os.hostname()}:${pid}`,
    }),
  });
  const unsentAttempts = await rows<{ paymentId: string }>(
    `SELECT "paymentId" FROM payment_attempts WHERE status = 'pending' AND "providerReference" IS NULL`,
    {},
  );
  record.unsentPayments = unsentAttempts.map((a) => a.paymentId);
  record.unsent =
    unsentAttempts.length + (await count(`SELECT count(*) AS n FROM refunds WHERE status = 'pending' AND "providerReference" IS NULL`));
  // on Postgres a statement of the dead process may still wait at the test's gate (holdAnswers) with the row of its
  // key locked; opening the gate ends it
  if (beforeRestart) await beforeRestart();
  const past = new Date(Date.now() - 1_000);
  for (const o of operations)
    await SandboxOperation.update({ lockedUntil: past }, { where: { id: o.id, lockedBy: o.lockedBy, doneAt: null } });
  const starting = Date.now();
  server = await budget.during(startServe(t.db, env, [], START_LIMITS));
  record.restartedAt = Date.now();
  budget.observeStart(record.restartedAt - starting);
  return { record };
}

/**
 * Test-only, for a kill that must find requests holding their keys: from now on no request can store its answer or
 * free its key (triggers on idempotency_records), so a request that has claimed its key keeps it, in progress, until
 * its process dies. On Postgres the trigger waits for an advisory lock the test holds; a SQLite trigger cannot wait,
 * so it counts rows until its process dies (the triggers are dropped before the restart). Both then fail the
 * statement, so even a request that outlived the kill commits nothing. The function returned, called
 * once the process is dead, lets the waiting ones fail and drops the triggers.
 */
async function holdAnswers(): Promise<() => Promise<void>> {
  const q = (sql: string) => t.rt.db.sequelize.query(sql);
  if (onPostgres) {
    const gate = new Client({ connectionString: t.db.url });
    await gate.connect();
    await gate.query('SELECT pg_advisory_lock(4242010)');
    await q(`CREATE FUNCTION crash_hold() RETURNS trigger LANGUAGE plpgsql AS $f$
      BEGIN
        IF TG_OP = 'UPDATE' THEN
          IF NEW.state <> 'completed' THEN RETURN NEW; END IF;
        END IF;
        PERFORM pg_advisory_xact_lock_shared(4242010);
        RAISE EXCEPTION 'crash hold';
      END $f$`);
    await q(`CREATE TRIGGER crash_hold BEFORE UPDATE OR DELETE ON idempotency_records FOR EACH ROW EXECUTE FUNCTION crash_hold()`);
    return async () => {
      await gate.end();
      await q('DROP TRIGGER crash_hold ON idempotency_records');
      await q('DROP FUNCTION crash_hold()');
    };
  }
  // 800^4 rows: hours. A bounded spin (800^3, ~5 s idle) outlived its window on a loaded CI machine: the test saw the
  // held key late, and the waiting requests answered 500 before the kill. This one ends only with its process.
  const spin =
    "SELECT count(*) FROM crash_hold_rows a, crash_hold_rows b, crash_hold_rows c, crash_hold_rows d; SELECT RAISE(ABORT, 'crash hold');";
  // All in one transaction: once the first trigger holds a request (and with it the write lock, until the kill), a
  // second statement of the test's would wait for that lock and never get it.
  await t.rt.db.transaction(async (transaction) => {
    const inTransaction = (sql: string) => t.rt.db.sequelize.query(sql, { transaction });
    await inTransaction('CREATE TABLE crash_hold_rows (n INTEGER)');
    await inTransaction(
      'INSERT INTO crash_hold_rows (n) WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 800) SELECT n FROM c',
    );
    await inTransaction(
      `CREATE TRIGGER crash_hold_store BEFORE UPDATE ON idempotency_records WHEN NEW.state = 'completed' BEGIN ${spin} END`,
    );
    await inTransaction(`CREATE TRIGGER crash_hold_free BEFORE DELETE ON idempotency_records BEGIN ${spin} END`);
  });
  return async () => {
    await q('DROP TRIGGER crash_hold_store');
    await q('DROP TRIGGER crash_hold_free');
    await q('DROP TABLE crash_hold_rows');
  };
}

/** Waits until nothing is left to do: payments final, refunds answered, acquirer answers delivered, funds released, every event delivered. */
async function drain(): Promise<void> {
  const tenant = tenantOf();
  await waitUntil(async () => {
    const open = await count(
      `SELECT count(*) AS n FROM payments WHERE "tenantId" = :tenant AND status IN ('processing', 'requires_action')`,
      tenant,
    );
    const refundsPending = await count(`SELECT count(*) AS n FROM refunds WHERE "tenantId" = :tenant AND status = 'pending'`, tenant);
    const operations = await count(`SELECT count(*) AS n FROM sandbox_acquirer_operations WHERE "doneAt" IS NULL`);
    const releases = await count(`SELECT count(*) AS n FROM ledger_releases WHERE "releasedAt" IS NULL`);
    const undelivered = await count(
      `SELECT count(*) AS n FROM webhook_deliveries WHERE "tenantId" = :tenant AND status = 'pending'`,
      tenant,
    );
    const events = await count(`SELECT count(*) AS n FROM events WHERE "tenantId" = :tenant`, tenant);
    const deliveries = await count(`SELECT count(*) AS n FROM webhook_deliveries WHERE "tenantId" = :tenant`, tenant);
    return open + refundsPending + operations + releases + undelivered === 0 && deliveries === events
      ? null
      : `${open} payments open, ${refundsPending} refunds pending, ${operations} acquirer answers, ${releases} releases, ${undelivered} deliveries pending, ${deliveries}/${events} deliveries/events`;
  });
}

const card = {
  paymentMethod: {
    type: 'card',
    card: { number: '4242424242424242', expMonth: 12, expYear: 2030, cvc: '123', holderName: 'Ada Lovelace' },
  },
};

describe(`crash recovery: serve killed with SIGKILL and restarted (${dialectName})`, () => {
  test(
    'payments, refunds, withdrawals and webhooks under load survive three SIGKILLs: one effect per Idempotency-Key, ledger balanced, every event delivered, nothing stuck',
    async () => {
      const started = Date.now();
      const random = seeded(SEED);
      const log: OpRecord[] = [];
      const failures: Failure[] = [];
      const merchantKey = sandbox.merchantKey.secretKey;
      const tenantKey = sandbox.tenantKey.secretKey;
      const tenant = tenantOf();

      const progress = { completes: 0, executions: 0, clientsDone: 0 };
      const withdrawalQueue: string[] = [];
      const clientSecrets = new Map<string, string>();

      // ------------------------------------------------------------------------------------------- the clients
      async function merchantClient(c: number): Promise<void> {
        const name = `m${c}`;
        const http = new CrashClient(target, budget, log, failures);
        const rand = seeded(SEED * 31 + c);
        const mine: Array<{ sessionId: string; amount: number; refunds: number; index: number }> = [];
        let refunds = 0;
        let withdrawals = 0;

        const refundOne = async () => {
          for (const p of mine.filter((x) => x.refunds < 2)) {
            const session = await http.get(`/v1/checkout-sessions/${p.sessionId}`, merchantKey);
            const paymentId = session.body?.data?.paymentId as string | undefined;
            if (!paymentId) continue;
            const payment = await http.get(`/v1/payments/${paymentId}`, merchantKey);
            if (!['captured', 'partially_refunded'].includes(payment.body?.data?.status)) continue;
            const ref = `refund-${name}-${refunds++}`;
            // every 4th payment's second refund asks for all that remains
            const whole = p.refunds === 1 && p.index % 4 === 0;
            const body = {
              ...(whole ? {} : { amount: { currency: 'EUR', valueMinor: Math.floor(p.amount / 3) } }),
              merchantReference: ref,
              reason: 'requested_by_customer',
            };
            p.refunds++;
            await http.post(name, 'refund', `/v1/payments/${paymentId}/refunds`, merchantKey, body, ref, ref);
            return;
          }
        };

        for (let i = 0; i < PAYMENTS_PER_CLIENT; i++) {
          // customers come one after the other, not all at once: the load spans the kills
          await sleep(150 + Math.floor(rand() * 300));
          const amount = 1_000 + Math.floor(rand() * 9_000);
          const ref = `order-${name}-${i}`;
          const created = await http.post(
            name,
            'session',
            '/v1/checkout-sessions',
            merchantKey,
            {
              amount: { currency: 'EUR', valueMinor: amount },
              captureMethod: 'automatic',
              merchantReference: ref,
              successUrl: 'https://shop.example/ok',
              cancelUrl: 'https://shop.example/cancel',
            },
            `session-${name}-${i}`,
            ref,
          );
          if (created.status !== 201) continue; // recorded; the checks fail on it
          const { id, clientSecret } = created.body.data as { id: string; clientSecret: string };
          clientSecrets.set(id, clientSecret);
          await http.post(name, 'complete', `/v1/checkout-sessions/${id}/complete`, clientSecret, card, `pay-${name}-${i}`, ref);
          progress.completes++;
          mine.push({ sessionId: id, amount, refunds: 0, index: i });
          if (i % 2 === 1) await refundOne();
          if (i % 3 === 2) {
            const key = `withdrawal-${name}-${withdrawals++}`;
            const answer = await http.post(
              name,
              'withdrawal',
              '/v1/withdrawals',
              merchantKey,
              {
                amount: { currency: 'EUR', valueMinor: 100 + Math.floor(rand() * 900) },
                withdrawalMethodId: methodId,
              },
              key,
              key,
            );
            if (answer.status === 201) withdrawalQueue.push(answer.body.data.id);
          }
        }
        // the last refunds, once their payments are captured
        for (let k = 0; k < 2; k++) await refundOne();
        progress.clientsDone++;
      }

      /** Approves and executes the withdrawals as they come; leaves some approved and some executing on purpose. */
      async function operatorClient(): Promise<void> {
        const http = new CrashClient(target, budget, log, failures);
        let n = 0;
        while (progress.clientsDone < CLIENTS || withdrawalQueue.length > 0) {
          const id = withdrawalQueue.shift();
          if (!id) {
            await sleep(50);
            continue;
          }
          const plan = n++ % 6; // 0, 2, 4: completed; 1: failed; 3: left approved; 5: left executing
          const move = (action: string, body: unknown = {}) =>
            http.post('operator', `withdrawal:${action}`, `/v1/withdrawals/${id}/${action}`, tenantKey, body, `${action}-${id}`, id);
          if ((await move('approve')).status !== 200 || plan === 3) continue;
          if ((await move('start-execution')).status !== 200) continue;
          progress.executions++;
          if (plan === 5) continue;
          if (plan === 1) await move('fail', { comment: 'The bank refused the transfer.' });
          else await move('complete', { providerReference: `bank-${id.slice(0, 8)}`, comment: 'Paid by hand.' });
        }
      }

      // ----------------------------------------------------------------------------------------- the kills
      let stopped = false;
      async function kills(): Promise<void> {
        const jitter = () => sleep(Math.floor(random() * 200));
        // A: while payments are being taken and the first refunds made
        await waitUntil(() => (stopped || progress.completes >= 5 + Math.floor(random() * 4) ? null : 'payments'));
        if (stopped) return;
        await jitter();
        const a = await crash('A: payments and refunds');
        // B: while withdrawals are being executed (payments and refunds go on), once a request holds its key: no
        // request can store its answer from here on, so the first key claimed stays held until the kill
        await waitUntil(() => (stopped || (Date.now() > a.record.restartedAt + 2_000 && progress.executions >= 2) ? null : 'executions'));
        if (stopped) return;
        const open = await holdAnswers();
        const holder = server.child.pid!;
        try {
          await waitUntil(async () => ((await keysHeldBy(holder)).length > 0 ? null : 'a request holding its key'), 10);
        } catch (error) {
          await open();
          throw error;
        }
        await crash('B: withdrawal executions', open);
        // C: once the clients are done, while the dispatcher works through its backlog
        await waitUntil(() => (stopped || progress.clientsDone === CLIENTS ? null : 'clients'));
        if (stopped) return;
        await jitter();
        await crash('C: webhook deliveries');
      }

      // what happened, printed whether the checks pass or not (also when a budget ran out)
      let phase = 'load';
      let loadDone = NaN;
      let drained = NaN;
      let resent: number | undefined;
      let repaid: Array<{ id: string; checkoutSessionId: string; errorCode: string; errorMessage: string }> = [];
      const report = async () => {
        const n = async (table: string) => count(`SELECT count(*) AS n FROM ${table} WHERE "tenantId" = :tenant`, tenant);
        const windows = crashWindows();
        const summary = {
          seed: SEED,
          phase,
          seconds: { load: (loadDone - started) / 1000, drain: (drained - loadDone) / 1000, total: (Date.now() - started) / 1000 },
          crashes: crashes.map((c) => ({
            label: c.label,
            heldKeys: c.heldKeys.map((k) => `${k.path} ${k.key}`),
            heldOperations: c.heldOperations,
            heldDeliveries: c.heldDeliveries,
            runningTicks: c.runningTicks,
            unsent: c.unsent,
            downMs: c.restartedAt - c.killStartedAt,
            // how long after the restart each held key's retry was answered
            heldKeyAnsweredMs: c.heldKeys.map((k) => (log.find((o) => o.key === k.key)?.answeredAt ?? NaN) - c.restartedAt),
          })),
          operations: log.length,
          unanswered: log
            .filter((o) => o.status === undefined)
            .map((o) => `${o.kind} ${o.key}: ${o.sends} sends since ${o.sentAt - started} ms`),
          retried: log
            .filter((o) => o.sends > 1)
            .map(
              (o) =>
                `${o.key}: ${o.sends} sends (${o.networkErrors} cut or refused, ${o.serverErrors} 5xx, ${o.inUse} in use) -> ${o.status} ${o.code ?? ''}${o.replayed ? ' replayed' : ''}`,
            ),
          failures: `${failures.length} (${failures.filter((f) => f.status === 'network').length} network errors), by kill: ${JSON.stringify(
            Object.fromEntries(windows.map((w) => [w.label, failures.filter((f) => crashWindowOf(f, [w])).length])),
          )}`,
          failuresOutsideKills: failures
            .filter((f) => !crashWindowOf(f, windows))
            .map((f) => ({ ...f, sentAt: f.sentAt - started, at: f.at - started })),
          resentProviderCalls: resent,
          paidAgain: repaid.map((p) => `${p.checkoutSessionId}: ${p.errorCode} ${p.errorMessage}`),
          rows: {
            payments: await n('payments'),
            refunds: await n('refunds'),
            withdrawals: await n('withdrawals'),
            events: await n('events'),
          },
          deliveriesReceived: receiver.received.length,
          deliveredTwice: receiver.received.length - new Set(receiver.received.map((r) => r.headers['webhook-id'])).size,
        };
        console.log(`crash recovery (${dialectName}):\n${JSON.stringify(summary, null, 2)}`);
      };

      try {
        const load = Promise.all([...Array.from({ length: CLIENTS }, (_, c) => merchantClient(c)), operatorClient(), kills()]);
        try {
          // a hung kill or restart cannot outlast the budget either (the clients give up when it runs out themselves)
          await within('the load (clients and kills)', load);
        } finally {
          stopped = true;
        }
        loadDone = Date.now();

        // ----------------------------------------------------------------------------- recovery and draining
        // provider calls a dead process committed and never made (what the payment-recovery job finds, later)
        phase = 'drain';
        resent = await recoverStalledCalls(t.rt, { staleMs: 0 });
        await drain();
        // A payment whose process died before it reached the acquirer is never sent again: the recovery looks it up at the
        // acquirer, which never got it, so it fails (provider_unavailable) and its session is open again. Its customer pays again.
        phase = 'repay';
        repaid = await rows<{ id: string; checkoutSessionId: string; errorCode: string; errorMessage: string }>(
          `SELECT id, "checkoutSessionId", "errorCode", "errorMessage" FROM payments WHERE "tenantId" = :tenant AND status = 'failed'`,
        );
        const repayer = new CrashClient(target, budget, log, failures);
        for (const p of repaid) {
          await repayer.post(
            'repay',
            'repay',
            `/v1/checkout-sessions/${p.checkoutSessionId}/complete`,
            clientSecrets.get(p.checkoutSessionId)!,
            card,
            `repay-${p.checkoutSessionId}`,
          );
        }
        phase = 'second drain';
        if (repaid.length > 0) await drain();
        drained = Date.now();
        phase = 'checks';
        await checkOutcome();
        phase = 'done';
      } finally {
        await report().catch((error) => {
          console.log(
            `crash recovery (${dialectName}): no summary (${error}); phase ${phase}, ${failures.length} failures, ${log.length} operations`,
          );
        });
      }

      async function checkOutcome(): Promise<void> {
        const ops = (kind: string) => log.filter((o) => o.kind === kind);
        const { Idempotency } = t.rt.db.models;

        // no 5xx and no network error but for requests in flight at a kill (each one outside is shown with its body)
        expect(failures.filter((f) => !crashWindowOf(f, crashWindows()))).toEqual([]);

        // every client operation got a definite answer
        expect(log.filter((o) => o.status === undefined)).toEqual([]);

        // sessions: one per operation, each answered 201
        const sessionOps = ops('session');
        expect(sessionOps).toHaveLength(CLIENTS * PAYMENTS_PER_CLIENT);
        expect(sessionOps.filter((o) => o.status !== 201)).toEqual([]);
        const sessions = await rows<{ id: string; merchantReference: string; status: string; paymentId: string | null }>(
          `SELECT id, "merchantReference", status, "paymentId" FROM checkout_sessions WHERE "tenantId" = :tenant`,
        );
        expect(sessions.map((s) => s.merchantReference).sort()).toEqual(sessionOps.map((o) => o.ref).sort());

        // payments: exactly one per session (a retried complete never pays twice), each captured in the end. Every
        // complete is answered 200, also when an earlier send of it paid already (cut, 5xx, or its process killed): the
        // retry gets the answer of what that send committed, never 409 because the session is paid or its payment in flight.
        const completeOps = ops('complete');
        expect(completeOps).toHaveLength(CLIENTS * PAYMENTS_PER_CLIENT);
        expect(completeOps.filter((o) => o.status !== 200)).toEqual([]);
        const payments = await rows<{
          id: string;
          checkoutSessionId: string;
          status: string;
          amountMinor: string;
          capturedMinor: string;
          refundedMinor: string;
          refundPendingMinor: string;
        }>(
          `SELECT id, "checkoutSessionId", status, "amountMinor", "capturedMinor", "refundedMinor", "refundPendingMinor" FROM payments WHERE "tenantId" = :tenant AND status <> 'failed'`,
        );
        const perSession = new Map<string, number>();
        for (const p of payments) perSession.set(p.checkoutSessionId, (perSession.get(p.checkoutSessionId) ?? 0) + 1);
        expect([...perSession].filter(([, k]) => k !== 1)).toEqual([]);
        expect(payments).toHaveLength(sessions.length);
        expect(payments.filter((p) => !['captured', 'partially_refunded', 'refunded'].includes(p.status))).toEqual([]);
        expect(sessions.filter((s) => s.status !== 'complete' || !s.paymentId)).toEqual([]);
        // the failed ones: only payments a kill cut off before the acquirer, failed by the recovery, and paid again
        const completeOf = new Map(completeOps.map((o) => [o.path.split('/')[3], o]));
        expect(
          repaid.filter(
            (p) => p.errorMessage !== 'The provider never received the request.' || !(completeOf.get(p.checkoutSessionId)!.sends > 1),
          ),
        ).toEqual([]);
        expect(ops('repay').filter((o) => o.status !== 200)).toEqual([]);
        // each of them a payment whose attempt a kill left unsent (the recovery that failed it may be `serve`'s own job,
        // which takes calls older than two minutes: a slow run meets it)
        const unsentPayments = new Set(crashes.flatMap((c) => c.unsentPayments));
        expect(repaid.filter((p) => !unsentPayments.has(p.id)).map((p) => p.id)).toEqual([]);

        // refunds: a 201 has exactly one refund, a refused one none; never beyond what was captured
        const refundOps = ops('refund');
        expect(refundOps.filter((o) => o.status !== 201 && !(o.status === 422 && o.code === 'REFUND_EXCEEDS_REFUNDABLE'))).toEqual([]);
        const refunds = await rows<{ id: string; paymentId: string; merchantReference: string; status: string; amountMinor: string }>(
          `SELECT id, "paymentId", "merchantReference", status, "amountMinor" FROM refunds WHERE "tenantId" = :tenant`,
        );
        const refundsByRef = new Map<string, number>();
        for (const r of refunds) refundsByRef.set(r.merchantReference, (refundsByRef.get(r.merchantReference) ?? 0) + 1);
        const effects = refundOps.map((o) => ({ key: o.key, status: o.status, sends: o.sends, refunds: refundsByRef.get(o.ref!) ?? 0 }));
        expect(effects.filter((r) => r.refunds !== (r.status === 201 ? 1 : 0))).toEqual([]);
        expect(refunds).toHaveLength(refundOps.filter((o) => o.status === 201).length);
        expect(refunds.filter((r) => r.status !== 'succeeded')).toEqual([]);
        expect(refunds.length).toBeGreaterThan(CLIENTS * 4);
        for (const p of payments) {
          const sum = refunds.filter((r) => r.paymentId === p.id).reduce((s, r) => s + Number(r.amountMinor), 0);
          const got = {
            id: p.id,
            refunded: Number(p.refundedMinor),
            captured: Number(p.capturedMinor),
            pending: Number(p.refundPendingMinor),
          };
          expect(got).toEqual({ id: p.id, refunded: sum, captured: Number(p.amountMinor), pending: 0 });
          expect(sum).toBeLessThanOrEqual(got.captured);
        }

        // withdrawals: a 201 has exactly one withdrawal (by its Idempotency-Key), and every operator move answered 200
        const withdrawalOps = ops('withdrawal');
        expect(withdrawalOps.filter((o) => o.status !== 201)).toEqual([]);
        const withdrawals = await rows<{ id: string; idempotencyKey: string; status: string }>(
          `SELECT id, "idempotencyKey", status FROM withdrawals WHERE "tenantId" = :tenant`,
        );
        expect(withdrawals.map((w) => w.idempotencyKey).sort()).toEqual(withdrawalOps.map((o) => o.key).sort());
        expect(log.filter((o) => o.kind.startsWith('withdrawal:') && o.status !== 200)).toEqual([]);

        // no Idempotency-Key left in progress
        expect(await Idempotency.count({ where: { state: 'in_progress' } })).toBe(0);

        // the dead processes' keys: each was answered in the end, and no retry of one was told to wait (409
        // IDEMPOTENCY_KEY_IN_USE): the new process knew at once that their process was gone
        const held = crashes.flatMap((c) => c.heldKeys.map((key) => ({ crash: c, key, op: log.find((o) => o.key === key.key) })));
        expect(held.filter((h) => !h.op).map((h) => h.key.key)).toEqual([]);
        expect(held.filter((h) => h.op!.inUse > 0).map((h) => `${h.key.key}: ${h.op!.inUse} in use`)).toEqual([]);
        expect(log.filter((o) => o.inUse > 0).map((o) => o.key)).toEqual([]);
        // kill B found keys held (holdAnswers)
        expect(held.filter((h) => h.crash.label.startsWith('B')).length).toBeGreaterThan(0);
        // the kills did catch requests in flight
        expect(held.length).toBeGreaterThan(0);
        expect(log.filter((o) => o.networkErrors > 0).length).toBeGreaterThan(0);

        // every event of the tenant reached the receiver at least once (twice is allowed: at least once)
        const events = await rows<{ id: string; type: string }>(`SELECT id, type FROM events WHERE "tenantId" = :tenant`);
        const received = new Set(receiver.received.map((r) => r.body.events[0].id));
        expect(events.filter((e) => !received.has(e.id))).toEqual([]);
        const types = new Set(events.map((e) => e.type));
        for (const type of [
          'payment.captured',
          'refund.succeeded',
          'withdrawal.created',
          'withdrawal.approved',
          'withdrawal.succeeded',
          'withdrawal.failed',
        ]) {
          expect([type, types.has(type)]).toEqual([type, true]);
        }

        // the ledger balances
        await expectLedgerInvariant(t.rt);

        // no withdrawal without a way forward: each one left open is moved to an end through the API
        const open = withdrawals.filter((w) => !['completed', 'failed', 'rejected', 'canceled'].includes(w.status));
        expect(open.filter((w) => !['pending', 'approved', 'executing'].includes(w.status))).toEqual([]);
        expect(open.some((w) => w.status === 'executing')).toBe(true);
        expect(open.some((w) => w.status === 'approved')).toBe(true);
        phase = 'finish';
        const finisher = new CrashClient(target, budget, [], failures);
        for (const w of open) {
          const steps =
            w.status === 'pending'
              ? ['approve', 'start-execution', 'complete']
              : w.status === 'approved'
                ? ['start-execution', 'complete']
                : ['complete'];
          for (const step of steps) {
            const answer = await finisher.post(
              'finisher',
              step,
              `/v1/withdrawals/${w.id}/${step}`,
              tenantKey,
              step === 'complete' ? { comment: 'Paid after the restart.' } : {},
              `final-${step}-${w.id}`,
            );
            expect([w.id, step, answer.status]).toEqual([w.id, step, 200]);
          }
        }
        expect(
          await count(
            `SELECT count(*) AS n FROM withdrawals WHERE "tenantId" = :tenant AND status NOT IN ('completed', 'failed', 'rejected', 'canceled')`,
            tenant,
          ),
        ).toBe(0);
        await expectLedgerInvariant(t.rt);
        expect(failures.filter((f) => !crashWindowOf(f, crashWindows()))).toEqual([]);
      }
    },
    TEST_TIMEOUT,
  );

  test(
    'a process killed after a refund or a payment committed and before its answer was stored: the retry makes no second one',
    async () => {
      const merchantKey = sandbox.merchantKey.secretKey;
      const failures: Failure[] = [];
      const http = new CrashClient(target, budget, [], failures);
      // a captured payment to refund, and an open session to pay
      const session = async (ref: string) => {
        const created = await http.post(
          'window',
          'session',
          '/v1/checkout-sessions',
          merchantKey,
          {
            amount: { currency: 'EUR', valueMinor: 6_000 },
            merchantReference: ref,
            successUrl: 'https://shop.example/ok',
          },
          `session-${ref}`,
        );
        expect(created.status).toBe(201);
        return created.body.data as { id: string; clientSecret: string };
      };
      const paid = await session('window-paid');
      const completed = await http.post(
        'window',
        'complete',
        `/v1/checkout-sessions/${paid.id}/complete`,
        paid.clientSecret,
        card,
        'pay-window-paid',
      );
      expect(completed.status).toBe(200);
      const paymentId = completed.body.data.paymentId as string;
      await waitUntil(async () =>
        (await http.get(`/v1/payments/${paymentId}`, merchantKey)).body.data.status === 'captured' ? null : 'capture',
      );
      const unpaid = await session('window-unpaid');

      // The process is held in the window: storing the answer of these two keys fails (and so does letting go of the
      // key, deleting it or freeing it, as if the process had died there), then it is killed. Triggers are the test's
      // own, dropped before the restart.
      const keys = `'refund-window', 'pay-window'`;
      const q = (sql: string) => t.rt.db.sequelize.query(sql);
      if (onPostgres) {
        await q(`CREATE FUNCTION crash_window() RETURNS trigger LANGUAGE plpgsql AS $f$
        BEGIN
          IF TG_OP = 'DELETE' THEN
            IF OLD."key" IN (${keys}) THEN RAISE EXCEPTION 'crash window'; END IF;
            RETURN OLD;
          END IF;
          IF NEW."key" IN (${keys}) AND (NEW.state = 'completed' OR NEW."ownerProcess" IS NULL) THEN RAISE EXCEPTION 'crash window'; END IF;
          RETURN NEW;
        END $f$`);
        await q(`CREATE TRIGGER crash_window BEFORE UPDATE OR DELETE ON idempotency_records FOR EACH ROW EXECUTE FUNCTION crash_window()`);
      } else {
        await q(`CREATE TRIGGER crash_window_store BEFORE UPDATE ON idempotency_records WHEN NEW."key" IN (${keys}) AND (NEW.state = 'completed' OR NEW."ownerProcess" IS NULL)
        BEGIN SELECT RAISE(ABORT, 'crash window'); END`);
        await q(`CREATE TRIGGER crash_window_free BEFORE DELETE ON idempotency_records WHEN OLD."key" IN (${keys})
        BEGIN SELECT RAISE(ABORT, 'crash window'); END`);
      }
      const refundBody = { amount: { currency: 'EUR', valueMinor: 1_500 }, merchantReference: 'refund-window' };
      const first = await server.request(`/v1/payments/${paymentId}/refunds`, {
        credential: merchantKey,
        body: refundBody,
        headers: { 'Idempotency-Key': 'refund-window' },
      });
      expect(first.status).toBeGreaterThanOrEqual(500);
      const firstPay = await server.request(`/v1/checkout-sessions/${unpaid.id}/complete`, {
        credential: unpaid.clientSecret,
        body: card,
        headers: { 'Idempotency-Key': 'pay-window' },
      });
      expect(firstPay.status).toBeGreaterThanOrEqual(500);
      // the effects are committed, the keys still in progress
      const refundRows = () => rows<{ id: string }>(`SELECT id FROM refunds WHERE "paymentId" = :payment`, { payment: paymentId });
      expect(await refundRows()).toHaveLength(1);
      const paymentsOf = () => rows<{ id: string }>(`SELECT id FROM payments WHERE "checkoutSessionId" = :session`, { session: unpaid.id });
      expect(await paymentsOf()).toHaveLength(1);
      expect(await t.rt.db.models.Idempotency.count({ where: { key: ['refund-window', 'pay-window'], state: 'in_progress' } })).toBe(2);

      if (onPostgres) {
        await q('DROP TRIGGER crash_window ON idempotency_records');
        await q('DROP FUNCTION crash_window()');
      } else {
        await q('DROP TRIGGER crash_window_store');
        await q('DROP TRIGGER crash_window_free');
      }
      const { record } = await crash('window: refund and complete committed, answers not stored');
      expect(record.heldKeys.map((k) => k.key).sort()).toEqual(['pay-window', 'refund-window']);

      // the clients retry with the same keys and bodies
      const refund = await http.post('window', 'refund', `/v1/payments/${paymentId}/refunds`, merchantKey, refundBody, 'refund-window');
      expect(refund.status).toBe(201);
      const [only] = await refundRows();
      expect(refund.body.data.id).toBe(only.id);
      expect(await refundRows()).toHaveLength(1);
      const pay = await http.post(
        'window',
        'complete',
        `/v1/checkout-sessions/${unpaid.id}/complete`,
        unpaid.clientSecret,
        card,
        'pay-window',
      );
      // the session was paid by the first request: no second payment, and the retry gets the answer of that one (its
      // key was marked with the payment): 200 with the session and its payment, at once
      const [onlyPayment] = await paymentsOf();
      expect([pay.status, pay.body.data?.id, pay.body.data?.paymentId, pay.replayed, pay.op.inUse]).toEqual([
        200,
        unpaid.id,
        onlyPayment.id,
        false,
        0,
      ]);
      expect(await paymentsOf()).toHaveLength(1);
      // and it is kept: the same request again replays it
      const again = await http.post(
        'window',
        'complete',
        `/v1/checkout-sessions/${unpaid.id}/complete`,
        unpaid.clientSecret,
        card,
        'pay-window',
      );
      expect([again.status, again.replayed, again.body]).toEqual([200, true, pay.body]);
      expect(refund.op.inUse).toBe(0);

      await recoverStalledCalls(t.rt, { staleMs: 0 });
      await drain();
      const payment = (await http.get(`/v1/payments/${paymentId}`, merchantKey)).body.data;
      expect([payment.status, payment.amountBreakdown.refunded.valueMinor]).toEqual(['partially_refunded', 1_500]);
      expect((await http.get(`/v1/refunds/${only.id}`, merchantKey)).body.data.status).toBe('succeeded');
      expect(await t.rt.db.models.Idempotency.count({ where: { state: 'in_progress' } })).toBe(0);
      await expectLedgerInvariant(t.rt);
      // the client met no 5xx and no network error (its requests went out after the kill, to the new process)
      expect(failures).toEqual([]);
    },
    WINDOW_TEST_TIMEOUT,
  );

  test(
    "a keyed complete, refund and capture killed at every step: the retry gets the operation's answer at once; one payment, one refund, one capture",
    async () => {
      const merchantKey = sandbox.merchantKey.secretKey;
      const failures: Failure[] = [];
      const http = new CrashClient(target, budget, [], failures);
      const AMOUNT = 6_000;
      const session = async (ref: string) => {
        const created = await http.post(
          'points',
          'session',
          '/v1/checkout-sessions',
          merchantKey,
          {
            amount: { currency: 'EUR', valueMinor: AMOUNT },
            merchantReference: ref,
            successUrl: 'https://shop.example/ok',
          },
          `session-${ref}`,
        );
        expect(created.status).toBe(201);
        return created.body.data as { id: string; clientSecret: string };
      };
      const one = async <T extends object>(sql: string, replacements: Record<string, unknown>) =>
        (await rows<T>(sql, replacements))[0] as T | undefined;
      /** where a kill landed for a key: what the dead request had committed */
      const landing = async (key: string) => {
        const row = await one<{ state: string; appliedAt: unknown }>(
          `SELECT state, "appliedAt" FROM idempotency_records WHERE "key" = :key`,
          { key },
        );
        return !row
          ? 'not claimed'
          : row.state === 'completed'
            ? 'answer kept'
            : row.appliedAt
              ? 'effect committed, answer not kept'
              : 'claimed, nothing committed';
      };
      const points: Array<{
        op: string;
        step: string;
        first: number | string;
        landed: string;
        answeredMs: number;
        status: number;
        replayed: boolean;
      }> = [];

      /**
       * One step of an operation where the test holds serve: a statement (`event` on `table`, `when` its row matches)
       * that waits, in a test-only trigger, until the process is dead, and then fails. `reached` tells that the request
       * committed everything before that step (polled; the step cannot pass, so the kill lands there whenever it comes).
       */
      interface Step {
        step: string;
        table: string;
        event: 'INSERT' | 'UPDATE';
        when: string;
        reached: () => Promise<boolean>;
      }
      const q = (sql: string, transaction?: Transaction) => t.rt.db.sequelize.query(sql, { transaction });
      async function holdAt(step: Step): Promise<() => Promise<void>> {
        if (onPostgres) {
          const gate = new Client({ connectionString: t.db.url });
          await gate.connect();
          await gate.query('SELECT pg_advisory_lock(4242011)');
          await q(`CREATE FUNCTION crash_step() RETURNS trigger LANGUAGE plpgsql AS $f$
          BEGIN
            PERFORM pg_advisory_xact_lock_shared(4242011);
            RAISE EXCEPTION 'crash step';
          END $f$`);
          await q(
            `CREATE TRIGGER crash_step BEFORE ${step.event} ON ${step.table} FOR EACH ROW WHEN (${step.when}) EXECUTE FUNCTION crash_step()`,
          );
          return async () => {
            await gate.end();
            await q(`DROP TRIGGER crash_step ON ${step.table}`);
            await q('DROP FUNCTION crash_step()');
          };
        }
        // SQLite: the statement spins until its process dies (see holdAnswers), all set up in one transaction
        const spin =
          "SELECT count(*) FROM crash_step_rows a, crash_step_rows b, crash_step_rows c, crash_step_rows d; SELECT RAISE(ABORT, 'crash step');";
        await t.rt.db.transaction(async (transaction) => {
          await q('CREATE TABLE crash_step_rows (n INTEGER)', transaction);
          await q(
            'INSERT INTO crash_step_rows (n) WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 800) SELECT n FROM c',
            transaction,
          );
          await q(`CREATE TRIGGER crash_step BEFORE ${step.event} ON ${step.table} WHEN ${step.when} BEGIN ${spin} END`, transaction);
        });
        return async () => {
          await q('DROP TRIGGER crash_step');
          await q('DROP TABLE crash_step_rows');
        };
      }

      /**
       * Sends the keyed request, kills serve once it is held at `step` (or, without one, once it has answered), restarts
       * it, and sends the identical request again until it has a definite answer (a 409 IDEMPOTENCY_KEY_IN_USE is
       * counted and sent again, a 5xx only when in flight at the kill).
       */
      const killedAt = async (op: string, step: Step | 'answered', path: string, credential: string, body: unknown, key: string) => {
        const release = step === 'answered' ? undefined : await holdAt(step);
        const first = server.request(path, { credential, body, headers: { 'Idempotency-Key': key } }).then(
          (r) => r.status,
          () => 'cut',
        );
        if (step === 'answered') await first;
        else await waitUntil(async () => ((await step.reached()) ? null : `${op} ${key} reaching ${step.step}`), 10);
        // the request goes on to the held statement (it cannot pass it: the kill lands there however late it comes)
        if (step !== 'answered') await sleep(200);
        await crash(`${op} at ${step === 'answered' ? step : step.step}`, release);
        const landed = await landing(key);
        const answer = await http.post('points', op, path, credential, body, key);
        points.push({
          op,
          step: step === 'answered' ? step : step.step,
          first: await first,
          landed,
          answeredMs: answer.op.answeredAt! - answer.op.sentAt,
          status: answer.status,
          replayed: answer.replayed,
        });
        // never told to wait, and not held: a key held by a live process waits 15 s in the server first
        expect([key, answer.op.inUse, answer.op.answeredAt! - answer.op.sentAt < 15_000]).toEqual([key, 0, true]);
        return { answer, landed };
      };

      const claimed = (key: string) => async () => Boolean(await landing(key).then((l) => l !== 'not claimed'));
      try {
        // an uninterrupted keyed complete: its answer
        const base = await session('points-base');
        const plain = await http.post(
          'points',
          'complete',
          `/v1/checkout-sessions/${base.id}/complete`,
          base.clientSecret,
          card,
          'points-pay-base',
        );
        expect(plain.status).toBe(200);
        const fieldsOf = (data: Record<string, unknown>) => Object.keys(data).sort();

        const paymentOf = (sessionId: string) =>
          one<{ id: string; status: string }>(`SELECT id, status FROM payments WHERE "checkoutSessionId" = :session`, {
            session: sessionId,
          });
        const attemptOf = (sessionId: string) =>
          one<{ id: string; providerReference: string | null }>(
            `SELECT a.id, a."providerReference" FROM payment_attempts a JOIN payments p ON p.id = a."paymentId" WHERE p."checkoutSessionId" = :session`,
            { session: sessionId },
          );
        const completeSteps = (key: string, sessionId: string): Array<Step | 'answered'> => [
          {
            step: 'the key claimed',
            table: 'idempotency_records',
            event: 'INSERT',
            when: `NEW."key" = '${key}'`,
            reached: async () => true,
          },
          {
            step: 'the payment written',
            table: 'payments',
            event: 'INSERT',
            when: `NEW."checkoutSessionId" = '${sessionId}'`,
            reached: claimed(key),
          },
          {
            step: 'the acquirer asked',
            table: 'sandbox_acquirer_operations',
            event: 'INSERT',
            when: `NEW.kind = 'authorize'`,
            reached: async () => Boolean(await paymentOf(sessionId)),
          },
          {
            step: "the acquirer's answer applied",
            table: 'payment_attempts',
            event: 'UPDATE',
            when: `OLD."providerReference" IS NULL AND NEW."providerReference" IS NOT NULL`,
            reached: async () => {
              const attempt = await attemptOf(sessionId);
              return Boolean(
                attempt && (await one(`SELECT id FROM sandbox_acquirer_operations WHERE reference = :ref`, { ref: attempt.id })),
              );
            },
          },
          {
            step: 'the answer kept',
            table: 'idempotency_records',
            event: 'UPDATE',
            when: `NEW."key" = '${key}' AND (NEW.state = 'completed' OR NEW."ownerProcess" IS NULL)`,
            reached: async () => Boolean((await attemptOf(sessionId))?.providerReference),
          },
          'answered',
        ];
        for (let i = 0; i < completeSteps('', '').length; i++) {
          const key = `points-pay-${i}`;
          const open = await session(key);
          const { answer, landed } = await killedAt(
            'complete',
            completeSteps(key, open.id)[i],
            `/v1/checkout-sessions/${open.id}/complete`,
            open.clientSecret,
            card,
            key,
          );
          // the operation's answer: the session and its one payment, as an uninterrupted run answers
          const payments = await rows<{ id: string }>(`SELECT id FROM payments WHERE "checkoutSessionId" = :session`, { session: open.id });
          expect([i, landed, answer.status, payments.length]).toEqual([i, landed, 200, 1]);
          expect([answer.body.data.id, answer.body.data.paymentId, answer.body.data.amount]).toEqual([
            open.id,
            payments[0].id,
            plain.body.data.amount,
          ]);
          expect(fieldsOf(answer.body.data)).toEqual(fieldsOf(plain.body.data));
          // kept: the same request replays that answer
          const again = await http.post('points', 'complete', `/v1/checkout-sessions/${open.id}/complete`, open.clientSecret, card, key);
          expect([again.status, again.replayed, again.body]).toEqual([200, true, answer.body]);
        }
        // each step was a landing of its own
        expect(points.map((p) => p.landed)).toEqual([
          'not claimed',
          'claimed, nothing committed',
          'effect committed, answer not kept',
          'effect committed, answer not kept',
          'effect committed, answer not kept',
          'answer kept',
        ]);

        // refunds of the first payment, once captured
        const paymentId = plain.body.data.paymentId as string;
        await waitUntil(async () =>
          (await http.get(`/v1/payments/${paymentId}`, merchantKey)).body.data.status === 'captured' ? null : 'capture',
        );
        const refundBody = (ref: string) => ({ amount: { currency: 'EUR', valueMinor: 300 }, merchantReference: ref });
        const plainRefund = await http.post(
          'points',
          'refund',
          `/v1/payments/${paymentId}/refunds`,
          merchantKey,
          refundBody('points-refund-base'),
          'points-refund-base',
        );
        expect(plainRefund.status).toBe(201);
        const refundOf = (ref: string) =>
          one<{ id: string; providerReference: string | null }>(
            `SELECT id, "providerReference" FROM refunds WHERE "merchantReference" = :ref`,
            { ref },
          );
        const refundSteps = (key: string): Array<Step | 'answered'> => [
          {
            step: 'the key claimed',
            table: 'idempotency_records',
            event: 'INSERT',
            when: `NEW."key" = '${key}'`,
            reached: async () => true,
          },
          {
            step: 'the refund written',
            table: 'refunds',
            event: 'INSERT',
            when: `NEW."merchantReference" = '${key}'`,
            reached: claimed(key),
          },
          {
            step: 'the acquirer asked',
            table: 'sandbox_acquirer_operations',
            event: 'INSERT',
            when: `NEW.kind = 'refund'`,
            reached: async () => Boolean(await refundOf(key)),
          },
          {
            step: "the acquirer's answer applied",
            table: 'refunds',
            event: 'UPDATE',
            when: `NEW."merchantReference" = '${key}' AND OLD."providerReference" IS NULL AND NEW."providerReference" IS NOT NULL`,
            reached: async () => {
              const refund = await refundOf(key);
              return Boolean(
                refund && (await one(`SELECT id FROM sandbox_acquirer_operations WHERE reference = :ref`, { ref: refund.id })),
              );
            },
          },
          {
            step: 'the answer kept',
            table: 'idempotency_records',
            event: 'UPDATE',
            when: `NEW."key" = '${key}' AND (NEW.state = 'completed' OR NEW."ownerProcess" IS NULL)`,
            reached: async () => Boolean((await refundOf(key))?.providerReference),
          },
          'answered',
        ];
        const refundPoints = refundSteps('').length;
        for (let i = 0; i < refundPoints; i++) {
          const ref = `points-refund-${i}`;
          const { answer } = await killedAt(
            'refund',
            refundSteps(ref)[i],
            `/v1/payments/${paymentId}/refunds`,
            merchantKey,
            refundBody(ref),
            ref,
          );
          const refunds = await rows<{ id: string }>(`SELECT id FROM refunds WHERE "merchantReference" = :ref`, { ref });
          expect([i, answer.status, refunds.length]).toEqual([i, 201, 1]);
          expect([answer.body.data.id, answer.body.data.amount]).toEqual([refunds[0].id, plainRefund.body.data.amount]);
          expect(fieldsOf(answer.body.data)).toEqual(fieldsOf(plainRefund.body.data));
          const again = await http.post('points', 'refund', `/v1/payments/${paymentId}/refunds`, merchantKey, refundBody(ref), ref);
          expect([again.status, again.replayed, again.body]).toEqual([201, true, answer.body]);
        }
        expect(points.filter((p) => p.op === 'refund').map((p) => p.landed)).toEqual([
          'not claimed',
          'claimed, nothing committed',
          'effect committed, answer not kept',
          'effect committed, answer not kept',
          'effect committed, answer not kept',
          'answer kept',
        ]);

        // captures of manual-capture payments, one per step
        const authorized = async (ref: string) => {
          const created = await http.post(
            'points',
            'session',
            '/v1/checkout-sessions',
            merchantKey,
            {
              amount: { currency: 'EUR', valueMinor: AMOUNT },
              captureMethod: 'manual',
              merchantReference: ref,
              successUrl: 'https://shop.example/ok',
            },
            `session-${ref}`,
          );
          expect(created.status).toBe(201);
          const { id, clientSecret } = created.body.data as { id: string; clientSecret: string };
          const paid = await http.post('points', 'complete', `/v1/checkout-sessions/${id}/complete`, clientSecret, card, `pay-${ref}`);
          expect(paid.status).toBe(200);
          const payment = paid.body.data.paymentId as string;
          await waitUntil(async () =>
            (await http.get(`/v1/payments/${payment}`, merchantKey)).body.data.status === 'requires_capture' ? null : `${ref} authorized`,
          );
          return payment;
        };
        const pendingOf = (payment: string) =>
          one<{ status: string; pendingOperation: unknown }>(`SELECT status, "pendingOperation" FROM payments WHERE id = :payment`, {
            payment,
          });
        const captureSteps = (key: string, payment: string): Array<Step | 'answered'> => [
          {
            step: 'the key claimed',
            table: 'idempotency_records',
            event: 'INSERT',
            when: `NEW."key" = '${key}'`,
            reached: async () => true,
          },
          {
            step: 'the capture recorded',
            table: 'payments',
            event: 'UPDATE',
            when: `NEW.id = '${payment}' AND OLD."pendingOperation" IS NULL AND NEW."pendingOperation" IS NOT NULL`,
            reached: claimed(key),
          },
          {
            step: "the acquirer's answer applied",
            table: 'payments',
            event: 'UPDATE',
            when: `NEW.id = '${payment}' AND OLD."pendingOperation" IS NOT NULL`,
            reached: async () => Boolean((await pendingOf(payment))?.pendingOperation),
          },
          {
            step: 'the answer kept',
            table: 'idempotency_records',
            event: 'UPDATE',
            when: `NEW."key" = '${key}' AND (NEW.state = 'completed' OR NEW."ownerProcess" IS NULL)`,
            reached: async () => (await pendingOf(payment))?.status === 'captured',
          },
          'answered',
        ];
        const capturePoints = captureSteps('', '').length;
        const captured: string[] = [];
        let plainCapture: Record<string, unknown> | undefined;
        for (let i = 0; i < capturePoints; i++) {
          const key = `points-capture-${i}`;
          const payment = await authorized(key);
          captured.push(payment);
          if (!plainCapture) {
            // an uninterrupted keyed capture: its answer
            const base = await authorized('points-capture-base');
            const answer = await http.post('points', 'capture', `/v1/payments/${base}/capture`, merchantKey, {}, 'points-capture-base');
            expect(answer.status).toBe(200);
            plainCapture = answer.body.data;
          }
          const { answer } = await killedAt(
            'capture',
            captureSteps(key, payment)[i],
            `/v1/payments/${payment}/capture`,
            merchantKey,
            {},
            key,
          );
          // the operation's answer: the payment (captured, or its capture recorded and left for recovery to finish)
          expect([i, answer.status, answer.body.data.id]).toEqual([i, 200, payment]);
          expect(fieldsOf(answer.body.data)).toEqual(fieldsOf(plainCapture!));
          const again = await http.post('points', 'capture', `/v1/payments/${payment}/capture`, merchantKey, {}, key);
          expect([again.status, again.replayed, again.body]).toEqual([200, true, answer.body]);
        }
        expect(points.filter((p) => p.op === 'capture').map((p) => p.landed)).toEqual([
          'not claimed',
          'claimed, nothing committed',
          'effect committed, answer not kept',
          'effect committed, answer not kept',
          'answer kept',
        ]);

        // what the dead processes left unsent is looked up (found, or failed: the acquirer never got it) and everything settles;
        // a capture a dead process recorded is finished once its lease (PAYMENT_OPERATION_LEASE_MS) runs out: now
        await t.rt.db.models.Payment.update(
          { pendingOperationUntil: new Date(Date.now() - 1_000) },
          { where: { id: captured, pendingOperation: { [Op.ne]: null } } },
        );
        await recoverStalledCalls(t.rt, { staleMs: 0 });
        await drain();
        const capturedRows = await rows<{ id: string; status: string; capturedMinor: string }>(
          `SELECT id, status, "capturedMinor" FROM payments WHERE id IN (:ids)`,
          { ids: captured },
        );
        // each captured once, in full
        expect(capturedRows.map((p) => [p.status, Number(p.capturedMinor)])).toEqual(captured.map(() => ['captured', AMOUNT]));
        const unsent = new Set(crashes.flatMap((c) => c.unsentPayments));
        for (let i = 0; i < completeSteps('', '').length; i++) {
          const sessionRow = await one<{ id: string }>(`SELECT id FROM checkout_sessions WHERE "merchantReference" = :ref`, {
            ref: `points-pay-${i}`,
          });
          const payments = await rows<{ id: string; status: string; errorMessage: string | null }>(
            `SELECT id, status, "errorMessage" FROM payments WHERE "checkoutSessionId" = :session`,
            { session: sessionRow!.id },
          );
          // one payment, never doubled; failed only when a kill left its attempt unsent (the acquirer never got it)
          expect(payments).toHaveLength(1);
          const [p] = payments;
          expect([
            i,
            p.status === 'captured' ||
              (p.status === 'failed' && unsent.has(p.id) && p.errorMessage === 'The provider never received the request.'),
          ]).toEqual([i, true]);
        }
        const refundRows = await rows<{ merchantReference: string; status: string }>(
          `SELECT "merchantReference", status FROM refunds WHERE "paymentId" = :payment`,
          { payment: paymentId },
        );
        expect(refundRows.map((r) => r.merchantReference).sort()).toEqual(
          ['points-refund-base', ...Array.from({ length: refundPoints }, (_, i) => `points-refund-${i}`)].sort(),
        );
        expect(refundRows.filter((r) => r.status !== 'succeeded')).toEqual([]);
        const payment = (await http.get(`/v1/payments/${paymentId}`, merchantKey)).body.data;
        expect(payment.amountBreakdown.refunded.valueMinor).toBe(300 * (refundPoints + 1));
        expect(await t.rt.db.models.Idempotency.count({ where: { state: 'in_progress' } })).toBe(0);
        await expectLedgerInvariant(t.rt);
        // a 5xx or a network error only for a send in flight at a kill
        expect(failures.filter((f) => !crashWindowOf(f, crashWindows()))).toEqual([]);
      } finally {
        console.log(
          `crash steps (${dialectName}):\n${points.map((p) => `${p.op} killed at ${p.step} (first send: ${p.first}): ${p.landed} -> ${p.status}${p.replayed ? ' replayed' : ''} in ${p.answeredMs} ms`).join('\n')}`,
        );
      }
    },
    WINDOW_TEST_TIMEOUT,
  );
});
