import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createTestDatabase, scanLogEnv, testConfig, TEST_TOKEN_SECRET, withRuntimeOf, type TestDatabase } from './db';
import { takeChildConnectionViolations } from './guard';
import { closeRuntime, openRuntime, type Runtime } from '../../src/runtime';
import { createSandbox, type SandboxCredentials } from '../../src/services/sandbox/provision';

export const ROOT = path.resolve(__dirname, '../..');
export const BIN = path.join(ROOT, 'bin', 'run.js');

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (for --json runs) */
  json<T = any>(): T;
}

/**
 * The environment of a payplane process a test starts: the test process's, without colours or NODE_ENV, logging as
 * the secret scan wants, then `env` (an undefined value removes the variable).
 */
export function cliProcessEnv(env: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const fullEnv = { ...process.env, NO_COLOR: '1', ...scanLogEnv('cli'), ...env } as NodeJS.ProcessEnv;
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete fullEnv[k];
  delete fullEnv.NODE_ENV;
  return fullEnv;
}

/** Runs the built payplane binary as a user would (npm test builds dist/ first). */
export function runCli(args: string[], env: Record<string, string | undefined> = {}, options: { cwd?: string } = {}): Promise<CliResult> {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'commands'))) {
    throw new Error('dist/ is missing: run `npm run build` (npm test does it first)');
  }
  const fullEnv = cliProcessEnv(env);
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      { env: fullEnv, cwd: options.cwd ?? ROOT, timeout: 60_000 },
      (error, output, stderr) => {
        const status = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        const stdout = output;
        // the connection guard of the command's process (test/helpers/guard.ts): what it refused fails the test here
        const violations = child.pid === undefined ? [] : takeChildConnectionViolations(child.pid);
        if (violations.length > 0) {
          reject(
            new Error(
              `payplane ${args.join(' ')} ran ${violations.length} quer${violations.length === 1 ? 'y' : 'ies'} outside the open transaction of its command:\n\n${violations.slice(0, 3).join('\n\n')}`,
            ),
          );
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
      },
    );
  });
}

/** What `payplane sandbox init --json` prints: the ids and keys a CLI test acts with. */
export type CliSandboxIds = SandboxCredentials;

export interface CliSandboxOptions {
  /** more environment for every command (undefined removes a variable the test process has) */
  env?: Record<string, string | undefined>;
  /**
   * The sandbox: made by the binary (`sandbox init --json`, saved in the database's home; the default), in the test
   * process through createSandbox (`{ name }`: quicker, not saved), or none (false: the database stays empty).
   */
  sandbox?: 'cli' | { name?: string } | false;
  /** keep a runtime on the database open in the test process for the whole file (`rt`), closed before the drop */
  runtime?: boolean;
}

/** A CLI test's database, the environment pointing the binary at it, and the sandbox made there. */
export interface CliSandbox {
  db: TestDatabase;
  env: Record<string, string | undefined>;
  sandbox: CliSandboxIds;
  /** the runtime of the test process, with `runtime: true` */
  rt: Runtime;
  /** every result `cli` and `ok` returned, in order (for checks over all outputs, such as no secret printed) */
  outputs: CliResult[];
  /** the built binary with `env` (and more environment for this run) */
  cli(...args: string[]): Promise<CliResult>;
  /** as `cli`, failing unless the command exits 0 */
  ok(...args: string[]): Promise<CliResult>;
  /** as `cli` with more environment for this run */
  cliWith(extraEnv: Record<string, string | undefined>, ...args: string[]): Promise<CliResult>;
  /**
   * Runs fn after all the file's tests, before the runtime is closed and the database dropped (jest runs after-all
   * hooks in the order they are declared, so a file's own afterAll would find the database gone).
   */
  beforeDrop(fn: () => Promise<unknown> | unknown): void;
}

/**
 * Registers the set-up CLI tests share: before all, a fresh test database, the environment pointing the binary at it
 * (its home, the test token secret) and, unless told otherwise, a sandbox made by the binary; after all, the runtime
 * (if one was kept) closed and the database dropped. The fields are set once the hooks have run.
 */
export function useCliSandbox(options: CliSandboxOptions = {}): CliSandbox {
  const state = { outputs: [] as CliResult[] } as CliSandbox;
  const lastChecks: (() => Promise<unknown> | unknown)[] = [];
  state.beforeDrop = (fn) => lastChecks.push(fn);
  state.cliWith = async (extraEnv, ...args) => {
    const res = await runCli(args, { ...state.env, ...extraEnv });
    state.outputs.push(res);
    return res;
  };
  state.cli = (...args) => state.cliWith({}, ...args);
  state.ok = async (...args) => {
    const res = await state.cli(...args);
    if (res.status !== 0) throw new Error(`payplane ${args.join(' ')} exited ${res.status}: ${res.stdout}${res.stderr}`);
    return res;
  };
  beforeAll(async () => {
    state.db = await createTestDatabase();
    state.env = { DATABASE_URL: state.db.url, PAYPLANE_HOME: state.db.home, PAYPLANE_TOKEN_SECRET: TEST_TOKEN_SECRET, ...options.env };
    if (options.runtime) state.rt = await openRuntime(testConfig(state.db));
    const sandbox = options.sandbox ?? 'cli';
    if (sandbox === 'cli') state.sandbox = (await state.ok('sandbox', 'init', '--json')).json();
    else if (sandbox) state.sandbox = await withRuntime(state, (rt) => createSandbox(rt, { name: sandbox.name }));
  });
  afterAll(async () => {
    try {
      if (state.db) for (const fn of lastChecks) await fn();
    } finally {
      await closeAndDrop(state);
    }
  });
  return state;
}

async function closeAndDrop(state: CliSandbox): Promise<void> {
  try {
    if (state.rt) await closeRuntime(state.rt);
  } finally {
    await state.db?.drop();
  }
}

/** fn with the kept runtime, or with one opened for it. */
function withRuntime<T>(state: CliSandbox, fn: (rt: Runtime) => Promise<T>): Promise<T> {
  return state.rt ? fn(state.rt) : withRuntimeOf(state.db, fn);
}
