import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { QueryTypes } from 'sequelize';
import { benchArgs, findRoot, freshDatabase, runBench, type BenchDatabase, type DbKind } from './common';
import { loadConfig } from '../src/config';
import type { PaymentRow } from '../src/db/models/payments';
import { closeRuntime, openRuntime, type Runtime } from '../src/runtime';
import { evaluateRisk, type RiskDecision } from '../src/services/risk/engine';
import { createSandbox } from '../src/services/sandbox/provision';
import { mulberry32 } from '../src/util/random';
import {
  createRiskFixture,
  insertPayments,
  paymentRow,
  recordQueries,
  riskSubject,
  SUBJECT_CARD,
  SUBJECT_EMAIL,
  SUBJECT_IP,
  type RiskFixture,
} from './risk-fixture';

/**
 * Issue 8: "Risk evaluation of one payment costs bounded queries: a benchmark with 100,000 past payments shows it stays
 * within 2x of the cost with 1,000 past payments."
 *
 *   npm run bench:risk -- [--db sqlite|postgres]... [--quick] [--iterations 300]
 *
 * For each size (1,000 and 100,000 past payments; --quick: 1,000 and 20,000) a fresh database of its own (a SQLite file
 * in a temporary folder, or a new Postgres database on 127.0.0.1:5432, dropped afterwards), migrated, with the sandbox
 * and a risk configuration (bench/risk-fixture.ts): a card list of 1,000 entries, an ip CIDR list, in_list rules, a
 * count per card over 10 minutes, a sum per email over 1 day, a plain amount rule, one enabled plan. Past payments are
 * inserted in bulk, spread over the last 24 hours over many cards, emails and ips (each card 4 payments, each email 5:
 * a customer's history does not grow with the table), plus the same few at every size sharing the evaluated card,
 * email and ip, so that every aggregation finds rows and the decision is the same. One subject is then evaluated
 * `iterations` times on each size, interleaved (the machine's other work weighs on both alike), after a warm-up:
 * mean, p50 and p99 time per evaluation, SQL statements per evaluation (a sequelize hook), and the query plans of the
 * aggregation statements (SQLite EXPLAIN QUERY PLAN, Postgres EXPLAIN; after ANALYZE on Postgres, which autovacuum
 * would run). Exits 1 when the p50 time at the largest size is more than twice the one at 1,000, when the number of
 * queries differs between sizes, or when the decision does.
 * Results also go to bench/results/risk-evaluation-<db>.json (ignored by git).
 */

interface Options {
  /** each in turn (--db may be given more than once) */
  dbs: DbKind[];
  sizes: number[];
  iterations: number;
  warmup: number;
}

const ROOT = findRoot(__dirname);
const LIMIT_RATIO = 2;

function parseArgs(argv: string[]): Options {
  const { dbs, flags, ints } = benchArgs(argv, { flags: ['quick'], ints: { iterations: 10 } }, usage);
  return {
    dbs: dbs.length ? dbs : ['sqlite'],
    sizes: flags.has('quick') ? [1_000, 20_000] : [1_000, 100_000],
    iterations: ints.iterations ?? 300,
    warmup: 300,
  };
}

function usage(problem?: string): never {
  if (problem) console.error(`bench:risk: ${problem}`);
  console.error('usage: npm run bench:risk -- [--db sqlite|postgres]... [--quick] [--iterations 300]');
  process.exit(problem ? 2 : 0);
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * The payments that share the subject's identifiers, the same at every size: 3 of its card in the last 10 minutes
 * and 2 older, 10 of its email in the last day (15,000 EUR each) and 1 older, 1 in USD, 2 of its ip.
 */
function sharedPayments(f: RiskFixture, now: Date): PaymentRow[] {
  const at = (ms: number) => new Date(now.getTime() - ms);
  const base = { tenantId: f.tenantId, merchantId: f.merchantId };
  return [
    ...[1, 3, 7].map((m) => paymentRow({ ...base, createdAt: at(m * MINUTE), cardFingerprint: SUBJECT_CARD, amountMinor: 2000 })),
    ...[30 * MINUTE, 3 * HOUR].map((ms) => paymentRow({ ...base, createdAt: at(ms), cardFingerprint: SUBJECT_CARD, amountMinor: 2000 })),
    ...Array.from({ length: 10 }, (_, i) =>
      paymentRow({ ...base, createdAt: at(i * 2 * HOUR + 20 * MINUTE), customerEmail: SUBJECT_EMAIL, amountMinor: 15_000 }),
    ),
    paymentRow({ ...base, createdAt: at(30 * HOUR), customerEmail: SUBJECT_EMAIL, amountMinor: 15_000 }),
    paymentRow({ ...base, createdAt: at(5 * HOUR), customerEmail: SUBJECT_EMAIL, amountMinor: 15_000, currency: 'USD' }),
    ...[2 * HOUR, 9 * HOUR].map((ms) => paymentRow({ ...base, createdAt: at(ms), customerIp: SUBJECT_IP })),
  ];
}

/** Filler payments number `from` to `to` (exclusive): other customers, spread over the last 24 hours. */
function otherPayments(f: RiskFixture, now: Date, from: number, to: number, next: () => number): PaymentRow[] {
  const rows: PaymentRow[] = [];
  for (let i = from; i < to; i++) {
    rows.push(
      paymentRow({
        tenantId: f.tenantId,
        merchantId: f.merchantId,
        createdAt: new Date(now.getTime() - Math.floor(next() * 24 * HOUR)),
        amountMinor: 500 + Math.floor(next() * 50_000),
        currency: next() < 0.8 ? 'EUR' : 'USD',
        cardFingerprint: `fp_card_${Math.floor(i / 4)}`,
        customerEmail: `customer${Math.floor(i / 5)}@example.com`,
        customerIp: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
        customerReference: `cust_${Math.floor(i / 5)}`,
        status: next() < 0.9 ? 'captured' : 'failed',
      }),
    );
  }
  return rows;
}

interface PlanReport {
  /** e.g. "count by cardFingerprint" */
  aggregation: string;
  sql: string;
  plan: string[];
  usesRiskIndex: boolean;
}

interface SizeReport {
  pastPayments: number;
  seedSeconds: number;
  iterations: number;
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
  minMs: number;
  maxMs: number;
  queriesPerEvaluation: number;
  decision: string;
  score: number;
  matchedRules: string[];
  aggregationPlans: PlanReport[];
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
const round = (n: number, digits = 3) => Number(n.toFixed(digits));

/** The plans of the statements of one evaluation that read the payments table (the aggregations). */
async function aggregationPlans(rt: Runtime, sql: string[]): Promise<PlanReport[]> {
  const reports: PlanReport[] = [];
  for (const statement of sql.filter((s) => /FROM [`"]payments[`"]/i.test(s))) {
    const text = statement.replace(/;\s*$/, '');
    let plan: string[];
    if (rt.db.dialect === 'sqlite') {
      const rows = await rt.db.sequelize.query<{ detail: string }>(`EXPLAIN QUERY PLAN ${text}`, { type: QueryTypes.SELECT });
      plan = rows.map((r) => r.detail);
    } else {
      const rows = await rt.db.sequelize.query<Record<string, string>>(`EXPLAIN ${text}`, { type: QueryTypes.SELECT });
      plan = rows.map((r) => r['QUERY PLAN']);
    }
    const metric = /SELECT\s+(count|sum)\(/i.exec(text)?.[1]?.toLowerCase() ?? 'select';
    const column = /(cardFingerprint|customerEmail|customerIp|customerReference|merchantId)[`"]? = /.exec(text)?.[1] ?? 'unknown';
    reports.push({
      aggregation: `${metric} by ${column}`,
      sql: text,
      plan,
      usesRiskIndex: plan.some((line) => /payments_risk_/.test(line)),
    });
  }
  return reports;
}

/** One size: its own fresh database holding the sandbox, the risk set-up and `size` past payments. */
interface Instance {
  size: number;
  database: BenchDatabase;
  home: string;
  rt: Runtime | null;
  fixture: RiskFixture | null;
  seedSeconds: number;
  times: number[];
  counts: Set<number>;
  last: RiskDecision | null;
}

/** Prepares a size into `instances` (so that it is released whatever happens). */
async function prepare(db: DbKind, size: number, now: Date, instances: Instance[]): Promise<void> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'payplane-bench-'));
  let database: BenchDatabase;
  try {
    database = await freshDatabase(db, home, 'payplane_bench');
  } catch (error) {
    fs.rmSync(home, { recursive: true, force: true });
    throw error;
  }
  const instance: Instance = { size, database, home, rt: null, fixture: null, seedSeconds: 0, times: [], counts: new Set(), last: null };
  instances.push(instance);
  live.add(instance);
  const config = loadConfig(
    { ...process.env, PAYPLANE_TOKEN_SECRET: crypto.randomBytes(32).toString('hex') },
    { home, databaseUrl: instance.database.url, logLevel: 'silent' },
  );
  const rt = (instance.rt = await openRuntime(config));
  const sandbox = await createSandbox(rt, { name: 'Risk benchmark tenant' });
  const fixture = (instance.fixture = await createRiskFixture(rt, sandbox.tenantId, sandbox.merchantId));
  const started = Date.now();
  const shared = sharedPayments(fixture, now);
  await insertPayments(rt.db, shared);
  const next = mulberry32(8);
  for (let from = shared.length; from < size; from += 10_000)
    await insertPayments(rt.db, otherPayments(fixture, now, from, Math.min(size, from + 10_000), next));
  // Postgres plans from statistics that autovacuum gathers in the background: gather them now, as it would
  if (rt.db.dialect === 'postgres') await rt.db.sequelize.query('ANALYZE');
  instance.seedSeconds = round((Date.now() - started) / 1000, 1);
  console.log(`  ${fmt(size)} past payments seeded in ${instance.seedSeconds} s (${instance.database.describe})`);
}

/** The sizes prepared and not yet released: an interrupted run drops their databases too. */
const live = new Set<Instance>();

async function release(instance: Instance): Promise<void> {
  if (!live.delete(instance)) return;
  if (instance.rt) await closeRuntime(instance.rt).catch(() => undefined);
  await instance.database.drop();
  fs.rmSync(instance.home, { recursive: true, force: true });
}

/**
 * Warms up, then evaluates the subject `iterations` times on every size, interleaved (one evaluation on each in turn)
 * so that the machine's other work weighs on every size alike; counts the statements of every evaluation.
 */
async function measure(instances: Instance[], now: Date, options: Options): Promise<void> {
  const evaluate = (instance: Instance) => evaluateRisk(instance.fixture!.ctx, riskSubject(instance.fixture!), now);
  for (let i = 0; i < options.warmup; i++) for (const instance of instances) await evaluate(instance);
  for (let i = 0; i < options.iterations; i++) {
    for (const instance of instances) {
      const started = process.hrtime.bigint();
      const recorded = await recordQueries(instance.rt!.db, () => evaluate(instance));
      instance.times.push(Number(process.hrtime.bigint() - started) / 1e6);
      instance.counts.add(recorded.count);
      instance.last = recorded.result;
    }
  }
}

async function report(instance: Instance, now: Date): Promise<SizeReport> {
  const { rt, fixture, times, counts, last } = instance;
  if (counts.size !== 1)
    throw new Error(`the number of queries per evaluation varied at ${fmt(instance.size)} past payments: ${[...counts].join(', ')}`);
  const captured = await recordQueries(rt!.db, () => evaluateRisk(fixture!.ctx, riskSubject(fixture!), now), { capture: true });
  const sorted = [...times].sort((a, b) => a - b);
  return {
    pastPayments: instance.size,
    seedSeconds: instance.seedSeconds,
    iterations: times.length,
    meanMs: round(times.reduce((sum, t) => sum + t, 0) / times.length),
    p50Ms: round(percentile(sorted, 50)),
    p99Ms: round(percentile(sorted, 99)),
    minMs: round(sorted[0]),
    maxMs: round(sorted[sorted.length - 1]),
    queriesPerEvaluation: [...counts][0],
    decision: last!.evaluatedDecision,
    score: last!.score,
    matchedRules: last!.matchedRules.map((r) => r.name),
    aggregationPlans: await aggregationPlans(rt!, captured.sql),
  };
}

const fmt = (n: number) => n.toLocaleString('en-US');

function table(rows: SizeReport[]): string {
  const header = ['past payments', 'mean ms', 'p50 ms', 'p99 ms', 'queries/eval', 'decision (score)'];
  const body = rows.map((r) => [
    fmt(r.pastPayments),
    r.meanMs.toFixed(3),
    r.p50Ms.toFixed(3),
    r.p99Ms.toFixed(3),
    String(r.queriesPerEvaluation),
    `${r.decision} (${r.score})`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 0 || i === 5 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  return [
    line(header),
    `|${widths.map((w, i) => (i === 0 || i === 5 ? ` ${'-'.repeat(w)} ` : ` ${'-'.repeat(w - 1)}: `)).join('|')}|`,
    ...body.map(line),
  ].join('\n');
}

async function main(): Promise<number> {
  // --db=postgres as well as --db postgres
  const options = parseArgs(
    process.argv.slice(2).flatMap((a) => (/^--[a-z]+=/.test(a) ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a])),
  );
  let failed = 0;
  for (const [i, db] of options.dbs.entries()) {
    if (i > 0) console.log(`\n${'='.repeat(100)}\n`);
    failed += await benchmark(db, options);
  }
  return failed ? 1 : 0;
}

/** One database kind: 0 when bounded, 1 otherwise. */
async function benchmark(db: DbKind, options: Options): Promise<number> {
  const machine = {
    node: process.version,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    platform: `${os.platform()} ${os.release()}`,
    memoryGiB: round(os.totalmem() / 2 ** 30, 1),
    loadAverage: os.loadavg().map((l) => round(l, 2)),
  };
  console.log(`Risk evaluation benchmark: ${db}`);
  console.log(
    `node ${machine.node}, ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.memoryGiB} GiB, load average ${machine.loadAverage.join(' ')}`,
  );
  console.log(`${options.iterations} evaluations per size, interleaved, after ${options.warmup} warm-up each\n`);
  const now = new Date();
  const instances: Instance[] = [];
  try {
    for (const size of [...options.sizes].sort((a, b) => a - b)) await prepare(db, size, now, instances);
    await measure(instances, now, options);
    const reports: SizeReport[] = [];
    for (const instance of instances) reports.push(await report(instance, now));

    const first = reports[0];
    const largest = reports[reports.length - 1];
    const ratio = { mean: round(largest.meanMs / first.meanMs, 2), p50: round(largest.p50Ms / first.p50Ms, 2) };
    const failures: string[] = [];
    if (ratio.p50 > LIMIT_RATIO)
      failures.push(
        `p50 time at ${fmt(largest.pastPayments)} is ${ratio.p50}x the time at ${fmt(first.pastPayments)} (limit ${LIMIT_RATIO}x)`,
      );
    if (new Set(reports.map((r) => r.queriesPerEvaluation)).size !== 1)
      failures.push(`queries per evaluation differ: ${reports.map((r) => r.queriesPerEvaluation).join(' vs ')}`);
    if (new Set(reports.map((r) => `${r.decision}/${r.score}`)).size !== 1)
      failures.push(`the decision differs between sizes: ${reports.map((r) => `${r.decision} (${r.score})`).join(' vs ')}`);
    const warnings = reports.flatMap((r) =>
      r.aggregationPlans
        .filter((p) => !p.usesRiskIndex)
        .map(
          (p) =>
            `at ${fmt(r.pastPayments)} past payments, the ${p.aggregation} does not use a payments_risk_* index: ${p.plan.join(' / ')}`,
        ),
    );

    console.log(`\n${table(reports)}\n`);
    console.log(
      `ratio ${fmt(largest.pastPayments)} / ${fmt(first.pastPayments)}: p50 ${ratio.p50}x, mean ${ratio.mean}x (limit ${LIMIT_RATIO}x on p50)`,
    );
    console.log(`matched rules: ${largest.matchedRules.join(', ') || 'none'}`);
    console.log(
      `\nAggregation query plans at ${fmt(largest.pastPayments)} past payments (${db === 'sqlite' ? 'EXPLAIN QUERY PLAN' : 'EXPLAIN'}):`,
    );
    for (const p of largest.aggregationPlans) {
      console.log(`  ${p.aggregation}: ${p.sql}`);
      for (const line of p.plan) console.log(`    ${line}`);
    }
    if (warnings.length) console.log(`\n${warnings.map((w) => `warning: ${w}`).join('\n')}`);
    console.log(failures.length ? `\nFAIL\n${failures.map((f) => `  - ${f}`).join('\n')}` : '\nOK: bounded (same queries, time within 2x)');

    const results = path.join(ROOT, 'bench', 'results');
    fs.mkdirSync(results, { recursive: true });
    const file = path.join(results, `risk-evaluation-${db}.json`);
    fs.writeFileSync(
      file,
      JSON.stringify(
        {
          benchmark: 'risk-evaluation',
          db,
          at: new Date().toISOString(),
          machine,
          warmup: options.warmup,
          sizes: reports,
          ratio,
          limitRatio: LIMIT_RATIO,
          ok: failures.length === 0,
          failures,
          warnings,
        },
        null,
        2,
      ) + '\n',
    );
    console.log(`\nwritten to ${path.relative(process.cwd(), file)}`);
    return failures.length ? 1 : 0;
  } finally {
    for (const instance of instances) await release(instance);
  }
}

runBench(main, 'dropping the benchmark databases', () => Promise.allSettled([...live].map(release)));
