import { stripVTControlCharacters } from 'node:util';
import { toCsv } from '../util/csv';
import chalk from 'chalk';
import type Table from 'cli-table3';
import type { Page } from '../db/scoped';
import { ValidationError } from '../domain/errors';

/** Colour only on a terminal and never under NO_COLOR (https://no-color.org). */
export function colourEnabled(): boolean {
  if (process.env.FORCE_COLOR && process.env.FORCE_COLOR !== '0') return true;
  return !('NO_COLOR' in process.env) && Boolean(process.stdout.isTTY);
}

export function configureColour(): void {
  if (!colourEnabled()) chalk.level = 0;
}

export interface Column<T> {
  header: string;
  get(row: T): unknown;
}

/**
 * What a command's table flags (src/cli/flags.ts tableFlags) ask of its table: `columns` picks and orders the columns
 * by header name, `no-truncate` keeps every cell whole, `csv` prints RFC 4180 CSV instead. A command's parsed flags
 * can be passed as they are.
 */
export interface TableOptions {
  columns?: string;
  'no-truncate'?: boolean;
  csv?: boolean;
}

/**
 * A table of rows; cli-table3's own colours are emptied so a pipe gets plain text, and no line is drawn between rows.
 * On a terminal the table fits its width (COLUMNS, else the terminal's): the widest column is cut first, each cut
 * cell ending in "…". A pipe gets every cell whole. Under `csv` the rows are CSV with a header row, without colour.
 */
export function renderTable<T>(rows: T[], columns: Column<T>[], options: TableOptions = {}): string {
  const picked = pickColumns(columns, options.columns);
  if (options.csv) {
    const lines = [picked.map((c) => c.header), ...rows.map((row) => picked.map((c) => stripVTControlCharacters(formatCell(c.get(row)))))];
    // the one CSV writer (src/util/csv.ts): CRLF records, quoting, formula neutralisation; the last CRLF left to the log
    return toCsv(lines).replace(/\r\n$/, '');
  }
  const colour = colourEnabled();
  let head = picked.map((c) => c.header);
  let body = rows.map((row) => picked.map((c) => formatCell(c.get(row))));
  const width = options['no-truncate'] ? undefined : terminalWidth();
  if (width !== undefined && picked.length) {
    const natural = picked.map((_c, i) => Math.max(cellWidth(head[i]), ...body.map((cells) => cellWidth(cells[i]))));
    // each column adds a space either side and a border; the last column its closing border too
    const widths = fitWidths(natural, width - 3 * picked.length - 1);
    head = head.map((h, i) => cutCell(h, widths[i]));
    body = body.map((cells) => cells.map((cell, i) => cutCell(cell, widths[i])));
  }
  // cli-table3 is loaded by the first table printed (serve prints none)
  const table = new (require('cli-table3') as typeof Table)({
    head: head.map((h) => (colour ? chalk.bold(h) : h)),
    // compact: the line under the header, none between rows
    style: { head: [], border: [], compact: true },
    wordWrap: false,
  });
  for (const cells of body) table.push(cells);
  return table.toString();
}

/** The columns --columns names (by header, any case, kebab-case, snake_case or camelCase), in its order; all without it. */
function pickColumns<T>(columns: Column<T>[], names: string | undefined): Column<T>[] {
  if (names === undefined) return columns;
  const key = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');
  const valid = columns.map((c) => columnName(c.header)).join(', ');
  const wanted = names.split(',').map((n) => n.trim()).filter(Boolean);
  if (!wanted.length) {
    throw new ValidationError('--columns names no column.', [{ path: '--columns', message: 'names no column' }], 'UNKNOWN_COLUMN', { hint: `Valid columns: ${valid}.` });
  }
  const picked: Column<T>[] = [];
  for (const name of wanted) {
    const column = columns.find((c) => key(c.header) === key(name));
    if (!column) {
      throw new ValidationError(`Unknown column "${name}" for --columns. Valid columns: ${valid}.`, [{ path: '--columns', message: `"${name}" is not a column` }], 'UNKNOWN_COLUMN', {
        hint: `Name columns by their headers, comma-separated, e.g. --columns ${columns.slice(0, 2).map((c) => columnName(c.header)).join(',')}.`,
      });
    }
    if (!picked.includes(column)) picked.push(column);
  }
  return picked;
}

/** A header as --columns names it: "Event type" is event-type. */
function columnName(header: string): string {
  return header.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

/** The width tables fit on a terminal: COLUMNS when set, else the terminal's; none on a pipe (nothing is cut). */
export function terminalWidth(): number | undefined {
  if (!process.stdout.isTTY) return undefined;
  const env = Number(process.env.COLUMNS);
  if (Number.isInteger(env) && env > 0) return env;
  return process.stdout.columns > 0 ? process.stdout.columns : undefined;
}

/**
 * Column widths whose sum fits `available`: the widest column is narrowed first, down to the next widest, and so on
 * (each keeps at least one character); what is left of the room goes back to the cut columns, leftmost first.
 */
export function fitWidths(natural: number[], available: number): number[] {
  const total = natural.reduce((a, b) => a + b, 0);
  if (total <= available) return natural;
  const sumAt = (cap: number) => natural.reduce((a, w) => a + Math.min(w, cap), 0);
  // the largest cap at which the columns fit (1 if none does: the table is then as narrow as it can be)
  let low = 1;
  let high = Math.max(...natural);
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (sumAt(mid) <= available) low = mid;
    else high = mid - 1;
  }
  const widths = natural.map((w) => Math.min(w, low));
  let left = available - sumAt(low);
  for (let i = 0; i < widths.length && left > 0; i++) {
    if (natural[i] > widths[i]) {
      widths[i]++;
      left--;
    }
  }
  return widths;
}

/** A cell's width on a terminal: its widest line, colour codes aside. */
function cellWidth(cell: string): number {
  return Math.max(...cell.split('\n').map((line) => displayWidth(stripVTControlCharacters(line))));
}

/** Each line of a cell cut to `width` columns, ending in "…" where it was cut (a cut line loses its colour). */
function cutCell(cell: string, width: number): string {
  return cell
    .split('\n')
    .map((line) => {
      const plain = stripVTControlCharacters(line);
      if (displayWidth(plain) <= width) return line;
      let out = '';
      let used = 0;
      for (const ch of plain) {
        const w = charWidth(ch.codePointAt(0)!);
        if (used + w > width - 1) break;
        out += ch;
        used += w;
      }
      return `${out}…`;
    })
    .join('\n');
}

function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text) width += charWidth(ch.codePointAt(0)!);
  return width;
}

/** 0 for a combining mark or a control character, 2 for an East Asian wide character or an emoji, else 1 (as cli-table3 counts). */
function charWidth(code: number): number {
  if (code < 0x20 || (code >= 0x7f && code < 0xa0) || (code >= 0x300 && code <= 0x36f) || code === 0x200b || (code >= 0xfe00 && code <= 0xfe0f)) return 0;
  if (
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0xa4cf && code !== 0x303f) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1f300 && code <= 0x1f64f) ||
    (code >= 0x1f900 && code <= 0x1f9ff) ||
    (code >= 0x20000 && code <= 0x3fffd)
  ) {
    return 2;
  }
  return 1;
}

/**
 * A line printed with a table (a page's footer, a heading): on stdout, but on stderr under --csv so that stdout is
 * the CSV alone. Nothing under --json (oclif's log and logToStderr print nothing then).
 */
export function logBesideTable(command: { log(message?: string): void; logToStderr(message?: string): void }, options: TableOptions, line: string): void {
  if (options.csv) command.logToStderr(line);
  else command.log(line);
}

/** Key/value lines of one record. */
export function renderRecord(record: Record<string, unknown>): string {
  const width = Math.max(...Object.keys(record).map((k) => k.length));
  return Object.entries(record)
    .map(([k, v]) => `${(colourEnabled() ? chalk.dim(k.padEnd(width)) : k.padEnd(width))}  ${formatCell(v)}`)
    .join('\n');
}

function formatCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'object' ? JSON.stringify(v) : String(v))).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export function statusColour(status: string): string {
  if (!colourEnabled()) return status;
  if (status === 'active') return chalk.green(status);
  if (status === 'revoked' || status === 'disabled') return chalk.red(status);
  return chalk.yellow(status);
}

export { chalk };

/** The line under a listed page: how many of how many, and the cursor of the next page. */
export function pageFooter(page: Page<unknown>): string {
  return `${page.data.length} of ${page.pagination.totalCount}${page.pagination.nextCursor ? ` (next: --cursor ${page.pagination.nextCursor})` : ''}`;
}
