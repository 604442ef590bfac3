import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { stripVTControlCharacters } from 'node:util';
import { createTestRuntime, dialectName, TEST_TOKEN_SECRET, type TestRuntime } from '../helpers/db';
import { BIN, ROOT, runCli } from '../helpers/cli';
import { testWhenPresent } from '../helpers/prerequisite';
import { operatorContext, systemContext } from '../../src/domain/authority';
import { withTransaction } from '../../src/domain/context';
import { createSandbox, type SandboxCredentials } from '../../src/services/sandbox';
import { createEndpoint } from '../../src/services/webhooks/endpoints';
import { emitEvent } from '../../src/services/webhooks/events';
import { fitWidths } from '../../src/cli/output';
import { parseCsv } from '../helpers/csv';

// Tables fit the terminal (issue 24 item 4): on a terminal the widest column is cut first, each cut cell ending in "…",
// and no line is drawn between rows; a pipe gets every cell whole. --columns, --no-truncate and --csv on every command
// that prints a table of rows (src/cli/flags.ts tableFlags, src/cli/output.ts renderTable).

let t: TestRuntime;
let env: Record<string, string>;
let sb: SandboxCredentials;
const cli = (args: string[], extra: Record<string, string | undefined> = {}) => runCli(args, { ...env, ...extra });

/** A last error long enough to be cut at 80 columns, with a comma, quotes and a line break for the CSV. */
const LONG_ERROR = 'HTTP 503 from https://receiver.example.test/hook: "Service Unavailable", upstream said: try again later\nretry-after 120 END-OF-ERROR';
const HEADERS = ['ID', 'Event type', 'Endpoint', 'Status', 'Attempts', 'Mode', 'Last error', 'Created'];
let deliveryIds: string[];
let failedId: string;

beforeAll(async () => {
  t = await createTestRuntime();
  env = { DATABASE_URL: t.db.url, PAYPLANE_HOME: t.db.home, PAYPLANE_TOKEN_SECRET: TEST_TOKEN_SECRET };
  sb = await createSandbox(t.rt, { name: 'Tables tenant' });
  const merchantCtx = operatorContext(t.rt, { level: 'merchant', tenantId: sb.tenantId, merchantId: sb.merchantId, livemode: false });
  await createEndpoint(merchantCtx, { url: 'https://receiver.example.test/hook', events: ['payment.*'] });
  for (const type of ['payment.created', 'payment.succeeded', 'payment.captured']) {
    await t.rt.db.transaction(async (tx) => {
      const ctx = withTransaction(systemContext(t.rt, false), tx);
      await emitEvent(ctx, { type, data: { id: `obj_${type}`, amount: { currency: 'EUR', valueMinor: 100 } }, tenantId: sb.tenantId, merchantId: sb.merchantId, livemode: false });
    });
  }
  const rows = await t.rt.db.models.WebhookDelivery.findAll({ where: { tenantId: sb.tenantId }, order: [['createdAt', 'DESC'], ['id', 'DESC']] });
  deliveryIds = rows.map((r) => r.get('id') as string);
  failedId = deliveryIds[1];
  await t.rt.db.models.WebhookDelivery.update({ status: 'failed', attemptCount: 10, lastError: LONG_ERROR }, { where: { id: failedId } });
}, 120_000);
afterAll(() => t?.close());

/** Exit 0, or the failure shows what the command said. */
const expectOk = (res: { status: number | null; stdout: string; stderr?: string }) =>
  expect({ status: res.status, said: res.status === 0 ? '' : `${res.stderr ?? ''}${res.stdout}`.slice(-2000) }).toEqual({ status: 0, said: '' });

/** The lines of a table's output that are part of the table (its borders and rows). */
const tableLines = (stdout: string) => stdout.split('\n').map((l) => l.replace(/\r$/, '')).filter((l) => /^[┌├│└]/.test(l));
/** The cells of a table line. */
const cells = (line: string) => line.split('│').slice(1, -1).map((c) => c.trim());

/** The cells of each row of a table (a line whose first cell is empty continues the row above it). */
const rowsOf = (table: string[]) => table.slice(3, -1).map(cells).filter((r) => r[0] !== '');


// a real terminal through script(1) (util-linux): the table is drawn for a terminal of the width asked
const hasScript = spawnSync('script', ['--version']).status === 0;
const onTerminal = testWhenPresent('the terminal tests', hasScript ? null : 'no `script` command (util-linux)');

/** The CLI on a pseudo-terminal: `stty cols` sets its width (or COLUMNS when given); stdout and stderr both land in stdout. */
function terminal(args: string[], options: { cols?: number; columns?: string } = {}) {
  const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} ${args.map((a) => JSON.stringify(a)).join(' ')}`;
  const fullEnv: NodeJS.ProcessEnv = { ...process.env, ...env, NO_COLOR: '1' };
  delete fullEnv.NODE_ENV;
  delete fullEnv.COLUMNS;
  if (options.columns !== undefined) fullEnv.COLUMNS = options.columns;
  const res = spawnSync('script', ['-qec', options.cols ? `stty cols ${options.cols} rows 50; ${command}` : command, '/dev/null'], {
    cwd: ROOT,
    env: fullEnv,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: res.status, stdout: res.stdout.replace(/\r\n/g, '\n') };
}

const LIST = ['webhooks', 'deliveries', 'list', '--tenant', '<tenant>'];
const list = (...more: string[]) => [...LIST.map((a) => (a === '<tenant>' ? sb.tenantId : a)), ...more];

describe(`tables fit the terminal (${dialectName})`, () => {
  onTerminal('at 80 columns (stty) no line exceeds 80 characters, long cells end in "…", and no line is drawn between rows', () => {
    const res = terminal(list(), { cols: 80 });
    expectOk(res);
    const lines = res.stdout.split('\n');
    expect(lines.filter((l) => [...stripVTControlCharacters(l)].length > 80)).toEqual([]);
    const table = tableLines(res.stdout);
    // top border, header, the line under it, one line a row (two for the error with a line break), bottom border:
    // nothing between the rows
    expect(table).toHaveLength(deliveryIds.length + 5);
    expect(table.filter((l) => l.startsWith('├'))).toHaveLength(1);
    expect(table[2].startsWith('├')).toBe(true);
    expect(table.every((l) => [...l].length === [...table[0]].length)).toBe(true);
    const rows = rowsOf(table);
    expect(rows).toHaveLength(deliveryIds.length);
    // the ids were cut (the widest columns first) and say so; the narrow columns are whole
    expect(rows.every((r) => r[0].endsWith('…') && deliveryIds.some((id) => id.startsWith(r[0].slice(0, -1))))).toBe(true);
    expect(rows.map((r) => r[5])).toEqual(['test', 'test', 'test']);
    expect(rows.map((r) => r[3]).sort()).toEqual(['failed', 'pending', 'pending']);
    expect(res.stdout).not.toContain('END-OF-ERROR');
    // the footer is still there
    expect(res.stdout).toContain(`${deliveryIds.length} of ${deliveryIds.length}`);
  });

  onTerminal('COLUMNS sets the width on a terminal (here without a stty size), and a wider terminal cuts less', () => {
    const narrow = terminal(list(), { columns: '80' });
    expectOk(narrow);
    expect(tableLines(narrow.stdout).every((l) => [...l].length <= 80)).toBe(true);
    expect(tableLines(narrow.stdout)[0]).toHaveLength(80);
    const wide = terminal(list('--columns', 'id,status,last-error'), { columns: '120' });
    expectOk(wide);
    const table = tableLines(wide.stdout);
    expect(table.every((l) => [...l].length <= 120)).toBe(true);
    // three columns at 120: the ids and statuses whole, the long error cut (each of its lines)
    const rows = rowsOf(table);
    expect(rows.map((r) => r[0])).toEqual(deliveryIds);
    const failed = rows.find((r) => r[0] === failedId)!;
    expect(failed[1]).toBe('failed');
    expect(failed[2]).toMatch(/^HTTP 503 from https:\/\/receiver.example.test\/hook: .*…$/);
    expect(wide.stdout).toContain('retry-after 120 END-OF-ERROR');
  });

  onTerminal('--no-truncate keeps every cell whole on a terminal', () => {
    const res = terminal(list('--no-truncate'), { cols: 80 });
    expectOk(res);
    for (const id of deliveryIds) expect(res.stdout).toContain(id);
    expect(res.stdout).toContain('retry-after 120 END-OF-ERROR');
    expect(res.stdout).toContain('"Service Unavailable", upstream said: try again later');
    expect(res.stdout).not.toContain('…');
    // still no line between rows (the error's second line is a line of its row)
    expect(tableLines(res.stdout).filter((l) => l.startsWith('├'))).toHaveLength(1);
  });

  test('a pipe (not a terminal) gets every cell whole, whatever COLUMNS says', async () => {
    for (const extra of [{}, { COLUMNS: '40' }]) {
      const res = await cli(list(), extra);
      expectOk(res);
      for (const id of deliveryIds) expect(res.stdout).toContain(id);
      expect(res.stdout).toContain('retry-after 120 END-OF-ERROR');
      expect(res.stdout).not.toContain('…');
      const table = tableLines(res.stdout);
      expect(table.filter((l) => l.startsWith('├'))).toHaveLength(1);
      // a row a line, but the failed one: its error holds a line break
      expect(table).toHaveLength(deliveryIds.length + 5);
    }
  });

  test('--columns picks and orders the columns by header: any case, kebab-case or camelCase', async () => {
    for (const columns of ['status,ID,event-type', 'STATUS,id,eventType', 'Status, Id, Event Type', 'status,id,event_type,id']) {
      const res = await cli(list('--columns', columns));
      expectOk(res);
      const table = tableLines(res.stdout);
      expect(cells(table[1])).toEqual(['Status', 'ID', 'Event type']);
      const rows = table.slice(3, -1).map(cells);
      expect(rows.map((r) => r[1])).toEqual(deliveryIds);
      expect(rows.find((r) => r[1] === failedId)![0]).toBe('failed');
      expect(res.stdout).not.toContain('END-OF-ERROR');
    }
  });

  test('an unknown column is a usage error (exit 2) naming the valid columns', async () => {
    const res = await cli(list('--columns', 'id,colour'));
    expect(res.status).toBe(2);
    const said = res.stderr.replace(/\s*›\s*/g, ' ');
    expect(said).toContain('Unknown column "colour" for --columns');
    expect(said).toContain('Valid columns: id, event-type, endpoint, status, attempts, mode, last-error, created.');
    expect(res.stdout).toBe('');
    const json = await cli(list('--columns', 'colour', '--json'));
    expect(json.status).toBe(2);
    expect(json.json().error).toMatchObject({ code: 'UNKNOWN_COLUMN', status: 400, errors: [{ path: '--columns' }] });
    const none = await cli(list('--columns', ','));
    expect(none.status).toBe(2);
    expect(none.stderr).toContain('--columns names no column');
  });

  test('--csv: RFC 4180 with a header row; a field holding a comma, a quote or a line break is quoted; no footer on stdout', async () => {
    const res = await cli(list('--csv'));
    expectOk(res);
    expect(res.stdout).toContain(`"${LONG_ERROR.replace(/"/g, '""')}"`);
    const records = parseCsv(res.stdout, { anyLineEnd: true });
    expect(records[0]).toEqual(HEADERS);
    expect(records.slice(1).map((r) => r[0])).toEqual(deliveryIds);
    expect(records.every((r) => r.length === HEADERS.length)).toBe(true);
    const failed = records.find((r) => r[0] === failedId)!;
    expect(failed.slice(3, 7)).toEqual(['failed', '10/10', 'test', LONG_ERROR]);
    // the footer goes to stderr: stdout is the CSV alone
    expect(res.stdout).not.toMatch(/\d+ of \d+/);
    expect(res.stderr).toContain(`${deliveryIds.length} of ${deliveryIds.length}`);
    // with --columns, those columns in that order
    const picked = parseCsv((await cli(list('--csv', '--columns', 'last-error,id'))).stdout, { anyLineEnd: true });
    expect(picked[0]).toEqual(['Last error', 'ID']);
    expect(picked.find((r) => r[1] === failedId)).toEqual([LONG_ERROR, failedId]);
  });

  test('--csv has no colour even where colour is forced, and no "No payments." line for an empty list', async () => {
    const coloured = await cli(['webhooks', 'endpoints', 'list', '--tenant', sb.tenantId, '--merchant', sb.merchantId, '--csv'], { NO_COLOR: undefined, FORCE_COLOR: '1' });
    expectOk(coloured);
    expect(coloured.stdout).not.toMatch(/\u001b\[/);
    const records = parseCsv(coloured.stdout, { anyLineEnd: true });
    expect(records[0][0]).toBe('ID');
    expect(records).toHaveLength(2);
    expect(records[1]).toContain('enabled');
    // the table itself is coloured then (the check above is not vacuous)
    const table = await cli(['webhooks', 'endpoints', 'list', '--tenant', sb.tenantId, '--merchant', sb.merchantId], { NO_COLOR: undefined, FORCE_COLOR: '1' });
    expect(table.stdout).toMatch(/\u001b\[/);
    const empty = await cli(['payments', 'list', '--tenant', sb.tenantId, '--csv', '--columns', 'id,status']);
    expectOk(empty);
    expect(empty.stdout).toBe('ID,Status\n');
    expect((await cli(['payments', 'list', '--tenant', sb.tenantId])).stdout).toContain('No payments.');
  });

  onTerminal('--csv on a terminal is not cut to its width either', () => {
    const res = terminal(list('--csv'), { cols: 40 });
    expectOk(res);
    for (const id of deliveryIds) expect(res.stdout).toContain(id);
    expect(res.stdout).toContain('retry-after 120 END-OF-ERROR');
  });

  test('under --json nothing changes: the page, whatever the table flags', async () => {
    const plain = await cli(list('--json'));
    const flagged = await cli(list('--json', '--csv', '--columns', 'id', '--no-truncate'));
    expectOk(flagged);
    expect(flagged.json()).toEqual(plain.json());
    expect(flagged.json().data.map((d: { id: string }) => d.id)).toEqual(deliveryIds);
    expect(flagged.stderr).toBe('');
  });

  test('the flags reach the tables drawn by shared helpers and the commands whose footers are their own', async () => {
    const merchants = await cli(['merchants', 'list', '--tenant', sb.tenantId, '--csv', '--columns', 'name,id']);
    expectOk(merchants);
    expect(parseCsv(merchants.stdout, { anyLineEnd: true })).toEqual([['Name', 'ID'], [expect.any(String), sb.merchantId]]);
    expect(merchants.stderr).toContain('1 of 1');
    const tenants = await cli(['tenants', 'list', '--columns', 'name']);
    expectOk(tenants);
    expect(cells(tableLines(tenants.stdout)[1])).toEqual(['Name']);
    expect(tenants.stdout).toContain('Tables tenant');
    expect(tenants.stdout).not.toContain(sb.tenantId);
    const config = await cli(['config', 'show', '--csv', '--columns', 'key,source']);
    expectOk(config);
    expect(parseCsv(config.stdout, { anyLineEnd: true })[0]).toEqual(['Key', 'Source']);
    expect(config.stderr).toContain('Configuration file:');
  });

  test('every command that lists pages of rows takes --columns, --no-truncate and --csv', () => {
    const manifest = JSON.parse(fs.readFileSync(`${ROOT}/oclif.manifest.json`, 'utf8')) as { commands: Record<string, { flags: Record<string, { type: string }> }> };
    const lists = Object.entries(manifest.commands).filter(([, c]) => c.flags.cursor);
    expect(lists.length).toBeGreaterThanOrEqual(35);
    const missing = lists.filter(([, c]) => c.flags.columns?.type !== 'option' || c.flags['no-truncate']?.type !== 'boolean' || c.flags.csv?.type !== 'boolean').map(([id]) => id);
    expect(missing).toEqual([]);
  });
});

describe('fitWidths (the widest column is cut first)', () => {
  test('columns that fit are left alone', () => {
    expect(fitWidths([10, 20, 5], 35)).toEqual([10, 20, 5]);
    expect(fitWidths([10, 20, 5], 100)).toEqual([10, 20, 5]);
  });

  test('the widest column shrinks to the next widest before that one is cut', () => {
    expect(fitWidths([10, 30, 5], 35)).toEqual([10, 20, 5]);
    expect(fitWidths([10, 30, 5], 25)).toEqual([10, 10, 5]);
    // then both, evenly; an odd character left goes to the leftmost cut column
    expect(fitWidths([10, 30, 5], 22)).toEqual([9, 8, 5]);
    expect(fitWidths([36, 17, 36, 9, 8, 4, 120, 24], 55).reduce((a, b) => a + b, 0)).toBe(55);
  });

  test('no room: every column keeps one character', () => {
    expect(fitWidths([10, 30, 5], 2)).toEqual([1, 1, 1]);
  });
});
