import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BIN, ROOT } from './cli';
import { TEST_TOKEN_SECRET, scanLogEnv, type TestDatabase } from './db';
import { removeGuardReportFolder, takeChildConnectionViolations } from './guard';

/** A `payplane serve` child process on a test database (dist/ is what runs: `npm run build` first). */
export interface ServeProcess {
  child: ChildProcess;
  /** http://127.0.0.1:<port> */
  url: string;
  /** what the process printed so far (stdout and stderr) */
  output(): string;
  /** fetch against this process, with a bearer credential when given */
  request(
    pathname: string,
    init?: { method?: string; credential?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<Response>;
  /** GET /metrics, parsed */
  metrics(): Promise<Sample[]>;
  /**
   * SIGTERM, then the exit code (SIGKILL after 15 s); rejects with the queries the process's connection guard refused
   * and no test has reported yet (test/helpers/guard.ts)
   */
  stop(): Promise<number | null>;
}

const running = new Set<ServeProcess>();

/**
 * Starts `payplane serve --port 0 --host 127.0.0.1` (the system picks a free port; the banner says which) on the
 * database, with the test token secret and `env` on top of this process's environment, and waits until /readyz answers 200.
 */
export async function startServe(
  db: TestDatabase,
  env: Record<string, string | undefined> = {},
  args: string[] = [],
  /** how long the banner and then /readyz may take (60 s and 30 s; a test on a loaded machine may allow more) */
  limits: { startMs?: number; readyMs?: number } = {},
): Promise<ServeProcess> {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'commands'))) throw new Error('dist/ is missing: run `npm run build` first');
  const fullEnv = {
    ...process.env,
    NO_COLOR: '1',
    DATABASE_URL: db.url,
    PAYPLANE_HOME: db.home,
    PAYPLANE_TOKEN_SECRET: TEST_TOKEN_SECRET,
    ...scanLogEnv('serve'),
    ...env,
  } as NodeJS.ProcessEnv;
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete fullEnv[k];
  delete fullEnv.NODE_ENV;
  // PAYPLANE_VALIDATE_RESPONSES (test/setup-env.ts) is inherited: a serve process checks its answers against
  // /v1/openapi.json too
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--host', '127.0.0.1', ...args], {
    env: fullEnv,
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  // keep only the start of the output: the banner, and the first errors if it fails
  const append = (d: Buffer | string) => {
    if (out.length < 200_000) out += d.toString();
  };
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);

  const url = await new Promise<string>((resolve, reject) => {
    const startMs = limits.startMs ?? 60_000;
    const timer = setTimeout(() => finish(new Error(`serve did not start in ${startMs / 1000} s:\n${out}`)), startMs);
    const onExit = (code: number | null) => finish(new Error(`serve exited with ${code} before it started:\n${out}`));
    const poll = setInterval(() => {
      const m = /serving (http:\/\/\S+)/.exec(out);
      if (m) finish(undefined, m[1]);
    }, 25);
    function finish(error?: Error, value?: string) {
      clearInterval(poll);
      clearTimeout(timer);
      child.off('exit', onExit);
      if (error) {
        child.kill('SIGKILL');
        reject(error);
      } else resolve(value!);
    }
    child.once('exit', onExit);
  });

  const request: ServeProcess['request'] = (pathname, init = {}) =>
    fetch(`${url}${pathname}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: {
        ...(init.credential ? { Authorization: `Bearer ${init.credential}` } : {}),
        ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...init.headers,
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });

  const server: ServeProcess = {
    child,
    url,
    output: () => out,
    request,
    metrics: async () => {
      const res = await request('/metrics');
      if (res.status !== 200) throw new Error(`GET /metrics: ${res.status} ${await res.text()}`);
      return parsePrometheus(await res.text());
    },
    stop: async () => {
      const code = await new Promise<number | null>((resolve) => {
        running.delete(server);
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
        const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.once('exit', (exit) => {
          clearTimeout(kill);
          resolve(exit);
        });
        child.kill('SIGTERM');
      });
      const violations = child.pid === undefined ? [] : takeChildConnectionViolations(child.pid);
      removeGuardReportFolder();
      if (violations.length > 0) {
        throw new Error(
          `serve (pid ${child.pid}) ran ${violations.length} quer${violations.length === 1 ? 'y' : 'ies'} outside the open transaction of their request or job:\n\n${violations.slice(0, 3).join('\n\n')}`,
        );
      }
      return code;
    },
  };
  running.add(server);

  const readyMs = limits.readyMs ?? 30_000;
  const deadline = Date.now() + readyMs;
  for (;;) {
    const res = await request('/readyz').catch(() => undefined);
    if (res?.status === 200) break;
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`serve at ${url} not ready in ${readyMs / 1000} s (last: ${res?.status}):\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return server;
}

/** Stops every serve process this test file started and has not stopped (for afterAll). */
export async function stopAllServes(): Promise<void> {
  // every one is stopped before the first refusal of a connection guard is reported
  const stopped = await Promise.allSettled([...running].map((s) => s.stop()));
  const failed = stopped.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
}

/** One sample of the Prometheus text format: metric name, labels, value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Parses the Prometheus text exposition format (what prom-client's registry.metrics() writes); comments are skipped. */
export function parsePrometheus(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const m = SAMPLE.exec(line.trim());
    if (!m) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1]] = l[2].replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
    samples.push({ name: m[1], labels, value: m[3] === '+Inf' ? Infinity : m[3] === '-Inf' ? -Infinity : Number(m[3]) });
  }
  return samples;
}

/** The sum of the samples of `name` whose labels include `labels`. */
export function sumOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}
