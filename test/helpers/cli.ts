import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { scanLogEnv } from './db';

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
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: fullEnv, cwd: options.cwd ?? ROOT, timeout: 60_000 }, (error, output, stderr) => {
      const status = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      const stdout = output;
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
