import { execFile, spawn, spawnSync } from 'node:child_process';
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

/** One answer on a terminal: once `waitFor` shows (after what the previous step waited for), `keys` are typed. */
export interface TerminalStep {
  waitFor: string;
  /** one write, or several, each a moment after the previous one */
  keys: string | string[];
}

export interface TerminalOptions {
  /** environment over the test process's and NO_COLOR=1 (an undefined value removes a variable) */
  env?: Record<string, string | undefined>;
  /** the terminal's width in columns (stty), 50 rows high; without it the pseudo-terminal's own */
  cols?: number;
  /** the prompts to answer, in order; the run fails if one never shows */
  steps?: TerminalStep[];
  /** the run is killed, and fails, after this long (60 s unless told) */
  timeoutMs?: number;
}

export interface TerminalRun {
  status: number | null;
  /** everything the terminal showed (stdout and stderr share it), as written */
  output: string;
  /** output without colour or cursor escapes */
  text: string;
}

const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;
const shellQuote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;

/**
 * Runs `payplane <args>` on a pseudo-terminal (script(1) gives it one, flushing each write) and answers its prompts:
 * each step waits for its text on the screen, escapes and carriage returns removed, then types its keys.
 */
export function runOnTerminal(args: string[], options: TerminalOptions = {}): Promise<TerminalRun> {
  const command = [process.execPath, BIN, ...args].map(shellQuote).join(' ');
  const env = { ...process.env, NO_COLOR: '1', ...options.env } as NodeJS.ProcessEnv;
  for (const [k, v] of Object.entries(options.env ?? {})) if (v === undefined) delete env[k];
  const shell = options.cols ? `stty cols ${options.cols} rows 50; ${command}` : command;
  const child = spawn('script', ['-qfec', shell, '/dev/null'], { cwd: ROOT, env });
  const steps = [...(options.steps ?? [])];
  const timeoutMs = options.timeoutMs ?? 60_000;
  return new Promise((resolve, reject) => {
    let output = '';
    let seen = 0;
    let typing = false;
    const screen = () => output.replace(ANSI, '').replace(/\r/g, '');
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`payplane ${args.join(' ')}: no end after ${timeoutMs / 1000} s; the terminal shows:\n${screen()}`));
    }, timeoutMs);
    const answer = async () => {
      if (typing) return;
      typing = true;
      for (;;) {
        const at = steps.length ? screen().indexOf(steps[0].waitFor, seen) : -1;
        if (at < 0) break;
        seen = at + steps[0].waitFor.length;
        const { keys } = steps.shift()!;
        for (const key of typeof keys === 'string' ? [keys] : keys) {
          // a prompt is drawn before it listens: a moment for it to take keystrokes
          await new Promise((resolve) => setTimeout(resolve, 150));
          child.stdin.write(key);
        }
      }
      typing = false;
    };
    const onData = (chunk: string) => {
      output += chunk;
      void answer();
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    child.stderr.setEncoding('utf8').on('data', onData);
    // keys typed as the command ends find the pipe closed: the run's result says what happened
    child.stdin.on('error', () => undefined);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (status) => {
      clearTimeout(timer);
      if (steps.length > 0) reject(new Error(`"${steps[0].waitFor}" never showed (exit ${status}); the terminal shows:\n${screen()}`));
      else resolve({ status, output, text: output.replace(ANSI, '') });
    });
  });
}

/** Whether script(1) is there to give a command a pseudo-terminal. */
export const hasScript = (): boolean => spawnSync('script', ['--version']).status === 0;
