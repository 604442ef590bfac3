import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { benchArgs, cpuMs, cpuPer, findRoot, freshDatabase, runBench, type BenchDatabase, type DbKind } from './common';

/**
 * `npm run bench:floor`: the floor of the HTTP benchmark's cases on this machine (bench/floor-server.ts): a bare
 * Express with nothing of the platform, reading one row by key (what (b) cannot do less than) and committing one small
 * transaction per request (what (d) cannot do less than), each beside the hello-world of the same run. Where the floor
 * itself is below a target of issue 22, no implementation on this stack reaches that target here.
 */
const ROOT = findRoot(__dirname);
const RESULTS = path.join(ROOT, 'bench', 'results');

function usage(problem?: string): never {
  if (problem) console.error(`bench:floor: ${problem}`);
  console.error('usage: npm run bench:floor -- [--db sqlite|postgres]... [--duration <s>] [--connections <n>]');
  process.exit(problem ? 2 : 0);
}

const args = benchArgs(process.argv.slice(2), { flags: [], ints: { duration: 1, connections: 1 } }, usage);
const duration = args.ints.duration ?? 10;
const connections = args.ints.connections ?? 50;
const dbs: DbKind[] = args.dbs.length ? args.dbs : ['sqlite', 'postgres'];
const children = new Set<ChildProcess>();
const databases: BenchDatabase[] = [];

interface FloorCase {
  path: string;
  label: string;
  requestsPerSecond: number;
  cpuMsPerRequest: number | null;
  p50: number;
  p99: number;
  errors: number;
}

async function start(url: string): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(path.join(__dirname, 'floor-server.js'), [url, '0'], {
    execArgv: [],
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`floor-server exited with ${code} before listening`)));
    child.on('message', (m: { port?: number }) => typeof m?.port === 'number' && resolve(m.port));
  });
  return { child, port };
}

async function measure(
  port: number,
  pid: number | undefined,
  label: string,
  spec: { path: string; method?: 'GET' | 'POST'; ids?: boolean },
): Promise<FloorCase> {
  let n = 0;
  const headers = { authorization: 'Bearer sk_floor', 'content-type': 'application/json' };
  const body = JSON.stringify({ amount: 1000, currency: 'EUR', successUrl: 'https://shop.example/done' });
  const run = (seconds: number) =>
    autocannon({
      url: `http://127.0.0.1:${port}`,
      connections,
      duration: seconds,
      timeout: 10,
      requests: [
        {
          method: spec.method ?? 'GET',
          headers,
          body: spec.method === 'POST' ? body : undefined,
          setupRequest: (r) => ({ ...r, path: spec.ids ? `${spec.path}/row_${n++ % 1000}` : spec.path }),
        },
      ],
    });
  await run(Math.min(3, Math.max(1, Math.round(duration / 5))));
  const before = cpuMs(pid);
  const result = await run(duration);
  return {
    path: `${spec.method ?? 'GET'} ${spec.path}`,
    label,
    requestsPerSecond: result.requests.average,
    cpuMsPerRequest: cpuPer(before, cpuMs(pid), result.requests.total),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  };
}

async function floorOf(kind: DbKind): Promise<FloorCase[]> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'payplane-floor-'));
  const db = await freshDatabase(kind, home, 'payplane_floor');
  databases.push(db);
  const { child, port } = await start(db.url);
  try {
    const cases = [
      await measure(port, child.pid, '(a) hello-world', { path: '/hello' }),
      await measure(port, child.pid, 'floor of (b): one row by key', { path: '/read', ids: true }),
      await measure(port, child.pid, 'floor of (d): one transaction a request', { path: '/write', method: 'POST' }),
    ];
    if (kind === 'sqlite')
      cases.push(
        await measure(port, child.pid, 'floor of (d), requests sharing a transaction', { path: '/write-grouped', method: 'POST' }),
      );
    return cases;
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    fs.rmSync(home, { recursive: true, force: true });
  }
}

/** The platform's figures of the same case in the last `npm run bench:http` of this database, when there is one. */
function platformRatio(kind: DbKind, key: 'b' | 'd'): string {
  try {
    const report = JSON.parse(fs.readFileSync(path.join(RESULTS, `http-${kind}.json`), 'utf8')) as {
      cases: Array<{ key: string; ratio?: number | null }>;
    };
    const ratio = report.cases.find((c) => c.key === key)?.ratio;
    return typeof ratio === 'number' ? `${(ratio * 100).toFixed(1)}%` : '-';
  } catch {
    return '-';
  }
}

async function main(): Promise<number> {
  let failed = 0;
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  for (const kind of dbs) {
    const cases = await floorOf(kind);
    const hello = cases[0].requestsPerSecond;
    console.log(
      `\n${kind}: ${os.cpus()[0]?.model ?? 'cpu'}, ${os.cpus().length} cores, node ${process.version}; ${connections} connections, ${duration} s per case; load average before: ${load}\n`,
    );
    console.log('| case | requests/s | CPU ms/req | p50 ms | p99 ms | share of (a) | errors |');
    console.log('|---|---:|---:|---:|---:|---:|---:|');
    for (const c of cases) {
      failed += c.errors;
      console.log(
        `| ${c.label} (${c.path}) | ${Math.round(c.requestsPerSecond).toLocaleString('en')} | ${c.cpuMsPerRequest ?? '-'} | ${c.p50} | ${c.p99} | ${((c.requestsPerSecond / hello) * 100).toFixed(1)}% | ${c.errors} |`,
      );
    }
    console.log(
      `\nissue 22's targets beside them: (b) >= 50% and p99 <= 20 ms; (d) >= 25%. The platform's last bench:http on ${kind}: (b) ${platformRatio(kind, 'b')}, (d) ${platformRatio(kind, 'd')}.`,
    );
    fs.mkdirSync(RESULTS, { recursive: true });
    fs.writeFileSync(
      path.join(RESULTS, `floor-${kind}.json`),
      JSON.stringify({ kind, connections, duration, loadAverage: load, cases }, null, 2),
    );
  }
  return failed ? 1 : 0;
}

const cleanUp = async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.all(databases.map((db) => db.drop().catch(() => undefined)));
};
runBench(() => main().finally(cleanUp), 'stopping the floor server and dropping its databases', cleanUp);
