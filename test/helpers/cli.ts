import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createTestDatabase, scanLogEnv, TEST_TOKEN_SECRET, type TestDatabase } from './db';
import { takeChildConnectionViolations } from './guard';

export const ROOT = path.resolve(__dirname, '../..');
export const BIN = path.join(ROOT, 'bin', 'run.js');

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (for --json runs) */
  json<T = any>(): T;
}

/** Runs the built payplane binary as a user would (npm test builds dist/ first). */
export function runCli(args: string[], env: Record<string, string | undefined> = {}, options: { cwd?: string } = {}): Promise<CliResult> {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'commands'))) {
    throw new Error('dist/ is missing: run `npm run build` (npm test does it first)');
  }
  const fullEnv = { ...process.env, NO_COLOR: '1', ...scanLogEnv('cli'), ...env } as NodeJS.ProcessEnv;
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete fullEnv[k];
  delete fullEnv.NODE_ENV;
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, [BIN, ...args], { env: fullEnv, cwd: options.cwd ?? ROOT, timeout: 60_000 }, (error, output, stderr) => {
      const status = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      const stdout = output;
      // the connection guard of the command's process (test/helpers/guard.ts): what it refused fails the test here
      const violations = child.pid === undefined ? [] : takeChildConnectionViolations(child.pid);
      if (violations.length > 0) {
        reject(new Error(`payplane ${args.join(' ')} ran ${violations.length} quer${violations.length === 1 ? 'y' : 'ies'} outside the open transaction of its command:\n\n${violations.slice(0, 3).join('\n\n')}`));
        return;
      }
      resolve({
        status,
        stdout,
        stderr,
        json: () => {
          try {
            return JSON.parse(stdout);
          } catch {
            throw new Error(`not JSON (exit ${status}): ${stdout}\n${stderr}`);
          }
        },
      });
    });
  });
}

/** What `payplane sandbox init --json` prints: the ids and keys a CLI test acts with. */
export interface CliSandboxIds {
  tenantId: string;
  merchantId: string;
  tenantKey: { id: string; secretKey: string };
  merchantKey: { id: string; secretKey: string };
  platformToken: string;
  platformUserId: string;
}

/** A CLI test's database, the environment pointing the binary at it, and the sandbox `sandbox init` made there. */
export interface CliSandbox {
  db: TestDatabase;
  env: Record<string, string>;
  sandbox: CliSandboxIds;
  /** the built binary with `env` */
  cli(...args: string[]): Promise<CliResult>;
}

/**
 * Registers the set-up most CLI tests share: before all, a fresh test database and a sandbox made by the binary
 * (`sandbox init --json`, saved in the database's home); after all, the database dropped. The fields are set once
 * the hooks have run.
 */
export function useCliSandbox(extraEnv: Record<string, string> = {}): CliSandbox {
  const state = { cli: (...args: string[]) => runCli(args, state.env) } as CliSandbox;
  beforeAll(async () => {
    state.db = await createTestDatabase();
    state.env = { DATABASE_URL: state.db.url, PAYPLANE_HOME: state.db.home, PAYPLANE_TOKEN_SECRET: TEST_TOKEN_SECRET, ...extraEnv };
    const init = await state.cli('sandbox', 'init', '--json');
    if (init.status !== 0) throw new Error(`sandbox init exited ${init.status}: ${init.stderr}`);
    state.sandbox = init.json();
  });
  afterAll(() => state.db?.drop());
  return state;
}
