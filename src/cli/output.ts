import { stripVTControlCharacters } from 'node:util';
import { toCsv } from '../util/csv';
import chalk from 'chalk';
import type Table from 'cli-table3';
import type { Page } from '../db/scoped';
import { ValidationError } from '../domain/errors';
import { actorLabel } from './actors';

/** Colour only on a terminal and never under NO_COLOR (https://no-color.org). */
export function colourEnabled(): boolean {
  if (process.env.FORCE_COLOR && process.env.FORCE_COLOR !== '0') return true;
  return !('NO_COLOR' in process.env) && Boolean(process.stdout.isTTY);
}

export function configureColour(): void {
  if (!colourEnabled()) chalk.level = 0;
}

/**
 * What a column holds decides how a table narrower than its terminal treats it, declared here once
 * for every table (COLUMN_KINDS): a column states its kind, else it is recognised from its header and its cells.
 *  - `id`: the row's own id (header "ID", or a first column of ids), what the next command needs: never cut, never
 *    hidden;
 *  - `label`: a status, an event type, a type: never cut, never hidden;
 *  - `amount`: money (every cell like "25.00 EUR"): never cut, hidden when there is no room;
 *  - `reference`: another record's id (cells that are or end in a uuid, or are one short word such as "tenant"):
 *    never cut, hidden when there is no room;
 *  - `date`: a timestamp: never cut, hidden when there is no room;
 *  - `text`: anything else: cut (ending in "…") down to a few characters, then hidden.
 * When the terminal is too narrow, the ids and labels are kept, then the most valuable of the other columns that fit
 * (amounts, references, dates, text; leftmost first among equals); the table then says what it hid or cut and how to
 * see it. Columns picked with --columns are all shown (only text is cut).
 */
export type ColumnKind = 'id' | 'label' | 'amount' | 'reference' | 'date' | 'text';

export interface Column<T> {
  header: string;
  get(row: T): unknown;
  /** what the column holds (default: recognised from the header and the cells, see kindOf) */
  kind?: ColumnKind;
}

interface KindRule {
  /** cut to fit (with "…"); otherwise each cell is whole, or the column hidden */
  cut: boolean;
  /** never hidden to fit (only --columns leaves it out) */
  essential: boolean;
  /** the order in which the other columns are kept when there is no room for all: the higher, the sooner */
  value: number;
}

/** How each kind of column fits a terminal: the one declaration every table follows. */
export const COLUMN_KINDS: Readonly<Record<ColumnKind, KindRule>> = {
  id: { cut: false, essential: true, value: 6 },
  label: { cut: false, essential: true, value: 5 },
  amount: { cut: false, essential: false, value: 4 },
  reference: { cut: false, essential: false, value: 3 },
  date: { cut: false, essential: false, value: 2 },
  text: { cut: true, essential: false, value: 1 },
};

/** Headers of the columns that hold a status, an event type or a type (labels), as --columns names them. */
const LABEL_HEADERS = new Set(['status', 'event-type', 'type', 'entry-type', 'transaction', 'verdict', 'outcome', 'decision']);
const UUID_AT_END = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\)?$/i;
const AMOUNT_CELL = /^-?[\d,]+(\.\d+)? [A-Z]{3}$/;
const DATE_CELL = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/;

/** A column's kind: as declared, else "ID" is the row's id, a label's header a label, else what every cell is. */
export function kindOf(header: string, cells: string[], declared?: ColumnKind): ColumnKind {
  if (declared) return declared;
  const name = columnName(header);
  if (name === 'id') return 'id';
  if (LABEL_HEADERS.has(name)) return 'label';
  const filled = cells.map((c) => stripVTControlCharacters(c).trim()).filter((c) => c !== '');
  if (!filled.length) return 'text';
  // ids, or a few words ending in one ("merchant 01a2…", "Acme (01a2…)"), beside single words ("tenant", "all")
  if (filled.some((c) => UUID_AT_END.test(c)) && filled.every((c) => UUID_AT_END.test(c) || /^\S{1,12}$/.test(c))) return 'reference';
  if (filled.every((c) => AMOUNT_CELL.test(c))) return 'amount';
  if (filled.every((c) => DATE_CELL.test(c))) return 'date';
  return 'text';
}

/**
 * How a table fits a terminal: the columns shown (indexes, in their order) and their widths, the columns hidden and
 * the columns cut. Ids and labels are never cut nor hidden, even when the table is then wider than the terminal.
 */
export interface TableLayout {
  shown: number[];
  widths: number[];
  hidden: number[];
  cut: number[];
}

/** The fewest characters a cut column keeps (its header's width when wider), unless the operator picked it. */
const CUT_FLOOR = 12;

/**
 * The layout of columns of `natural` widths and these kinds on a terminal `width` characters wide (COLUMN_KINDS).
 * Columns the operator picked (`picked`) are all shown, text cut as far as one character.
 */
export function layoutColumns(natural: number[], kinds: ColumnKind[], headerWidths: number[], width: number, picked = false): TableLayout {
  const rules = kinds.map((k) => COLUMN_KINDS[k]);
  // each column adds a space either side and a border; the last column its closing border too
  const frame = (n: number) => 3 * n + 1;
  const floor = (i: number) => (rules[i].cut ? Math.min(natural[i], picked ? 1 : Math.max(CUT_FLOOR, headerWidths[i])) : natural[i]);
  const least = (columns: number[]) => columns.reduce((sum, i) => sum + floor(i), 0) + frame(columns.length);
  const all = natural.map((_w, i) => i);
  let shown = all;
  if (!picked && least(shown) > width) {
    shown = all.filter((i) => rules[i].essential);
    const others = all.filter((i) => !rules[i].essential).sort((a, b) => rules[b].value - rules[a].value || a - b);
    for (const i of others) {
      const trial = [...shown, i].sort((a, b) => a - b);
      if (least(trial) <= width) shown = trial;
    }
  }
  const cuttable = shown.filter((i) => rules[i].cut);
  const fixed = shown.filter((i) => !rules[i].cut).reduce((sum, i) => sum + natural[i], 0);
  const room = Math.max(width - frame(shown.length) - fixed, 0);
  const cutWidths = fitWidths(
    cuttable.map((i) => natural[i]),
    room,
    cuttable.map(floor),
  );
  const widths = shown.map((i) => (rules[i].cut ? cutWidths[cuttable.indexOf(i)] : natural[i]));
  return { shown, widths, hidden: all.filter((i) => !shown.includes(i)), cut: shown.filter((i, at) => widths[at] < natural[i]) };
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
 * On a terminal the table fits its width (COLUMNS, else the terminal's) by the kinds of its columns (COLUMN_KINDS):
 * ids, labels, references, amounts and dates are never cut, text is cut (the widest first, each cut cell ending in
 * "…"), and the least valuable columns are hidden; a line under the table names what was hidden or cut and the flags
 * that show it. A pipe gets every cell whole. Under `csv` the rows are CSV with a header row, without colour.
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
  let note: string[] = [];
  if (width !== undefined && picked.length) {
    const natural = picked.map((_c, i) => Math.max(cellWidth(head[i]), ...body.map((cells) => cellWidth(cells[i]))));
    // the first column holding ids is the row's own (a "Delivery" or "Event" column): kept like "ID"
    const kinds = picked
      .map((c, i) =>
        kindOf(
          c.header,
          body.map((cells) => cells[i]),
          c.kind,
        ),
      )
      .map((k, i) => (i === 0 && k === 'reference' ? 'id' : k));
    const layout = layoutColumns(natural, kinds, head.map(cellWidth), width, options.columns !== undefined);
    head = layout.shown.map((i, at) => cutCell(head[i], layout.widths[at]));
    body = body.map((cells) => layout.shown.map((i, at) => cutCell(cells[i], layout.widths[at])));
    note = hiddenNote(
      picked.map((c) => columnName(c.header)),
      layout,
      width,
    );
  }
  // cli-table3 is loaded by the first table printed (serve prints none)
  const table = new (require('cli-table3') as typeof Table)({
    head: head.map((h) => (colour ? chalk.bold(h) : h)),
    // compact: the line under the header, none between rows
    style: { head: [], border: [], compact: true },
    wordWrap: false,
  });
  for (const cells of body) table.push(cells);
  const drawn = table.toString();
  return note.length ? [drawn, ...note.map((line) => (colour ? chalk.dim(line) : line))].join('\n') : drawn;
}

/** The lines under a table narrowed to its terminal: what was hidden and what cut, and the flags that show them. */
function hiddenNote(names: string[], layout: TableLayout, width: number): string[] {
  if (!layout.hidden.length && !layout.cut.length) return [];
  const lines: string[] = [];
  if (layout.hidden.length) lines.push(`Hidden to fit ${width} columns: ${layout.hidden.map((i) => names[i]).join(', ')}.`);
  if (layout.cut.length) lines.push(`Cut to fit (cells ending in …): ${layout.cut.map((i) => names[i]).join(', ')}.`);
  if (layout.hidden.length) {
    const pick = [...layout.shown.filter((i) => !layout.cut.includes(i)).slice(0, 1), ...layout.hidden].map((i) => names[i]).join(',');
    lines.push(`Show them: --columns ${pick}, or every column whole: --no-truncate.`);
  } else {
    lines.push('Every cell whole: --no-truncate.');
  }
  return lines.flatMap((line) => wrapWords(line, width));
}

/** A line broken at spaces into lines of at most `width` characters (a longer word stays whole on its own line). */
function wrapWords(line: string, width: number): string[] {
  const out: string[] = [];
  let current = '';
  for (const word of line.split(' ')) {
    if (current && displayWidth(`${current} ${word}`) > width) {
      out.push(current);
      current = word;
    } else {
      current = current ? `${current} ${word}` : word;
    }
  }
  if (current) out.push(current);
  return out;
}

/** The columns --columns names (by header, any case, kebab-case, snake_case or camelCase), in its order; all without it. */
function pickColumns<T>(columns: Column<T>[], names: string | undefined): Column<T>[] {
  if (names === undefined) return columns;
  const key = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');
  const valid = columns.map((c) => columnName(c.header)).join(', ');
  const wanted = names
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  if (!wanted.length) {
    throw new ValidationError('--columns names no column.', [{ path: '--columns', message: 'names no column' }], 'UNKNOWN_COLUMN', {
      hint: `Valid columns: ${valid}.`,
    });
  }
  const picked: Column<T>[] = [];
  for (const name of wanted) {
    const column = columns.find((c) => key(c.header) === key(name));
    if (!column) {
      throw new ValidationError(
        `Unknown column "${name}" for --columns. Valid columns: ${valid}.`,
        [{ path: '--columns', message: `"${name}" is not a column` }],
        'UNKNOWN_COLUMN',
        {
          hint: `Name columns by their headers, comma-separated, e.g. --columns ${columns
            .slice(0, 2)
            .map((c) => columnName(c.header))
            .join(',')}.`,
        },
      );
    }
    if (!picked.includes(column)) picked.push(column);
  }
  return picked;
}

/** A header as --columns names it: "Event type" is event-type. */
function columnName(header: string): string {
  return header
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
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
 * (each keeps at least its floor: one character unless given); what is left of the room goes back to the cut
 * columns, leftmost first.
 */
export function fitWidths(natural: number[], available: number, floors: number[] = natural.map(() => 1)): number[] {
  const total = natural.reduce((a, b) => a + b, 0);
  if (total <= available) return natural;
  const at = (cap: number) => natural.map((w, i) => Math.max(Math.min(w, floors[i]), Math.min(w, cap)));
  const sumAt = (cap: number) => at(cap).reduce((a, w) => a + w, 0);
  // the largest cap at which the columns fit (1 if none does: the table is then as narrow as it can be)
  let low = 1;
  let high = Math.max(...natural);
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (sumAt(mid) <= available) low = mid;
    else high = mid - 1;
  }
  const widths = at(low);
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
  if (
    code < 0x20 ||
    (code >= 0x7f && code < 0xa0) ||
    (code >= 0x300 && code <= 0x36f) ||
    code === 0x200b ||
    (code >= 0xfe00 && code <= 0xfe0f)
  )
    return 0;
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
export function logBesideTable(
  command: { log(message?: string): void; logToStderr(message?: string): void },
  options: TableOptions,
  line: string,
): void {
  if (options.csv) command.logToStderr(line);
  else command.log(line);
}

/**
 * Key/value lines of one record. Who acted (a createdBy, reviewedBy, … field holding an id) is shown by name and id
 * when the command loaded the names (BaseCommand.nameActors; src/cli/actors.ts).
 */
export function renderRecord(record: Record<string, unknown>): string {
  const width = Math.max(...Object.keys(record).map((k) => k.length));
  return Object.entries(record)
    .map(
      ([k, v]) =>
        `${colourEnabled() ? chalk.dim(k.padEnd(width)) : k.padEnd(width)}  ${formatCell(/By$/.test(k) && typeof v === 'string' ? actorLabel(v) : v)}`,
    )
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
