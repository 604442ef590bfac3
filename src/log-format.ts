import { chalk, colourEnabled } from './cli/output';

/**
 * How log lines are written: `json`, pino's JSON lines (for machines: a file, a pipe, a log shipper), or `pretty`, one
 * readable line per entry (for a person at a terminal: `12:01:02 POST /v1/checkout-sessions 201 12ms req_…`).
 * PAYPLANE_LOG_FORMAT says which (json, pretty, or auto: pretty when the logs go to stdout and stdout is a terminal).
 * Either way the entry is the same object, redacted by pino before it is written: the pretty line is made from the
 * JSON line pino produced, so a credential the JSON never holds cannot show in the readable line either.
 */
export type LogFormat = 'json' | 'pretty';

/** PAYPLANE_LOG_FORMAT: json, pretty or auto (unset or empty: auto); anything else stops the command, naming it. */
export function logFormatSetting(env: NodeJS.ProcessEnv = process.env): LogFormat | 'auto' {
  const raw = env.PAYPLANE_LOG_FORMAT;
  const value = (raw ?? '').trim().toLowerCase();
  if (value === '' || value === 'auto') return 'auto';
  if (value === 'json' || value === 'pretty') return value;
  throw new Error(`PAYPLANE_LOG_FORMAT must be json, pretty or auto (got "${raw}")`);
}

/** The format of a logger writing to a file (`toFile`) or to stdout, which is a terminal or not (`tty`). */
export function chooseLogFormat(options: { toFile: boolean; tty: boolean; env?: NodeJS.ProcessEnv }): LogFormat {
  const setting = logFormatSetting(options.env);
  if (setting !== 'auto') return setting;
  return !options.toFile && options.tty ? 'pretty' : 'json';
}

/** A pino destination that writes each JSON line it is given as one readable line (or a few: an error's stack). */
export function prettyLogStream(write: (text: string) => void, colour = colourEnabled()): { write(line: string): void } {
  return {
    write(line: string) {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        write(line.endsWith('\n') ? line : `${line}\n`);
        return;
      }
      write(`${prettyLogLine(entry, colour)}\n`);
    },
  };
}

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** pino's own fields, and those a line shows in its own place */
const OWN_FIELDS = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'err']);
const REQUEST_FIELDS = new Set([...OWN_FIELDS, 'method', 'path', 'status', 'ms', 'requestId', 'operation']);

/**
 * One entry as a person reads it. A request: `12:01:02 POST /v1/checkout-sessions 201 12ms req_…` (time in UTC, as
 * the other commands print it). Anything else: `12:01:02 ERROR request failed requestId=req_… key=value…`, then
 * the error's stack, indented.
 */
export function prettyLogLine(entry: Record<string, unknown>, colour = false): string {
  const c = colour ? chalk : noColour;
  const time = c.dim(timeOf(entry.time));
  const level = typeof entry.level === 'number' ? entry.level : 30;
  const msg = typeof entry.msg === 'string' ? entry.msg : '';
  let head: string;
  let shown: Set<string>;
  if (msg === 'request' && typeof entry.method === 'string' && typeof entry.status === 'number') {
    const status = entry.status;
    const statusText =
      status >= 500
        ? c.red(String(status))
        : status >= 400
          ? c.yellow(String(status))
          : status >= 300
            ? c.cyan(String(status))
            : c.green(String(status));
    head = [time, c.bold(entry.method), String(entry.path ?? ''), statusText, durationOf(entry.ms), c.dim(String(entry.requestId ?? ''))]
      .filter(Boolean)
      .join(' ');
    shown = REQUEST_FIELDS;
  } else {
    const label = LEVELS[level] ?? `L${level}`;
    const levelText = level >= 50 ? c.red(label) : level >= 40 ? c.yellow(label) : level >= 30 ? c.green(label) : c.dim(label);
    head = [time, levelText, msg].filter(Boolean).join(' ');
    shown = OWN_FIELDS;
  }
  const extras = Object.entries(entry)
    .filter(([key, value]) => !shown.has(key) && value !== undefined)
    .map(([key, value]) => `${c.dim(`${key}=`)}${valueText(value)}`);
  const lines = [extras.length ? `${head} ${extras.join(' ')}` : head];
  const err = entry.err as { message?: unknown; stack?: unknown; type?: unknown; code?: unknown } | undefined;
  if (err && typeof err === 'object') {
    const text =
      typeof err.stack === 'string' ? err.stack : `${typeof err.type === 'string' ? `${err.type}: ` : ''}${String(err.message ?? '')}`;
    const code = typeof err.code === 'string' || typeof err.code === 'number' ? ` (${err.code})` : '';
    const [first, ...rest] = text.split('\n');
    lines.push(`    ${level >= 50 ? c.red(first + code) : first + code}`, ...rest.map((l) => c.dim(`    ${l.trim()}`)));
  }
  return lines.join('\n');
}

function timeOf(value: unknown): string {
  const at = typeof value === 'number' || typeof value === 'string' ? new Date(value) : new Date();
  return Number.isNaN(at.getTime()) ? '--:--:--' : at.toISOString().slice(11, 19);
}

function durationOf(ms: unknown): string {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return '';
  // whole milliseconds from 10 on, one decimal below (a duration, not an amount: no money formatter applies)
  return `${ms >= 10 ? Math.round(ms) : Math.round(ms * 10) / 10}ms`;
}

function valueText(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}

const same = (text: string) => text;
const noColour = { dim: same, bold: same, red: same, yellow: same, green: same, cyan: same };
