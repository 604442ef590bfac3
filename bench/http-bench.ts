import { execFileSync, fork, spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { Op } from 'sequelize';
import { benchArgs, cpuMs, cpuPer, findRoot, freshDatabase, interrupted, runBench, type BenchDatabase, type DbKind } from './common';
import { loadConfig } from '../src/config';
import type { EventRow, WebhookDeliveryRow } from '../src/db/models';
import { closeRuntime, openRuntime, type Runtime } from '../src/runtime';
import { operatorContext } from '../src/services/access/operators';
import { createSandbox, type SandboxCredentials } from '../src/services/sandbox/provision';
import { createEndpoint } from '../src/services/webhooks/endpoints';
import { emitEvent } from '../src/services/webhooks/events';
import { sampleEventData } from '../src/services/webhooks/samples';
import { inTransaction } from '../src/domain/context';
import { newId } from '../src/util/ids';
import { mulberry32 } from '../src/util/random';
import { formatProfile, summarizeProfile, type ProfileSummary } from './http-profile';
import type { ReceiverStats } from './http-receiver';
import { insertPayments, paymentRow } from './risk-fixture';

/**
 * Issue 9: the HTTP benchmark against the physical limit of the stack; the targets it checks are issue 22's.
 *
 *   npm run bench:http -- [--db sqlite|postgres]... [--quick] [--duration 10] [--connections 50] [--payments 10000]
 *                         [--events 20000] [--scale 1000000] [--cpu-prof]
 *
 * Per database: a fresh one (a SQLite file in a temporary folder, or a new Postgres database, dropped afterwards, also
 * on Ctrl-C), migrated and seeded in this process through the service layer (the sandbox; the tenant's
 * doorRateLimitPerMinute raised to 1,000,000 so that the rate limit does not meter the benchmark; N payments of the
 * sandbox merchant inserted in bulk). Then `node bin/run.js serve` in a child process, measured with autocannon:
 *   (a) a bare Express hello-world with src/http/server.ts's settings, in a child process (the physical limit),
 *   (b) GET /v1/payments/{id} (random seeded ids), (c) GET /v1/payments?limit=20, (d) POST /v1/checkout-sessions,
 *   (e) create a session and complete it with 4242… with its clientSecret (payments/s),
 *   (f) webhook deliveries/s: M events in the outbox, then serve (two on Postgres) delivers them to an HTTPS receiver.
 * Full mode adds the list-scale step: p50 of (c) for a tenant of 1,000 payments, then grown to --scale payments.
 * Memory: serve's VmRSS idle after start, and its peak sampled every 200 ms under load.
 * CPU: user + system time of the process under test per request (e: per payment; f: per delivery, summed over serves).
 * Issue 22's targets, each printed as met or MISSED on the database it applies to: (b) >= 50% of (a) and p99 <= 20 ms,
 * (d) >= 25% of (a), (e) >= 150 payments/s on SQLite and >= 200/s on Postgres, (f) >= 500 deliveries/s with one serve
 * on SQLite and >= 1,000/s with two on Postgres, idle serve RSS < 120 MB, RSS under load < 400 MB, list ratio <= 1.5.
 * Prints a table per database and writes it to bench/results/http-<db>.json. Exits 1 when a case had errors (non-2xx
 * answers included) or no answer at all, when a payment of (e) did not end captured, or when the list-scale ratio is
 * over 1.5; a missed throughput target is reported, not a failure.
 * Builds the project first (tsc -p tsconfig.json) when dist/ is older than a source file, since serve runs from dist/.
 * `--with-risk` (npm run bench) then runs the risk benchmark on the same databases (not in --quick mode).
 */

interface Options {
  dbs: DbKind[];
  quick: boolean;
  /** seconds per case */
  duration: number;
  /** seconds of warm-up before each case (not measured) */
  warmup: number;
  connections: number;
  payments: number;
  events: number;
  /** list-scale step: payments the tenant grows to; 0 skips the step */
  scale: number;
  cpuProf: boolean;
  withRisk: boolean;
}

const ROOT = findRoot(__dirname);
const RESULTS = path.join(ROOT, 'bench', 'results');
const PROFILES = path.join(RESULTS, 'profiles');
const LIST_SCALE_BASE = 1_000;
/** issue 22: the list p50 at the scaled size within 1.5x of the one at LIST_SCALE_BASE (issue 9 allowed 3x) */
const LIST_SCALE_LIMIT = 1.5;
const LIST_SCALE_CONNECTIONS = 10;
const SAMPLE_MS = 200;

function parseArgs(argv: string[]): Options {
  const { dbs, flags, ints } = benchArgs(
    argv,
    { flags: ['quick', 'cpu-prof', 'with-risk'], ints: { duration: 1, connections: 1, payments: 1, events: 1, scale: 0 } },
    usage,
  );
  const quick = flags.has('quick');
  const cpuProf = flags.has('cpu-prof');
  const withRisk = flags.has('with-risk');
  const given: Partial<Options> = ints;
  if (given.scale !== undefined && given.scale !== 0 && given.scale <= LIST_SCALE_BASE)
    usage(`--scale must be more than ${LIST_SCALE_BASE} (or 0 to skip the step)`);
  const duration = given.duration ?? (quick ? 2 : 10);
  return {
    dbs: dbs.length ? dbs : quick ? ['sqlite'] : ['sqlite', 'postgres'],
    quick,
    duration,
    warmup: quick ? 0.5 : Math.min(3, Math.max(1, duration / 5)),
    connections: given.connections ?? 50,
    payments: given.payments ?? (quick ? 1_000 : 10_000),
    events: given.events ?? (quick ? 2_000 : 20_000),
    // quick mode skips the step unless --scale asks for it
    scale: given.scale ?? (quick ? 0 : 1_000_000),
    cpuProf,
    withRisk,
  };
}

function usage(problem?: string): never {
  if (problem) console.error(`bench:http: ${problem}`);
  console.error(
    'usage: npm run bench:http -- [--db sqlite|postgres]... [--quick] [--duration <s>] [--connections <n>] [--payments <n>] [--events <n>] [--scale <n>] [--cpu-prof]',
  );
  process.exit(problem ? 2 : 0);
}

// ---------------------------------------------------------------------------------------------------------------------
// Databases, child processes and clean-up

/** What one database's run holds: released at the end, or on Ctrl-C. */
interface Session {
  home: string;
  database: BenchDatabase | null;
  rt: Runtime | null;
  children: Set<ChildProcess>;
}

const live = new Set<Session>();

async function release(session: Session): Promise<void> {
  if (!live.delete(session)) return;
  for (const child of session.children) child.kill('SIGKILL');
  if (session.rt) await closeRuntime(session.rt).catch(() => undefined);
  await session.database?.drop().catch((error: unknown) => console.error(`could not drop ${session.database?.describe}: ${String(error)}`));
  fs.rmSync(session.home, { recursive: true, force: true });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A forked bench child (hello-world, receiver) that reports `{ port }` over IPC once listening. */
async function forkListening(session: Session, script: string, args: string[]): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(path.join(__dirname, script), args, {
    execArgv: [],
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  session.children.add(child);
  child.once('exit', () => session.children.delete(child));
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before listening`)));
    child.on('message', (m: { port?: number }) => {
      if (typeof m?.port === 'number') resolve(m.port);
    });
  });
  return { child, port };
}

async function stopChild(child: ChildProcess, graceMs = 20_000): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  const code = await exited;
  clearTimeout(timer);
  return code;
}

interface Serve {
  name: string;
  child: ChildProcess;
  url: string;
  /** the last lines it printed, for diagnostics */
  output(): string;
  /** where its .cpuprofile goes (--cpu-prof) */
  profileDir: string | null;
}

/** `node bin/run.js serve` on a free port, waited for until /readyz answers 200. */
async function startServe(session: Session, name: string, env: NodeJS.ProcessEnv, options: Options, extra: string[] = []): Promise<Serve> {
  const port = await freePort();
  const profileDir = options.cpuProf ? path.join(PROFILES, `${name}-${Date.now()}`) : null;
  if (profileDir) fs.mkdirSync(profileDir, { recursive: true });
  const nodeArgs = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
  const child = spawn(
    process.execPath,
    [...nodeArgs, path.join(ROOT, 'bin', 'run.js'), 'serve', '--port', String(port), '--host', '127.0.0.1', ...extra],
    {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  session.children.add(child);
  child.once('exit', () => session.children.delete(child));
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-8_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`serve (${name}) exited with ${child.exitCode ?? child.signalCode} before it was ready:\n${tail}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`serve (${name}) not ready after 90 s:\n${tail}`);
    }
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  return { name, child, url, output: () => tail, profileDir };
}

/** Stops serve with SIGTERM (as an operator would); with --cpu-prof, summarizes the profile it wrote on exit. */
async function stopServe(serve: Serve): Promise<(ProfileSummary & { file: string }) | null> {
  const code = await stopChild(serve.child);
  if (code !== 0) console.log(`  warning: serve (${serve.name}) exited with ${code}; its last output:\n${serve.output()}`);
  if (!serve.profileDir) return null;
  const file = fs
    .readdirSync(serve.profileDir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => path.join(serve.profileDir!, f))[0];
  if (!file) {
    console.log(`  warning: serve (${serve.name}) wrote no .cpuprofile in ${serve.profileDir}`);
    return null;
  }
  return { file: path.relative(ROOT, file), ...summarizeProfile(file, 15) };
}

/** Resident memory of a process in MiB (VmRSS of /proc/<pid>/status), or null where there is no /proc. */
function rssMiB(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? round(Number(m[1]) / 1024, 1) : null;
  } catch {
    return null;
  }
}

/** Samples the peak VmRSS of processes every 200 ms until stopped. */
function rssSampler(pids: Array<number | undefined>): { stop(): Record<number, number | null> } {
  const peak: Record<number, number | null> = {};
  const sample = () => {
    for (const pid of pids) {
      if (!pid) continue;
      const rss = rssMiB(pid);
      if (rss !== null && (peak[pid] ?? 0) < rss) peak[pid] = rss;
    }
  };
  sample();
  const timer = setInterval(sample, SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// Cases

interface CaseResult {
  key: string;
  label: string;
  /** requests/s (payments/s for e, deliveries/s for f) */
  rate: number;
  unit: string;
  p50Ms: number | null;
  p99Ms: number | null;
  /** rate / (a)'s requests/s */
  ratio: number | null;
  /** connection errors and timeouts, non-2xx answers (f: failed attempts, deliveries not succeeded, duplicates) */
  errors: number;
  non2xx: number;
  statusCodes: Record<string, number>;
  requests: number;
  seconds: number;
  /** nothing was answered (or, for e and f, completed) while measuring */
  noResult: boolean;
  /**
   * CPU time (user + system) of the process under test per request (e: per payment) while measuring, in ms: steadier
   * than a rate on a shared machine, where other processes take turns on the same cores. null where not measured.
   */
  cpuMsPerRequest: number | null;
  note?: string;
}

const round = (n: number, digits = 2) => Number(n.toFixed(digits));

type Requests = NonNullable<autocannon.Options['requests']>;

/**
 * One autocannon run: warm-up first (not measured), then the measured run; with `pid`, the CPU time that process used
 * during the measured run per request is set on the result as cpuMsPerRequest.
 */
async function load(
  url: string,
  options: Options,
  spec: { headers?: Record<string, string>; requests?: Requests; method?: 'GET' | 'POST'; path?: string; body?: string },
  pid?: number,
) {
  const run = (seconds: number) =>
    autocannon({
      url: `${url}${spec.path ?? ''}`,
      connections: options.connections,
      duration: seconds,
      method: spec.method ?? 'GET',
      headers: spec.headers,
      body: spec.body,
      requests: spec.requests,
      timeout: 10,
    });
  if (options.warmup > 0) await run(options.warmup);
  const before = cpuMs(pid);
  const result = await run(options.duration);
  return Object.assign(result, { cpuMsPerRequest: cpuPer(before, cpuMs(pid), result.requests.total) });
}

function caseFrom(
  key: string,
  label: string,
  result: autocannon.Result & { cpuMsPerRequest?: number | null },
  rate?: number,
  unit = 'req/s',
): CaseResult {
  const statusCodes: Record<string, number> = {};
  for (const [code, s] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = (s as { count?: number }).count ?? 0;
  const rateValue = rate ?? result.requests.total / result.duration;
  return {
    key,
    label,
    unit,
    rate: round(rateValue, 1),
    // no answer in the whole run (every request slower than the duration) is no result either
    noResult: result.requests.total === 0 || rateValue === 0,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    ratio: null,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    statusCodes,
    requests: result.requests.total,
    seconds: result.duration,
    cpuMsPerRequest: result.cpuMsPerRequest ?? null,
  };
}

const CARD = { number: '4242424242424242', expMonth: 12, expYear: 2030, cvc: '123', holderName: 'Ada Lovelace' };
const sessionBody = JSON.stringify({
  amount: { currency: 'EUR', valueMinor: 1000 },
  captureMethod: 'automatic',
  successUrl: 'https://shop.example/ok',
  cancelUrl: 'https://shop.example/cancel',
});
const completeBody = JSON.stringify({ paymentMethod: { type: 'card', card: CARD } });

/** (e): each connection creates a session, then completes it with the session's clientSecret as bearer. */
function payRequests(
  merchantKey: string,
  counters: { completed: number; sessionsFailed: number; completesFailed: number; from: number },
): Requests {
  type Ctx = { id?: string; secret?: string };
  return [
    {
      method: 'POST',
      path: '/v1/checkout-sessions',
      headers: { authorization: `Bearer ${merchantKey}`, 'content-type': 'application/json' },
      body: sessionBody,
      onResponse: (status: number, body: string, context: object) => {
        const ctx = context as Ctx;
        ctx.id = undefined;
        if (status !== 201) {
          counters.sessionsFailed++;
          return;
        }
        const data = (JSON.parse(body) as { data: { id: string; clientSecret: string } }).data;
        ctx.id = data.id;
        ctx.secret = data.clientSecret;
      },
    },
    {
      method: 'POST',
      // a failed session restarts the chain (a falsy request)
      setupRequest: (request: autocannon.Request, context: object) => {
        const ctx = context as Ctx;
        if (!ctx.id) return undefined as unknown as autocannon.Request;
        return {
          ...request,
          path: `/v1/checkout-sessions/${ctx.id}/complete`,
          headers: { ...request.headers, authorization: `Bearer ${ctx.secret}`, 'content-type': 'application/json' },
          body: completeBody,
        };
      },
      onResponse: (status: number) => {
        if (status !== 200) counters.completesFailed++;
        else if (Date.now() >= counters.from) counters.completed++;
      },
    },
  ] as Requests;
}

// ---------------------------------------------------------------------------------------------------------------------
// Seeding

const DAY = 86_400_000;

/** `count` captured payments of the merchant, spread over the last 30 days, inserted in bulk (10,000 rows per round). */
async function seedPayments(rt: Runtime, sandbox: SandboxCredentials, count: number, seed: number, keepIds = false): Promise<string[]> {
  const next = mulberry32(seed);
  const now = Date.now();
  const ids: string[] = [];
  for (let from = 0; from < count; from += 10_000) {
    const rows = Array.from({ length: Math.min(10_000, count - from) }, (_, i) =>
      paymentRow({
        tenantId: sandbox.tenantId,
        merchantId: sandbox.merchantId,
        createdAt: new Date(now - Math.floor(next() * 30 * DAY)),
        amountMinor: 500 + Math.floor(next() * 50_000),
        currency: next() < 0.8 ? 'EUR' : 'USD',
        customerEmail: `customer${(from + i) % 5_000}@example.com`,
        customerIp: `10.0.${(from + i) % 250}.${(from + i) % 200}`,
        status: next() < 0.9 ? 'captured' : 'failed',
      }),
    );
    await insertPayments(rt.db, rows);
    if (keepIds) for (const r of rows) ids.push(r.id);
  }
  return ids;
}

/**
 * Grows the merchant's payments by `count` copies of one of its payments (`templateId`, a whole paymentRow), made by
 * the database in one INSERT … SELECT per 100,000 rows: a new uuid each, created a second apart going back from the
 * template's time. Sequelize's bulk insert manages about 2,000 rows/s here, too slow for 1,000,000.
 */
async function growPayments(rt: Runtime, templateId: string, count: number, progress: (done: number) => void): Promise<void> {
  const columns = Object.values(rt.db.models.Payment.getAttributes()).map((a) => a.field ?? '');
  const quote = (c: string) => `"${c}"`;
  const postgres = rt.db.dialect === 'postgres';
  const uuid = postgres
    ? 'gen_random_uuid()'
    : `lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-' || substr('89ab', 1 + abs(random()) % 4, 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))`;
  // g.n seconds before the template (Sequelize keeps SQLite dates as 'YYYY-MM-DD HH:MM:SS.SSS +00:00')
  const at = postgres
    ? `t."createdAt" - make_interval(secs => g.n + :offset)`
    : `strftime('%Y-%m-%d %H:%M:%f', substr(t."createdAt", 1, 23), '-' || (g.n + :offset) || ' seconds') || ' +00:00'`;
  const values = columns.map((c) => (c === 'id' ? uuid : c === 'createdAt' || c === 'updatedAt' ? at : `t.${quote(c)}`));
  const insert = `INSERT INTO payments (${columns.map(quote).join(', ')}) SELECT ${values.join(', ')}`;
  const sql = postgres
    ? `${insert} FROM payments t CROSS JOIN generate_series(1, :n) AS g(n) WHERE t.id = :template`
    : `WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < :n) ${insert} FROM g CROSS JOIN payments t WHERE t.id = :template`;
  for (let done = 0; done < count; done += 100_000) {
    const n = Math.min(100_000, count - done);
    await rt.db.transaction((transaction) =>
      rt.db.sequelize.query(sql, { replacements: { n, offset: done, template: templateId }, transaction }),
    );
    progress(done + n);
  }
}

async function raiseRateLimit(rt: Runtime, tenantId: string): Promise<void> {
  // the API enforces doorRateLimitPerMinute per tenant (default 600/min): out of the way of the benchmark
  const [updated] = await rt.db.models.Tenant.update({ doorRateLimitPerMinute: 1_000_000 }, { where: { id: tenantId } });
  if (updated !== 1) throw new Error(`tenant ${tenantId}: rate limit not updated`);
}

/**
 * M events of one merchant-level type in the outbox for the endpoint: the first through emitEvent (the real outbox),
 * the others as bulk copies of the rows it wrote (new ids; same type, data, owner and delivery state).
 */
async function enqueueEvents(rt: Runtime, sandbox: SandboxCredentials, endpointId: string, count: number): Promise<number> {
  const ctx = operatorContext(rt, {
    level: 'merchant',
    tenantId: sandbox.tenantId,
    merchantId: sandbox.merchantId,
    livemode: false,
    operator: 'bench',
  });
  const type = 'payment.captured';
  const first = await inTransaction(ctx, (tx) =>
    emitEvent(tx, {
      type,
      data: sampleEventData(type, { tenantId: sandbox.tenantId, merchantId: sandbox.merchantId, now: new Date() }),
      tenantId: sandbox.tenantId,
      merchantId: sandbox.merchantId,
    }),
  );
  const { Event, WebhookDelivery } = rt.db.models;
  const event = (await Event.findByPk(first.id))!.get({ plain: true }) as EventRow;
  const deliveries = (await WebhookDelivery.findAll({ where: { eventId: first.id } })).map(
    (d) => d.get({ plain: true }) as WebhookDeliveryRow,
  );
  const template = deliveries.find((d) => d.endpointId === endpointId);
  if (!template || deliveries.length !== 1)
    throw new Error(`emitEvent wrote ${deliveries.length} deliveries for the benchmark endpoint (expected 1)`);
  for (let from = 1; from < count; from += 1_000) {
    const events: EventRow[] = [];
    const copies: WebhookDeliveryRow[] = [];
    for (let i = from; i < Math.min(count, from + 1_000); i++) {
      const eventId = newId();
      events.push({ ...event, id: eventId });
      copies.push({ ...template, id: newId(), eventId });
    }
    await rt.db.transaction(async (transaction) => {
      await Event.bulkCreate(events, { transaction });
      await WebhookDelivery.bulkCreate(copies, { transaction });
    });
  }
  return WebhookDelivery.count({ where: { endpointId, status: 'pending' } });
}

// ---------------------------------------------------------------------------------------------------------------------
// One database

interface ListScale {
  connections: number;
  basePayments: number;
  scaledPayments: number;
  p50BaseMs: number;
  p50ScaledMs: number;
  rateBase: number;
  rateScaled: number;
  ratio: number;
  limit: number;
  growSeconds: number;
  errors: number;
}

interface WebhookRun {
  processes: number;
  events: number;
  deliveries: number;
  succeeded: number;
  failedAttempts: number;
  notSucceeded: number;
  duplicates: number;
  received: number;
  seconds: number;
  perWorker: Record<string, number>;
  byStatus: Record<string, number>;
  timedOut: boolean;
}

interface DbReport {
  benchmark: 'http';
  db: DbKind;
  at: string;
  machine: ReturnType<typeof machineInfo>;
  settings: { duration: number; warmup: number; connections: number; payments: number; events: number; scale: number };
  cases: CaseResult[];
  memory: { idleMiB: number | null; peakLoadMiB: number | null; peakWebhooksMiB: Record<string, number | null> };
  listScale: ListScale | null;
  webhooks: WebhookRun;
  payments: { completed: number; sessionsFailed: number; completesFailed: number; byStatus: Record<string, number> };
  targets: Array<{ target: string; value: string; met: boolean }>;
  profiles: Array<ProfileSummary & { serve: string; file: string }>;
  failures: string[];
  ok: boolean;
}

function machineInfo() {
  return {
    cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown',
    cores: os.cpus().length,
    memoryGiB: round(os.totalmem() / 2 ** 30, 1),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    loadAverage: os.loadavg().map((l) => round(l, 2)),
  };
}

function tlsFiles(dir: string): { key: string; cert: string } {
  const key = path.join(dir, 'receiver-key.pem');
  const cert = path.join(dir, 'receiver-cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  return { key, cert };
}

async function benchmark(db: DbKind, options: Options): Promise<number> {
  const machine = machineInfo();
  console.log(`HTTP benchmark: ${db}`);
  console.log(
    `machine: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, node ${machine.node} (${machine.platform}), load average ${machine.loadAverage.join(' ')}`,
  );
  console.log(
    `settings: ${options.connections} connections, ${options.duration} s per case after ${options.warmup} s warm-up, ${fmt(options.payments)} payments, ${fmt(options.events)} events` +
      `${options.scale ? `, list scale ${fmt(LIST_SCALE_BASE)} -> ${fmt(options.scale)}` : ''}${options.quick ? ' (quick)' : ''}\n`,
  );
  const session: Session = {
    home: fs.mkdtempSync(path.join(os.tmpdir(), 'payplane-bench-http-')),
    database: null,
    rt: null,
    children: new Set(),
  };
  live.add(session);
  try {
    return await run(db, options, session, machine);
  } finally {
    await release(session);
  }
}

async function run(db: DbKind, options: Options, session: Session, machine: ReturnType<typeof machineInfo>): Promise<number> {
  const started = Date.now();
  session.database = await freshDatabase(db, session.home, 'payplane_bench_http');
  const tokenSecret = crypto.randomBytes(32).toString('hex');
  // the bench process and serve share the home folder (its master key), the token secret and the loopback range its
  // webhook receiver listens in (saved by this process, delivered to by serve)
  const config = loadConfig(
    { ...process.env, PAYPLANE_TOKEN_SECRET: tokenSecret, PAYPLANE_WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8' },
    { home: session.home, databaseUrl: session.database.url, logLevel: 'silent' },
  );
  const rt = (session.rt = await openRuntime(config));
  const sandbox = await createSandbox(rt, { name: 'HTTP benchmark tenant' });
  await raiseRateLimit(rt, sandbox.tenantId);
  const paymentIds = await seedPayments(rt, sandbox, options.payments, 9, true);
  if (db === 'postgres') await rt.db.sequelize.query('ANALYZE');
  console.log(
    `  migrated and seeded (${fmt(options.payments)} payments) in ${round((Date.now() - started) / 1000, 1)} s: ${session.database.describe}`,
  );

  const tls = tlsFiles(session.home);
  const serveEnv: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: session.database.url,
    PAYPLANE_HOME: session.home,
    PAYPLANE_TOKEN_SECRET: tokenSecret,
    PAYPLANE_SANDBOX_DELAY_MS: '0',
    PAYPLANE_LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    PAYPLANE_WEBHOOK_CA_FILE: tls.cert,
    PAYPLANE_WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
  };
  delete serveEnv.PORT;
  delete serveEnv.HOST;

  const cases: CaseResult[] = [];
  const say = (c: CaseResult) =>
    console.log(
      `  ${c.label}: ${fmt(c.rate)} ${c.unit}, p50 ${c.p50Ms ?? '-'} ms, p99 ${c.p99Ms ?? '-'} ms, CPU ${c.cpuMsPerRequest ?? '-'} ms per ${c.key === 'e' ? 'payment' : c.key === 'f' ? 'delivery' : 'request'}${c.errors + c.non2xx ? `, ${errorText(c)}` : ''}`,
    );

  // (a) the physical limit, with nothing else running
  {
    const hello = await forkListening(session, 'http-hello.js', ['0']);
    const result = await load(`http://127.0.0.1:${hello.port}`, options, { path: '/hello' }, hello.child.pid);
    await stopChild(hello.child);
    const c = caseFrom('a', '(a) Express hello-world', result);
    cases.push(c);
    say(c);
  }

  // (b) to (e) against one serve process
  const serve = await startServe(session, `${db}-load`, serveEnv, options);
  await sleep(options.quick ? 500 : 2_000);
  const idleMiB = rssMiB(serve.child.pid);
  console.log(`  serve ready at ${serve.url}; idle resident memory ${idleMiB ?? '?'} MiB`);
  const sampler = rssSampler([serve.child.pid]);
  const auth = { authorization: `Bearer ${sandbox.merchantKey.secretKey}` };
  const pick = mulberry32(3);
  {
    const result = await load(
      serve.url,
      options,
      {
        headers: auth,
        requests: [
          {
            method: 'GET',
            setupRequest: (request: autocannon.Request) => ({
              ...request,
              path: `/v1/payments/${paymentIds[Math.floor(pick() * paymentIds.length)]}`,
            }),
          },
        ] as Requests,
      },
      serve.child.pid,
    );
    const c = caseFrom('b', '(b) GET /v1/payments/{id}', result);
    cases.push(c);
    say(c);
  }
  {
    const result = await load(serve.url, options, { headers: auth, path: '/v1/payments?limit=20' }, serve.child.pid);
    const c = caseFrom('c', '(c) GET /v1/payments?limit=20', result);
    cases.push(c);
    say(c);
  }
  {
    const result = await load(
      serve.url,
      options,
      { method: 'POST', path: '/v1/checkout-sessions', headers: { ...auth, 'content-type': 'application/json' }, body: sessionBody },
      serve.child.pid,
    );
    const c = caseFrom('d', '(d) POST /v1/checkout-sessions', result);
    cases.push(c);
    say(c);
  }
  const payments = { completed: 0, sessionsFailed: 0, completesFailed: 0, from: 0 };
  {
    // one chain takes a connection two requests: counted in one run after a warm-up of its own (the chains are then
    // in their steady state), payments completed from its end on. The connections start in step and complete their
    // payments in waves at first: the counting window is at least 4 s so that it holds several.
    const warmup = Math.max(options.warmup, options.quick ? 2 : 3);
    const window = Math.max(options.duration, 4);
    const started = Date.now();
    payments.from = started + warmup * 1000;
    // serve's CPU from the end of the warm-up: per payment completed in the counting window (both requests and the
    // acquirer's answer in serve's jobs)
    let cpuFrom: number | null = null;
    const cpuMark = setTimeout(() => {
      cpuFrom = cpuMs(serve.child.pid);
    }, warmup * 1000);
    const result = await autocannon({
      url: serve.url,
      connections: options.connections,
      duration: warmup + window,
      requests: payRequests(sandbox.merchantKey.secretKey, payments),
      timeout: 10,
    });
    const seconds = (result.finish.getTime() - payments.from) / 1000;
    clearTimeout(cpuMark);
    const c = caseFrom(
      'e',
      '(e) create + complete a payment',
      Object.assign(result, { cpuMsPerRequest: cpuPer(cpuFrom, cpuMs(serve.child.pid), payments.completed) }),
      payments.completed / seconds,
      'payments/s',
    );
    c.note = `${fmt(payments.completed)} payments completed in the last ${round(seconds, 2)} s of a ${result.duration} s run (${fmt(result.requests.total)} requests, session + complete; latencies over the whole run)`;
    cases.push(c);
    say(c);
  }
  const peakLoad = sampler.stop()[serve.child.pid!] ?? null;
  console.log(`  serve peak resident memory under load (b-e): ${peakLoad ?? '?'} MiB`);
  // the sandbox acquirer answers (e)'s payments in serve's jobs: let it finish, so that no payment event of theirs
  // lands in (f)'s outbox
  const settling = Date.now();
  let unsettled = await rt.db.models.SandboxOperation.count({ where: { doneAt: null } });
  while (unsettled > 0 && Date.now() - settling < 30_000) {
    await sleep(100);
    unsettled = await rt.db.models.SandboxOperation.count({ where: { doneAt: null } });
  }
  if (unsettled) console.log(`  warning: ${fmt(unsettled)} sandbox acquirer operations still unanswered after 30 s`);
  // what became of (e)'s payments (warm-up included): 4242 with automatic capture ends captured
  const paid = await rt.db.models.Payment.count({
    where: { merchantId: sandbox.merchantId, checkoutSessionId: { [Op.ne]: null } },
    group: ['status'],
  });
  const paymentStatuses = Object.fromEntries(paid.map((g) => [String(g.status), Number(g.count)]));
  console.log(
    `  (e) payments by status once the sandbox acquirer answered: ${
      Object.entries(paymentStatuses)
        .map(([k, n]) => `${k} ${fmt(n)}`)
        .join(', ') || 'none'
    }`,
  );

  // the list-scale step: one tenant at 1,000 payments, then grown to --scale
  let listScale: ListScale | null = null;
  if (options.scale) listScale = await listScaleStep(rt, db, serve, options);

  const profiles: DbReport['profiles'] = [];
  const loadProfile = await stopServe(serve);
  if (loadProfile) profiles.push({ serve: 'load (a-e)', ...loadProfile });

  // (f) webhook deliveries
  const { webhooks, caseResult: f, peaks, profiles: webhookProfiles } = await webhookCase(session, rt, db, sandbox, serveEnv, tls, options);
  profiles.push(...webhookProfiles);
  cases.push(f);
  say(f);

  const a = cases[0].rate;
  for (const c of cases) if (c.key !== 'f' && a > 0) c.ratio = round(c.rate / a, 3);

  const targets = issue22Targets(
    db,
    options,
    cases,
    webhooks,
    idleMiB,
    Math.max(peakLoad ?? 0, ...Object.values(peaks).map((p) => p ?? 0)) || null,
    listScale,
  );

  const failures: string[] = [];
  const notCaptured = Object.entries(paymentStatuses).filter(([status]) => status !== 'captured');
  if (notCaptured.length)
    failures.push(
      `(e) payments not captured once the sandbox acquirer answered: ${notCaptured.map(([k, n]) => `${k} ${fmt(n)}`).join(', ')}`,
    );
  for (const c of cases) {
    if (c.errors + c.non2xx > 0) failures.push(`${c.label}: ${errorText(c)}`);
    if (c.noResult)
      failures.push(
        `${c.label}: no ${c.key === 'e' ? 'payment completed' : c.key === 'f' ? 'delivery succeeded' : 'answer'} while measuring (slower than the run's ${c.key === 'f' ? 'time limit' : 'duration'}): not a result`,
      );
  }
  if (listScale && listScale.errors) failures.push(`list-scale step: ${fmt(listScale.errors)} errors or non-2xx answers`);
  if (listScale && (!listScale.rateBase || !listScale.rateScaled))
    failures.push('list-scale step: no answer while measuring one of the sizes: not a result');
  if (listScale && listScale.ratio > LIST_SCALE_LIMIT)
    failures.push(
      `list-scale: p50 at ${fmt(listScale.scaledPayments)} payments is ${listScale.ratio}x the p50 at ${fmt(listScale.basePayments)} (limit ${LIST_SCALE_LIMIT}x)`,
    );

  const report: DbReport = {
    benchmark: 'http',
    db,
    at: new Date().toISOString(),
    machine,
    settings: {
      duration: options.duration,
      warmup: options.warmup,
      connections: options.connections,
      payments: options.payments,
      events: options.events,
      scale: options.scale,
    },
    cases,
    memory: { idleMiB, peakLoadMiB: peakLoad, peakWebhooksMiB: peaks },
    listScale,
    webhooks,
    payments: {
      completed: payments.completed,
      sessionsFailed: payments.sessionsFailed,
      completesFailed: payments.completesFailed,
      byStatus: paymentStatuses,
    },
    targets,
    profiles,
    failures,
    ok: failures.length === 0,
  };

  console.log(
    `\n${db}: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, node ${machine.node}; ${options.connections} connections, ${options.duration} s per case\n`,
  );
  console.log(table(cases));
  console.log(`\n(e) ${cases.find((c) => c.key === 'e')!.note}`);
  console.log(
    `(f) ${fmt(webhooks.deliveries)} deliveries of ${fmt(webhooks.events)} events by ${webhooks.processes} serve process${webhooks.processes > 1 ? 'es on one database (the second with --no-jobs)' : ''}` +
      ` in ${webhooks.seconds} s; per process: ${Object.values(webhooks.perWorker).map(fmt).join(' + ')}; duplicates ${webhooks.duplicates}; latencies are the attempts' durations`,
  );
  console.log(
    `memory (serve VmRSS): idle ${idleMiB ?? '?'} MiB, peak under load (b-e) ${peakLoad ?? '?'} MiB, peak while delivering (f) ${Object.values(
      peaks,
    )
      .map((p) => `${p ?? '?'} MiB`)
      .join(' / ')}`,
  );
  if (listScale) {
    console.log(
      `list scale: GET /v1/payments?limit=20 at ${listScale.connections} connections: p50 ${listScale.p50BaseMs} ms at ${fmt(listScale.basePayments)} payments, ${listScale.p50ScaledMs} ms at ${fmt(listScale.scaledPayments)} ` +
        `(grown in ${listScale.growSeconds} s${db === 'postgres' ? ', then ANALYZE' : ''}): ${listScale.ratio}x (limit ${LIST_SCALE_LIMIT}x)`,
    );
  } else console.log(`list scale: skipped (${options.quick ? '--quick; --scale <n> runs it' : '--scale 0'})`);
  console.log('\ntargets (issue 22):');
  for (const t of targets) console.log(`  ${t.met ? 'met   ' : 'MISSED'} ${t.target}: ${t.value}`);
  for (const p of profiles) console.log(`\nCPU profile of serve (${p.serve}): ${p.file}\n${formatProfile(p)}`);
  console.log(failures.length ? `\nFAIL\n${failures.map((f) => `  - ${f}`).join('\n')}` : '\nOK: no errors');

  fs.mkdirSync(RESULTS, { recursive: true });
  const file = path.join(RESULTS, `http-${db}.json`);
  fs.writeFileSync(file, JSON.stringify(report, null, 2) + '\n');
  console.log(`written to ${path.relative(process.cwd(), file)} (${round((Date.now() - started) / 1000, 1)} s)`);
  return failures.length ? 1 : 0;
}

/** CPU ms per request (e: per payment, f: per delivery) as printed beside a rate, or '' where not measured. */
function cpuText(c: CaseResult): string {
  if (c.cpuMsPerRequest === null) return '';
  return `, CPU ${c.cpuMsPerRequest.toFixed(2)} ms per ${c.key === 'e' ? 'payment' : c.key === 'f' ? 'delivery' : 'request'}`;
}

/**
 * Issue 22's targets, on the database each applies to: met or missed, with the value. A missed target is reported, not
 * a failure (except the list-scale ratio, which the caller counts as one).
 */
function issue22Targets(
  db: DbKind,
  options: Options,
  cases: CaseResult[],
  webhooks: WebhookRun,
  idleMiB: number | null,
  peakMiB: number | null,
  listScale: ListScale | null,
): DbReport['targets'] {
  const byKey = (k: string) => cases.find((c) => c.key === k)!;
  const a = byKey('a');
  const share = (c: CaseResult, min: number) => ({
    value: `${pct(c.ratio)} (${fmt(c.rate)} of ${fmt(a.rate)} req/s${cpuText(c)})`,
    met: (c.ratio ?? 0) >= min,
  });
  const b = byKey('b');
  const d = byKey('d');
  const e = byKey('e');
  const f = byKey('f');
  const dbName = db === 'sqlite' ? 'SQLite' : 'Postgres';
  const eMin = db === 'sqlite' ? 150 : 200;
  const fMin = db === 'sqlite' ? 500 : 1_000;
  const fProcesses = db === 'sqlite' ? 1 : 2;
  const targets: DbReport['targets'] = [
    { target: `(b) GET /v1/payments/{id} >= 50% of (a) requests/s on ${dbName}`, ...share(b, 0.5) },
    {
      target: `(b) p99 <= 20 ms at ${options.connections} connections`,
      value: `${b.p99Ms ?? '-'} ms`,
      met: b.p99Ms !== null && b.p99Ms <= 20,
    },
    { target: `(d) POST /v1/checkout-sessions >= 25% of (a) requests/s on ${dbName}`, ...share(d, 0.25) },
    {
      target: `(e) create and complete a payment >= ${eMin} payments/s on ${dbName}`,
      value: `${fmt(e.rate)}/s${cpuText(e)}`,
      met: e.rate >= eMin,
    },
    {
      target: `(f) webhook deliveries >= ${fmt(fMin)}/s with ${fProcesses === 1 ? 'one serve process' : 'two serve processes'} on ${dbName}`,
      value: `${fmt(f.rate)}/s with ${webhooks.processes} process${webhooks.processes > 1 ? 'es' : ''}${cpuText(f)}`,
      met: f.rate >= fMin && webhooks.processes === fProcesses,
    },
    { target: 'idle serve RSS < 120 MB', value: mb(idleMiB), met: idleMiB !== null && idleMiB * MB_PER_MIB < 120 },
    { target: 'serve RSS under load < 400 MB', value: mb(peakMiB), met: peakMiB !== null && peakMiB * MB_PER_MIB < 400 },
  ];
  if (listScale) {
    targets.push({
      target: `list p50 at ${fmt(listScale.scaledPayments)} within ${LIST_SCALE_LIMIT}x of ${fmt(listScale.basePayments)}`,
      value: `${listScale.ratio}x (${listScale.p50ScaledMs} ms / ${listScale.p50BaseMs} ms)`,
      met: listScale.ratio <= LIST_SCALE_LIMIT && listScale.rateScaled > 0,
    });
  }
  return targets;
}

async function listScaleStep(rt: Runtime, db: DbKind, serve: Serve, options: Options): Promise<ListScale> {
  const tenant = await createSandbox(rt, { name: 'List scale tenant' });
  await raiseRateLimit(rt, tenant.tenantId);
  const [template] = await seedPayments(rt, tenant, LIST_SCALE_BASE, 11, true);
  if (db === 'postgres') await rt.db.sequelize.query('ANALYZE payments');
  // a latency, not a throughput: fewer connections, so that p50 is the time of one request rather than of a queue
  const connections = Math.min(LIST_SCALE_CONNECTIONS, options.connections);
  const measure = async () =>
    load(
      serve.url,
      { ...options, connections },
      { headers: { authorization: `Bearer ${tenant.merchantKey.secretKey}` }, path: '/v1/payments?limit=20' },
    );
  const base = await measure();
  console.log(
    `  list scale (${connections} connections): ${fmt(LIST_SCALE_BASE)} payments: p50 ${base.latency.p50} ms, ${fmt(round(base.requests.total / base.duration, 1))} req/s; growing to ${fmt(options.scale)}…`,
  );
  const growStarted = Date.now();
  await growPayments(rt, template, options.scale - LIST_SCALE_BASE, (done) => {
    if (done % 500_000 === 0 && LIST_SCALE_BASE + done < options.scale)
      console.log(`    ${fmt(LIST_SCALE_BASE + done)} payments (${round((Date.now() - growStarted) / 1000, 1)} s)`);
  });
  const total = await rt.db.models.Payment.count({ where: { tenantId: tenant.tenantId } });
  if (total !== options.scale) throw new Error(`the list-scale tenant holds ${fmt(total)} payments, not ${fmt(options.scale)}`);
  if (db === 'postgres') await rt.db.sequelize.query('ANALYZE');
  const growSeconds = round((Date.now() - growStarted) / 1000, 1);
  const scaled = await measure();
  const result: ListScale = {
    connections,
    basePayments: LIST_SCALE_BASE,
    scaledPayments: options.scale,
    p50BaseMs: base.latency.p50,
    p50ScaledMs: scaled.latency.p50,
    rateBase: round(base.requests.total / base.duration, 1),
    rateScaled: round(scaled.requests.total / scaled.duration, 1),
    ratio: round(scaled.latency.p50 / Math.max(base.latency.p50, 0.001), 2),
    limit: LIST_SCALE_LIMIT,
    growSeconds,
    errors: base.errors + base.timeouts + base.non2xx + scaled.errors + scaled.timeouts + scaled.non2xx,
  };
  console.log(
    `  list scale: ${fmt(options.scale)} payments (grown in ${growSeconds} s): p50 ${result.p50ScaledMs} ms, ${fmt(result.rateScaled)} req/s: ${result.ratio}x`,
  );
  return result;
}

async function webhookCase(
  session: Session,
  rt: Runtime,
  db: DbKind,
  sandbox: SandboxCredentials,
  serveEnv: NodeJS.ProcessEnv,
  tls: { key: string; cert: string },
  options: Options,
): Promise<{ webhooks: WebhookRun; caseResult: CaseResult; peaks: Record<string, number | null>; profiles: DbReport['profiles'] }> {
  const receiver = await forkListening(session, 'http-receiver.js', [tls.key, tls.cert]);
  const stats = () =>
    new Promise<ReceiverStats>((resolve) => {
      const listener = (m: { stats?: ReceiverStats }) => {
        if (!m?.stats) return;
        receiver.child.off('message', listener);
        resolve(m.stats);
      };
      receiver.child.on('message', listener);
      receiver.child.send('stats');
    });
  const ctx = operatorContext(rt, {
    level: 'merchant',
    tenantId: sandbox.tenantId,
    merchantId: sandbox.merchantId,
    livemode: false,
    operator: 'bench',
  });
  const endpoint = await createEndpoint(ctx, {
    url: `https://localhost:${receiver.port}/hook`,
    events: ['payment.captured'],
    description: 'HTTP benchmark receiver',
  });
  const enqueueStarted = Date.now();
  const queued = await enqueueEvents(rt, sandbox, endpoint.id, options.events);
  console.log(`  (f) ${fmt(queued)} deliveries queued in ${round((Date.now() - enqueueStarted) / 1000, 1)} s; starting serve…`);

  const processes = db === 'postgres' ? 2 : 1;
  const { WebhookDelivery, WebhookAttempt } = rt.db.models;
  const serves = await Promise.all(
    Array.from({ length: processes }, (_, i) =>
      startServe(session, `${db}-webhooks-${i + 1}`, serveEnv, options, i === 0 ? [] : ['--no-jobs']),
    ),
  );
  const sampler = rssSampler(serves.map((s) => s.child.pid));
  const cpuOf = () =>
    serves.reduce<number | null>((sum, s) => {
      const ms = cpuMs(s.child.pid);
      return sum === null || ms === null ? null : sum + ms;
    }, 0);
  const cpuBefore = cpuOf();
  // sessions completed in (e) may still be settling when serve starts: their payment.captured events count too
  const timeoutMs = Math.max(120_000, options.events * 20);
  const deadline = Date.now() + timeoutMs;
  let doneAt: number;
  let timedOut = false;
  for (;;) {
    const open = await WebhookDelivery.count({ where: { endpointId: endpoint.id, status: 'pending' } });
    if (open === 0) {
      doneAt = Date.now();
      break;
    }
    if (Date.now() > deadline) {
      timedOut = true;
      doneAt = Date.now();
      break;
    }
    for (const s of serves) if (s.child.exitCode !== null) throw new Error(`serve (${s.name}) exited during (f):\n${s.output()}`);
    await sleep(50);
  }
  const peakByPid = sampler.stop();
  const cpuAfter = cpuOf();
  const received = await stats();
  const profiles: DbReport['profiles'] = [];
  for (const s of serves) {
    const p = await stopServe(s);
    if (p) profiles.push({ serve: s.name, ...p });
  }
  await stopChild(receiver.child);

  const deliveries = await WebhookDelivery.findAll({ where: { endpointId: endpoint.id }, attributes: ['id', 'status'] });
  const ids = deliveries.map((d) => d.get('id') as string);
  const attempts = [];
  for (let i = 0; i < ids.length; i += 5_000) {
    attempts.push(
      ...(
        await WebhookAttempt.findAll({
          where: { deliveryId: { [Op.in]: ids.slice(i, i + 5_000) } },
          attributes: ['durationMs', 'success', 'workerId'],
        })
      ).map((a) => a.get({ plain: true })),
    );
  }
  const succeeded = deliveries.filter((d) => d.get('status') === 'succeeded').length;
  const byStatus: Record<string, number> = {};
  for (const d of deliveries) byStatus[d.get('status') as string] = (byStatus[d.get('status') as string] ?? 0) + 1;
  const failedAttempts = attempts.filter((a) => !a.success).length;
  const perWorker: Record<string, number> = {};
  for (const a of attempts) if (a.success) perWorker[a.workerId ?? '?'] = (perWorker[a.workerId ?? '?'] ?? 0) + 1;
  const durations = attempts.map((a) => Number(a.durationMs)).sort((x, y) => x - y);
  // from the first delivery the receiver got to the moment every delivery was recorded as succeeded
  const seconds = round((doneAt - (received.firstAt || doneAt)) / 1000, 2);
  const peaks: Record<string, number | null> = {};
  for (const s of serves) peaks[s.name] = peakByPid[s.child.pid!] ?? null;

  const webhooks: WebhookRun = {
    processes,
    events: options.events,
    deliveries: deliveries.length,
    succeeded,
    failedAttempts,
    notSucceeded: deliveries.length - succeeded,
    duplicates: received.duplicates,
    received: received.received,
    seconds,
    perWorker,
    byStatus,
    timedOut,
  };
  const caseResult: CaseResult = {
    key: 'f',
    label: `(f) webhook deliveries${processes > 1 ? ' (2 serve)' : ''}`,
    unit: 'deliveries/s',
    rate: seconds > 0 ? round(succeeded / seconds, 1) : 0,
    p50Ms: percentile(durations, 50),
    p99Ms: percentile(durations, 99),
    ratio: null,
    errors: failedAttempts + (deliveries.length - succeeded) + received.duplicates + received.malformed,
    non2xx: 0,
    statusCodes: {},
    requests: received.received,
    seconds,
    noResult: succeeded === 0,
    cpuMsPerRequest: cpuPer(cpuBefore, cpuAfter, succeeded),
  };
  const problems = [
    failedAttempts ? `${fmt(failedAttempts)} failed attempts` : '',
    succeeded < deliveries.length
      ? `${fmt(deliveries.length - succeeded)} deliveries not succeeded (${Object.entries(byStatus)
          .filter(([k]) => k !== 'succeeded')
          .map(([k, n]) => `${k} ${n}`)
          .join(', ')})`
      : '',
    received.duplicates ? `${fmt(received.duplicates)} duplicates` : '',
    received.malformed ? `${fmt(received.malformed)} malformed` : '',
    timedOut ? `timed out after ${timeoutMs / 1000} s` : '',
  ].filter(Boolean);
  if (problems.length) caseResult.note = problems.join(', ');
  return { webhooks, caseResult, peaks, profiles };
}

function percentile(sorted: number[], p: number): number | null {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

// ---------------------------------------------------------------------------------------------------------------------
// Output

const fmt = (n: number) => n.toLocaleString('en-US');
const MB_PER_MIB = 1.048576;
const mb = (mib: number | null) => (mib === null ? '?' : `${mib} MiB (${(mib * MB_PER_MIB).toFixed(1)} MB)`);
const pct = (ratio: number | null) => (ratio === null ? '-' : `${(ratio * 100).toFixed(1)}%`);

function errorText(c: CaseResult): string {
  if (c.key === 'f') return c.note ?? (c.errors ? fmt(c.errors) : '0');
  const codes = Object.entries(c.statusCodes)
    .filter(([code]) => !code.startsWith('2'))
    .map(([code, n]) => `${code}x${n}`);
  const parts = [];
  if (c.errors) parts.push(`${fmt(c.errors)} connection errors/timeouts`);
  if (c.non2xx) parts.push(`${fmt(c.non2xx)} non-2xx (${codes.join(', ')})`);
  return parts.join(', ') || '0';
}

function table(cases: CaseResult[]): string {
  const header = ['case', 'requests/s', 'CPU ms/req', 'p50 ms', 'p99 ms', 'ratio to (a)', 'errors/non-2xx'];
  const body = cases.map((c) => [
    c.label,
    `${fmt(c.rate)}${c.unit === 'req/s' ? '' : ` ${c.unit.replace('/s', '')}/s`}`,
    c.cpuMsPerRequest === null ? '-' : `${c.cpuMsPerRequest.toFixed(2)}${c.key === 'e' ? '/payment' : c.key === 'f' ? '/delivery' : ''}`,
    c.p50Ms === null ? '-' : String(c.p50Ms),
    c.p99Ms === null ? '-' : String(c.p99Ms),
    c.ratio === null ? '-' : `${c.ratio.toFixed(3)} (${pct(c.ratio)})`,
    c.errors + c.non2xx ? errorText(c) : '0',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const left = (i: number) => i === 0 || i === 6;
  const line = (cells: string[]) =>
    `| ${cells.map((cell, i) => (left(i) ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join(' | ')} |`;
  return [
    line(header),
    `|${widths.map((w, i) => (left(i) ? ` ${'-'.repeat(w)} ` : ` ${'-'.repeat(w - 1)}: `)).join('|')}|`,
    ...body.map(line),
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------------------------------

function ensureBuilt(): void {
  const started = Date.now();
  const { buildIfStale } = require(path.join(ROOT, 'bin', 'build-if-stale.js')) as {
    buildIfStale(root: string, log: (line: string) => void): string | null;
  };
  if (buildIfStale(ROOT, (line) => console.log(line))) console.log(`built in ${round((Date.now() - started) / 1000, 1)} s\n`);
}

async function main(): Promise<number> {
  // --db=postgres as well as --db postgres
  const options = parseArgs(
    process.argv.slice(2).flatMap((a) => (/^--[a-z-]+=/.test(a) ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a])),
  );
  try {
    ensureBuilt();
  } catch {
    console.error('bench:http: the project does not build (someone may be mid-edit): fix or wait, then run it again');
    return 1;
  }
  let failed = 0;
  for (const [i, db] of options.dbs.entries()) {
    if (i > 0) console.log(`\n${'='.repeat(100)}\n`);
    try {
      failed += await benchmark(db, options);
    } catch (error) {
      if (interrupted()) throw error;
      console.error(`\n${db}: the benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      failed++;
    }
  }
  if (options.withRisk && !options.quick) {
    console.log(`\n${'='.repeat(100)}\n`);
    const risk = spawn(process.execPath, [path.join(__dirname, 'risk-evaluation.js'), ...options.dbs.flatMap((db) => ['--db', db])], {
      cwd: ROOT,
      stdio: 'inherit',
    });
    riskChild = risk;
    const code = await new Promise<number | null>((resolve) => risk.once('exit', (c) => resolve(c)));
    if (code !== 0) failed++;
  }
  return failed ? 1 : 0;
}

let riskChild: ChildProcess | null = null;

// the risk benchmark drops its own databases on SIGINT (the terminal sends it to the whole group)
// (a SIGINT sent to this process alone is passed on after a while, once: a second one would kill it before it drops them)
runBench(main, 'stopping serve and dropping the benchmark databases', () => {
  const risk =
    riskChild && riskChild.exitCode === null
      ? new Promise((resolve) => {
          const child = riskChild!;
          const timer = setTimeout(() => child.kill('SIGINT'), 30_000);
          child.once('exit', () => {
            clearTimeout(timer);
            resolve(undefined);
          });
        })
      : Promise.resolve();
  return Promise.allSettled([...[...live].map(release), risk]);
});
