import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
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
