import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'pg';

// What the benchmarks share (bench/http-bench.ts and bench/risk-evaluation.ts): the project's root and fresh databases.

/** The project's root: the nearest folder above `from` holding package.json and bench/ (else the working directory). */
export function findRoot(from: string): string {
  let dir = from;
  while (!fs.existsSync(path.join(dir, 'package.json')) || !fs.existsSync(path.join(dir, 'bench'))) {
    const up = path.dirname(dir);
    if (up === dir) return process.cwd();
    dir = up;
  }
  return dir;
}

export type DbKind = 'sqlite' | 'postgres';

export interface BenchDatabase {
  url: string;
  describe: string;
  drop(): Promise<void>;
}

/**
 * A fresh database: a SQLite file in the given temporary folder, or a new Postgres database (named `<prefix>_<random>`)
 * on the local server, or on PAYPLANE_BENCH_PG_URL / a postgres:// DATABASE_URL when set.
 */
export async function freshDatabase(kind: DbKind, home: string, prefix: string): Promise<BenchDatabase> {
  if (kind === 'sqlite') {
    const file = path.join(home, 'bench.db');
    return { url: `sqlite:${file}`, describe: file, drop: async () => undefined };
  }
  const fromEnv = process.env.DATABASE_URL && /^postgres(ql)?:\/\//.test(process.env.DATABASE_URL) ? process.env.DATABASE_URL : null;
  const admin = new URL(process.env.PAYPLANE_BENCH_PG_URL ?? fromEnv ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const name = `${prefix}_${crypto.randomBytes(5).toString('hex')}`;
  const run = async (sql: string) => {
    const client = new Client({ connectionString: admin.toString() });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await run(`CREATE DATABASE ${name}`);
  const url = new URL(admin.toString());
  url.pathname = `/${name}`;
  return { url: url.toString(), describe: `${url.host}/${name}`, drop: () => run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

export interface BenchArgs {
  /** the --db values in order, without repeats (empty when none was given) */
  dbs: DbKind[];
  /** the boolean flags given */
  flags: Set<string>;
  /** the integer options given (1_000 and 1,000 are read as 1000) */
  ints: Record<string, number | undefined>;
}

/**
 * A benchmark's command line (node:util parseArgs): repeatable `--db sqlite|postgres`, `--help`/`-h`, the given boolean
 * flags and integer options (each with its minimum). Anything else, or a bad value, goes to `usage(problem)`.
 */
export function benchArgs(
  argv: string[],
  spec: { flags: string[]; ints: Record<string, number> },
  usage: (problem?: string) => never,
): BenchArgs {
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    values = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        db: { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
        ...Object.fromEntries(spec.flags.map((name) => [name, { type: 'boolean' as const }])),
        ...Object.fromEntries(Object.keys(spec.ints).map((name) => [name, { type: 'string' as const }])),
      },
    }).values;
  } catch (error) {
    return usage((error as Error).message);
  }
  if (values.help) usage();
  const dbs: DbKind[] = [];
  for (const db of (values.db as string[] | undefined) ?? []) {
    if (db !== 'sqlite' && db !== 'postgres') usage(`--db must be sqlite or postgres (got "${db}")`);
    if (!dbs.includes(db)) dbs.push(db);
  }
  const ints: Record<string, number | undefined> = {};
  for (const [name, min] of Object.entries(spec.ints)) {
    const raw = values[name] as string | undefined;
    if (raw === undefined) continue;
    const n = Number(raw.replace(/[_,]/g, ''));
    if (!Number.isInteger(n) || n < min) usage(`--${name} must be an integer of at least ${min} (got "${raw}")`);
    ints[name] = n;
  }
  return { dbs, flags: new Set(spec.flags.filter((name) => values[name] === true)), ints };
}

let interruptedRun: Promise<unknown> | null = null;

/** Whether the run was interrupted (Ctrl-C): it then ends when its clean-up is done, whatever main does meanwhile. */
export function interrupted(): boolean {
  return interruptedRun !== null;
}

/**
 * Runs a benchmark's main and exits with its code (1 when it throws). On SIGINT it prints `message`, waits for
 * `cleanUp` (stopping children, dropping databases) and exits 130.
 */
export function runBench(main: () => Promise<number>, message: string, cleanUp: () => Promise<unknown>): void {
  process.once('SIGINT', () => {
    console.error(`\ninterrupted: ${message}`);
    interruptedRun = cleanUp().then(
      () => process.exit(130),
      () => process.exit(130),
    );
  });
  main().then(
    (code) => {
      if (!interruptedRun) process.exit(code);
    },
    (error: unknown) => {
      if (interruptedRun) return;
      console.error(error instanceof Error ? (error.stack ?? error.message) : error);
      process.exit(1);
    },
  );
}

/** Clock ticks per second of /proc/<pid>/stat's CPU times (getconf CLK_TCK; 100 on Linux). */
let clockTicks: number | null = null;
function ticksPerSecond(): number {
  if (clockTicks === null) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** CPU time (user + system, ms) a process has used so far (/proc/<pid>/stat), or null where there is no /proc. */
export function cpuMs(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    // the command name (2nd field) may hold spaces: count fields after its closing parenthesis
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond();
  } catch {
    return null;
  }
}

/** CPU ms per request between two cpuMs readings, or null when either is missing or nothing was counted. */
export function cpuPer(before: number | null, after: number | null, count: number): number | null {
  if (before === null || after === null || count <= 0) return null;
  return Number(((after - before) / count).toFixed(3));
}
