import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
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
export function runCli(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'commands'))) {
    throw new Error('dist/ is missing: run `npm run build` (npm test does it first)');
  }
  const fullEnv = { ...process.env, NO_COLOR: '1', ...scanLogEnv('cli'), ...env } as NodeJS.ProcessEnv;
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete fullEnv[k];
  delete fullEnv.NODE_ENV;
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [BIN, ...args], { env: fullEnv, cwd: ROOT, timeout: 60_000 }, (error, output, stderr) => {
      const status = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      // under PAYPLANE_LOG_FILE, log lines the command still wrote to stdout go to that file, not into stdout
      let stdout = output;
      if (fullEnv.PAYPLANE_LOG_FILE) {
        const splitter = new LogLineSplitter(fullEnv.PAYPLANE_LOG_FILE, () => child.pid);
        stdout = splitter.write(output) + splitter.end();
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

/**
 * Splits a child's stdout: pino JSON lines (`{"level":…`) are appended to `logFile` ("%p": the child's pid), as if the
 * child had honoured PAYPLANE_LOG_FILE itself; the rest is handed back as the output. Lines cut between chunks are
 * held until their end arrives.
 */
export class LogLineSplitter {
  private pending = '';
  private readonly decoder = new StringDecoder('utf8');

  constructor(
    private readonly logFile: string,
    private readonly pid: () => number | undefined,
  ) {}

  write(chunk: Buffer | string): string {
    this.pending += typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    const cut = this.pending.lastIndexOf('\n');
    if (cut < 0) return '';
    const complete = this.pending.slice(0, cut + 1);
    this.pending = this.pending.slice(cut + 1);
    return this.route(complete);
  }

  end(): string {
    const rest = this.pending + this.decoder.end();
    this.pending = '';
    return rest ? this.route(rest) : '';
  }

  private route(text: string): string {
    const kept: string[] = [];
    const logged: string[] = [];
    for (const line of text.split(/(?<=\n)/)) (/^\{"level":\d+/.test(line) ? logged : kept).push(line);
    if (logged.length) {
      const file = path.resolve(this.logFile.replace(/%p/g, String(this.pid() ?? 'unknown')));
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.appendFileSync(file, logged.map((l) => (l.endsWith('\n') ? l : `${l}\n`)).join(''));
    }
    return kept.join('');
  }
}
