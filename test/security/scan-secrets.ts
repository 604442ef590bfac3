/**
 * Secrets at rest: looks for credentials and card data in plain text in what a test run leaves behind (issue 10 item 5).
 *
 *   npx tsc -p test/security/tsconfig.json && node .ci/build/test/security/scan-secrets.js <dir>…
 *
 * Each <dir> is a PAYPLANE_SECRET_SCAN_DIR (test/helpers/db.ts): `databases/` holds SQLite files (searched row by row
 * through SQLite, and byte by byte, so free pages, indexes and the -wal count too) and plain pg_dump files, `logs/`
 * the JSON logs of every process, and `canaries.txt` (`label<TAB>value` lines) values that must be found nowhere:
 * terminal credentials, withdrawal details, the PANs and secrets a workload used, each test home's master key and
 * token secret. Every other file in the dir is searched byte by byte as well.
 *
 * What counts as a finding, and what is left out on purpose:
 * - secret keys: `sk_live_`/`sk_test_` followed by more than the 16-character lookup prefix. The prefix alone is the
 *   public key's (`pk_…`, not secret) and cannot authenticate; public keys are not looked for.
 * - webhook signing secrets: `whsec_` followed by base64.
 * - checkout session client secrets (`cs_<mode>_<session>_secret_<random>`): a bearer credential of the customer's
 *   page; only its SHA-256 is meant to be stored.
 * - invitation tokens (`inv_` + 40 base62): single-use bearer tokens, stored as SHA-256 only.
 * - JWTs (`eyJ….eyJ….…`): user access tokens.
 * - card numbers: 13 to 19 digits, alone or in groups of 4 (6, 5) separated by one space or dash, Luhn-valid, starting
 *   with 2 to 6 (the ISO/IEC 7812 industry identifiers of the card schemes: 1, 7, 8, 9 and 0 are no payment cards,
 *   and a millisecond timestamp `17…` would otherwise match one time in ten), standing alone: not inside a longer
 *   letters-and-digits token (a hex digest, a base64 blob), nor the fraction of a decimal number, nor a UUID's last
 *   group run into the next byte of a SQLite index cell. The BIN (first 6) and the last 4 digits are kept on purpose
 *   and never match. Every card of the sandbox catalog (src/connectors/sandbox-card.ts) is also looked for as is, with
 *   spaces and with dashes, without the "alone" rule.
 * - IBANs: a known country's length and a valid mod-97 check (withdrawal details are sealed; reads show them masked).
 * - canaries: each value of every canaries.txt (8 characters or more), anywhere.
 * A finding prints the file, where in it (line and column, byte offset, or table, column and rowid), the kind and an
 * excerpt with the secret masked. The exit code is 1 when there is a finding, 2 when nothing could be scanned.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { luhnValid } from '../../src/services/payments/cards';
import { IBAN_LENGTHS, ibanProblem } from '../../src/services/withdrawal-methods/types';

export type FindingKind =
  'secret_key' | 'webhook_secret' | 'client_secret' | 'invitation_token' | 'jwt' | 'card_number' | 'iban' | 'canary';

export interface Finding {
  file: string;
  /** `line 3, column 17`, `byte 40961` or `table payments, column card, rowid 4` */
  where: string;
  kind: FindingKind;
  /** the canary's label, for kind canary */
  label?: string;
  /** the matched text with its middle masked, and some context around it */
  excerpt: string;
  /** the secret itself (never printed; for deduplication and tests) */
  value: string;
}

export interface ScanResult {
  files: { path: string; type: 'sqlite' | 'dump' | 'log' | 'other' }[];
  findings: Finding[];
  canaries: number;
}

export interface Canary {
  label: string;
  value: string;
}

// ---- detectors ----------------------------------------------------------------------------------------------------

interface Hit {
  kind: FindingKind;
  index: number;
  value: string;
  label?: string;
}

const PATTERNS: { kind: FindingKind; re: RegExp }[] = [
  // the random parts are bounded by their issued length: in a SQLite file the next value's bytes may follow at once
  { kind: 'secret_key', re: /sk_(?:live|test)_[A-Za-z0-9]{17,56}/g },
  { kind: 'webhook_secret', re: /whsec_[A-Za-z0-9+/]{16,43}={0,2}/g },
  { kind: 'client_secret', re: /cs_(?:live|test)_[0-9a-f]{32}_secret_[A-Za-z0-9]{8,32}/g },
  { kind: 'invitation_token', re: /inv_[A-Za-z0-9]{40}/g },
  { kind: 'jwt', re: /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}/g },
];

/**
 * 13-19 digits in one run, or in groups separated by one space or dash (the same one throughout), standing alone. Not
 * the all-digit last group of a UUID that a digit byte follows in a SQLite index cell (`…-ab50-243982981336` + `7`).
 */
const PAN_PLAIN = /(?<![A-Za-z0-9.]|[0-9a-fA-F]{4}-)[2-6]\d{12,18}(?![A-Za-z0-9]|\.\d)/g;
const PAN_GROUPED = /(?<![A-Za-z0-9.]|\d[ -])[2-6]\d{3}([ -])\d{4,6}\1\d{4,5}(?:\1\d{1,4}){0,2}(?![A-Za-z0-9]|[ -]\d)/g;

/**
 * A 13-digit number within 50 years of now read as milliseconds since 1970 is a timestamp (pino's "time", stored
 * dates), not a card: from 2033 they start with 2 and one in ten passes Luhn.
 */
export function epochMilliseconds(digits: string): boolean {
  if (digits.length !== 13) return false;
  const fiftyYears = 50 * 365.25 * 86_400_000;
  return Math.abs(Number(digits) - Date.now()) < fiftyYears;
}

/** the platform's own checks: a card number is Luhn-valid, an IBAN has its country's length and a valid mod-97 */
export { luhnValid };
export const ibanValid = (iban: string): boolean => ibanProblem(iban) === null;

const IBAN_START = /(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?=[ A-Z0-9])/g;

function findIbans(text: string, hits: Hit[]): void {
  for (const m of text.matchAll(IBAN_START)) {
    const length = IBAN_LENGTHS[m[0].slice(0, 2)];
    if (!length) continue;
    let i = m.index!;
    let compact = '';
    while (i < text.length && compact.length < length) {
      const ch = text[i];
      if (/[A-Z0-9]/.test(ch)) compact += ch;
      else if (!(ch === ' ' && /[A-Z0-9]/.test(text[i + 1] ?? ''))) break;
      i++;
    }
    if (compact.length === length && !/[A-Za-z0-9]/.test(text[i] ?? '') && ibanValid(compact))
      hits.push({ kind: 'iban', index: m.index!, value: text.slice(m.index!, i) });
  }
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** One regular expression for many literal strings (the longest first where one starts another). */
function literals(values: string[]): RegExp | null {
  return values.length
    ? new RegExp(
        [...values]
          .sort((a, b) => b.length - a.length)
          .map(escapeRegExp)
          .join('|'),
        'g',
      )
    : null;
}

/** Compiled detectors: the fixed patterns, the card catalog and the canaries. */
export class Detector {
  private readonly catalog: RegExp | null;
  private readonly canaries: RegExp | null;
  private readonly labels = new Map<string, string>();

  constructor(options: { catalog: string[]; canaries: Canary[] }) {
    this.catalog = literals(
      options.catalog.flatMap((pan) => [pan, pan.replace(/(\d{4})(?=\d)/g, '$1 '), pan.replace(/(\d{4})(?=\d)/g, '$1-')]),
    );
    for (const c of options.canaries) if (c.value.length >= 8 && !this.labels.has(c.value)) this.labels.set(c.value, c.label);
    this.canaries = literals([...this.labels.keys()]);
  }

  get canaryCount(): number {
    return this.labels.size;
  }

  /** Every secret in `text` (latin1 for bytes: one character per byte, so indexes are byte offsets). */
  find(text: string): Hit[] {
    const hits: Hit[] = [];
    for (const { kind, re } of PATTERNS) for (const m of text.matchAll(re)) hits.push({ kind, index: m.index!, value: m[0] });
    for (const re of [PAN_PLAIN, PAN_GROUPED]) {
      for (const m of text.matchAll(re)) {
        const digits = m[0].replace(/[ -]/g, '');
        if (digits.length >= 13 && digits.length <= 19 && luhnValid(digits) && !epochMilliseconds(digits))
          hits.push({ kind: 'card_number', index: m.index!, value: m[0] });
      }
    }
    if (this.catalog) for (const m of text.matchAll(this.catalog)) hits.push({ kind: 'card_number', index: m.index!, value: m[0] });
    findIbans(text, hits);
    if (this.canaries)
      for (const m of text.matchAll(this.canaries))
        hits.push({ kind: 'canary', index: m.index!, value: m[0], label: this.labels.get(m[0]) });
    // one hit per place: a catalog card found by the generic rule too, a canary that is also a key, …
    const unique = new Map<string, Hit>();
    for (const hit of hits.sort((a, b) => a.index - b.index || b.value.length - a.value.length)) {
      const key = `${hit.index}:${hit.value.replace(/[ -]/g, '')}`;
      if (!unique.has(key)) unique.set(key, hit);
    }
    return [...unique.values()];
  }
}

// ---- masking ------------------------------------------------------------------------------------------------------

/** The secret with its middle hidden: the pattern's prefix and a few characters, or a card's first 6 and last 4. */
export function maskValue(kind: FindingKind, value: string): string {
  if (kind === 'card_number') {
    const digits = value.replace(/[ -]/g, '');
    return `${digits.slice(0, 6)}${'*'.repeat(digits.length - 10)}${digits.slice(-4)}`;
  }
  if (kind === 'iban') return `${value.slice(0, 4)}…${value.slice(-4)} (${value.length} chars)`;
  const prefix = /^(sk_(?:live|test)_|whsec_|cs_(?:live|test)_|inv_|eyJ)/.exec(value)?.[0] ?? '';
  return `${value.slice(0, prefix.length + 4)}…(${value.length} chars)`;
}

/** Printable context: control bytes as '·', long tokens (other possible secrets) cut to their first 4 characters. */
function cleanContext(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '·').replace(/[A-Za-z0-9+/_=-]{16,}/g, (t) => `${t.slice(0, 4)}…`);
}

function excerptOf(text: string, hit: Hit): string {
  const before = cleanContext(text.slice(Math.max(0, hit.index - 32), hit.index));
  const after = cleanContext(text.slice(hit.index + hit.value.length, hit.index + hit.value.length + 32));
  return `${before}[${maskValue(hit.kind, hit.value)}]${after}`;
}

// ---- files --------------------------------------------------------------------------------------------------------

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

function lineOf(starts: number[], index: number): { line: number; column: number } {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= index) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: index - starts[lo] + 1 };
}

/** The COPY blocks of a plain pg_dump: from which line on, which table and its columns. */
function copyBlocks(text: string, starts: number[]): { first: number; last: number; table: string; columns: string[] }[] {
  const blocks: { first: number; last: number; table: string; columns: string[] }[] = [];
  for (const m of text.matchAll(/^COPY ([^\s(]+) \(([^)]*)\) FROM stdin;$/gm)) {
    const end = text.indexOf('\n\\.', m.index!);
    blocks.push({
      first: lineOf(starts, m.index!).line + 1,
      last: end < 0 ? Infinity : lineOf(starts, end).line,
      table: m[1],
      columns: m[2].split(',').map((c) => c.trim().replace(/^"|"$/g, '')),
    });
  }
  return blocks;
}

function scanText(file: string, text: string, detector: Detector, mode: 'bytes' | 'lines' | 'dump'): Finding[] {
  const hits = detector.find(text);
  if (!hits.length) return [];
  const starts = mode === 'bytes' ? [] : lineStarts(text);
  const blocks = mode === 'dump' ? copyBlocks(text, starts) : [];
  return hits.map((hit) => {
    let where = `byte ${hit.index}`;
    if (mode !== 'bytes') {
      const { line, column } = lineOf(starts, hit.index);
      where = `line ${line}, column ${column}`;
      // a row of a COPY block: its table and the column the tab count points at
      const block = blocks.find((b) => b.first <= line && line <= b.last);
      if (block) {
        const cell = text.slice(starts[line - 1], hit.index).split('\t').length - 1;
        where += ` (table ${block.table}, column ${block.columns[cell] ?? '?'})`;
      }
    }
    return { file, where, kind: hit.kind, label: hit.label, excerpt: excerptOf(text, hit), value: hit.value };
  });
}

function isSqlite(file: string): boolean {
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(16);
    fs.readSync(fd, head, 0, 16, 0);
    return head.toString('latin1') === 'SQLite format 3\0';
  } finally {
    fs.closeSync(fd);
  }
}

/** Every value of every row of a SQLite database (its -wal applied, on a copy), each searched on its own. */
async function scanSqliteRows(file: string, detector: Detector): Promise<Finding[]> {
  const sqlite3 = require('sqlite3') as typeof import('sqlite3');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'payplane-scan-'));
  const copy = path.join(tmp, 'scan.db');
  fs.copyFileSync(file, copy);
  if (fs.existsSync(`${file}-wal`)) fs.copyFileSync(`${file}-wal`, `${copy}-wal`);
  const db = await new Promise<import('sqlite3').Database>((resolve, reject) => {
    const opened = new sqlite3.Database(copy, (error) => (error ? reject(error) : resolve(opened)));
  });
  const all = <T>(sql: string) =>
    new Promise<T[]>((resolve, reject) => db.all(sql, (error: Error | null, rows: T[]) => (error ? reject(error) : resolve(rows))));
  const findings: Finding[] = [];
  try {
    const tables = await all<{ name: string; sql: string }>(
      "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
    );
    for (const { name, sql } of tables) {
      const rowid = /WITHOUT\s+ROWID/i.test(sql ?? '') ? 'NULL' : 'rowid';
      const rows = await all<Record<string, unknown>>(`SELECT ${rowid} AS "__rowid", * FROM "${name.replace(/"/g, '""')}"`);
      for (const row of rows) {
        // one search per row: its values joined by NUL (no pattern crosses one), each hit mapped back to its column
        const columns: { column: string; start: number; text: string }[] = [];
        let offset = 0;
        for (const [column, value] of Object.entries(row)) {
          if (column === '__rowid' || value === null || value === undefined) continue;
          const text = Buffer.isBuffer(value) ? value.toString('latin1') : String(value);
          columns.push({ column, start: offset, text });
          offset += text.length + 1;
        }
        const joined = columns.map((c) => c.text).join('\0');
        for (const hit of detector.find(joined)) {
          const cell = [...columns].reverse().find((c) => c.start <= hit.index)!;
          const local = { ...hit, index: hit.index - cell.start };
          findings.push({
            file,
            where: `table ${name}, column ${cell.column}, rowid ${row.__rowid}`,
            kind: hit.kind,
            label: hit.label,
            excerpt: excerptOf(cell.text, local),
            value: hit.value,
          });
        }
      }
    }
  } finally {
    await new Promise((resolve) => db.close(resolve));
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return findings;
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walk(full));
    else if (entry.isFile()) out.push(full);
  }
  return out.sort();
}

export function readCanaries(file: string): Canary[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.includes('\t'))
    .map((line) => {
      const tab = line.indexOf('\t');
      return { label: line.slice(0, tab), value: line.slice(tab + 1) };
    });
}

function repoRoot(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const pkg = path.join(dir, 'package.json');
    if (fs.existsSync(pkg) && (JSON.parse(fs.readFileSync(pkg, 'utf8')) as { name?: string }).name === 'payplane') return dir;
    if (path.dirname(dir) === dir) throw new Error('the payplane checkout was not found above the scanner');
  }
}

/** The sandbox acquirer's test cards (src/connectors/sandbox-card.ts SANDBOX_CARDS). */
export function sandboxCardCatalog(): string[] {
  const source = fs.readFileSync(path.join(repoRoot(), 'src', 'connectors', 'sandbox-card.ts'), 'utf8');
  const block = /SANDBOX_CARDS[^{]*\{([^}]*)\}/.exec(source)?.[1] ?? '';
  const cards = [...block.matchAll(/'(\d{13,19})'\s*:/g)].map((m) => m[1]);
  if (cards.length < 10) throw new Error(`src/connectors/sandbox-card.ts: SANDBOX_CARDS not found (${cards.length} cards read)`);
  return cards;
}

/** Scans every file under the dirs (canaries.txt files are the canaries, never scanned). */
export async function scanDirectories(dirs: string[], options: { canaries?: Canary[]; catalog?: string[] } = {}): Promise<ScanResult> {
  const files = dirs.flatMap((dir) => (fs.existsSync(dir) ? walk(dir) : []));
  const canaries = [...(options.canaries ?? []), ...files.filter((f) => path.basename(f) === 'canaries.txt').flatMap(readCanaries)];
  const detector = new Detector({ catalog: options.catalog ?? sandboxCardCatalog(), canaries });
  const result: ScanResult = { files: [], findings: [], canaries: detector.canaryCount };
  for (const file of files) {
    const base = path.basename(file);
    if (base === 'canaries.txt') continue;
    // a -wal is scanned with its database (the shared-memory index and a rollback journal hold no rows of their own)
    if (/\.db-(wal|shm|journal)$/.test(base) && files.includes(file.replace(/-(wal|shm|journal)$/, ''))) continue;
    if (isSqlite(file)) {
      result.files.push({ path: file, type: 'sqlite' });
      // the rows, with the -wal applied; then the bytes of the file and of its -wal for what no row shows (free pages
      // of deleted rows, indexes, older page versions in the -wal)
      const rows = await scanSqliteRows(file, detector);
      const seen = new Set(rows.map((f) => f.value.replace(/[ -]/g, '')));
      const raw: Finding[] = [];
      for (const part of [file, `${file}-wal`]) {
        if (!fs.existsSync(part)) continue;
        if (part !== file) result.files.push({ path: part, type: 'other' });
        raw.push(
          ...scanText(part, fs.readFileSync(part).toString('latin1'), detector, 'bytes').filter(
            (f) => !seen.has(f.value.replace(/[ -]/g, '')),
          ),
        );
      }
      result.findings.push(
        ...rows,
        ...raw.map((f) => ({ ...f, where: `${f.where} (in no row: a free page, an index or an older page version)` })),
      );
      continue;
    }
    const type = /\.sql$/.test(base) ? 'dump' : /\.(log|out|txt|json)$/.test(base) ? 'log' : 'other';
    result.files.push({ path: file, type });
    const buffer = fs.readFileSync(file);
    const mode = type === 'other' ? 'bytes' : type === 'dump' ? 'dump' : 'lines';
    result.findings.push(...scanText(file, type === 'other' ? buffer.toString('latin1') : buffer.toString('utf8'), detector, mode));
  }
  return result;
}

export function formatFinding(f: Finding, relativeTo = process.cwd()): string {
  return `${path.relative(relativeTo, f.file)}: ${f.where}: ${f.kind}${f.label ? ` (${f.label})` : ''}: ${f.excerpt}`;
}

export function summary(result: ScanResult): string {
  const count = (type: string) => result.files.filter((f) => f.type === type).length;
  return (
    `secret scan: ${result.files.length} files scanned (${count('sqlite')} SQLite databases, ${count('dump')} Postgres dumps, ${count('log')} logs, ` +
    `${count('other')} other), ${result.canaries} canaries, ${result.findings.length} findings`
  );
}

async function main(argv: string[]): Promise<number> {
  const dirs = argv.filter((a) => !a.startsWith('--'));
  if (!dirs.length) {
    console.error('usage: scan-secrets <scan dir>… (the PAYPLANE_SECRET_SCAN_DIR of test runs)');
    return 2;
  }
  const roots = dirs.map((d) => path.resolve(d));
  const result = await scanDirectories(roots);
  const limit = Number(process.env.SCAN_LIMIT ?? 200);
  for (const f of result.findings.slice(0, limit))
    console.log(formatFinding(f, roots.find((r) => f.file.startsWith(`${r}${path.sep}`)) ?? process.cwd()));
  if (result.findings.length > limit) console.log(`… and ${result.findings.length - limit} more findings`);
  console.log(summary(result));
  if (!result.files.length) {
    console.error('nothing was scanned: did the test run set PAYPLANE_SECRET_SCAN_DIR?');
    return 2;
  }
  return result.findings.length ? 1 : 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error) => {
      console.error(error);
      process.exit(2);
    },
  );
}
