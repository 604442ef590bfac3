import fs from 'node:fs';
import { stripVTControlCharacters } from 'node:util';
import { dialectName } from '../helpers/db';
import { ROOT, hasScript, runOnTerminal, useCliSandbox } from '../helpers/cli';
import { testWhenPresent } from '../helpers/prerequisite';
import { systemContext } from '../../src/domain/authority';
import { operatorContext } from '../../src/services/access/operators';
import { withTransaction } from '../../src/domain/context';
import { createSandbox } from '../../src/services/sandbox/provision';
import { createEndpoint } from '../../src/services/webhooks/endpoints';
import { emitEvent } from '../../src/services/webhooks/events';
import { fitWidths, kindOf, layoutColumns, renderTable, COLUMN_KINDS } from '../../src/cli/output';
import { parseCsv } from '../helpers/csv';

// Tables fit the terminal (issue 24 item 4): on a terminal the widest column is cut first, each cut cell ending in "…",
// and no line is drawn between rows; a pipe gets every cell whole. --columns, --no-truncate and --csv on every command
// that prints a table of rows (src/cli/flags.ts tableFlags, src/cli/output.ts renderTable).

const t = useCliSandbox({ sandbox: { name: 'Tables tenant' }, runtime: true });
const cli = (args: string[], extra: Record<string, string | undefined> = {}) => t.cliWith(extra, ...args);

/** A last error long enough to be cut at 80 columns, with a comma, quotes and a line break for the CSV. */
const LONG_ERROR =
  'HTTP 503 from https://receiver.example.test/hook: "Service Unavailable", upstream said: try again later\nretry-after 120 END-OF-ERROR';
const HEADERS = ['ID', 'Event type', 'Endpoint', 'Status', 'Attempts', 'Mode', 'Last error', 'Created'];
let deliveryIds: string[];
let failedId: string;

beforeAll(async () => {
  const merchantCtx = operatorContext(t.rt, {
    level: 'merchant',
    tenantId: t.sandbox.tenantId,
    merchantId: t.sandbox.merchantId,
    livemode: false,
  });
  await createEndpoint(merchantCtx, { url: 'https://receiver.example.test/hook', events: ['payment.*'] });
  for (const type of ['payment.created', 'payment.succeeded', 'payment.captured']) {
    await t.rt.db.transaction(async (tx) => {
      const ctx = withTransaction(systemContext(t.rt, false), tx);
      await emitEvent(ctx, {
        type,
        data: { id: `obj_${type}`, amount: { currency: 'EUR', valueMinor: 100 } },
        tenantId: t.sandbox.tenantId,
        merchantId: t.sandbox.merchantId,
        livemode: false,
      });
    });
  }
  const rows = await t.rt.db.models.WebhookDelivery.findAll({
    where: { tenantId: t.sandbox.tenantId },
    order: [
      ['createdAt', 'DESC'],
      ['id', 'DESC'],
    ],
  });
  deliveryIds = rows.map((r) => r.get('id') as string);
  failedId = deliveryIds[1];
  await t.rt.db.models.WebhookDelivery.update({ status: 'failed', attemptCount: 10, lastError: LONG_ERROR }, { where: { id: failedId } });
}, 120_000);

/** Exit 0, or the failure shows what the command said. */
const expectOk = (res: { status: number | null; stdout: string; stderr?: string }) =>
  expect({ status: res.status, said: res.status === 0 ? '' : `${res.stderr ?? ''}${res.stdout}`.slice(-2000) }).toEqual({
    status: 0,
    said: '',
  });

/** The lines of a table's output that are part of the table (its borders and rows). */
const tableLines = (stdout: string) =>
  stdout
    .split('\n')
    .map((l) => l.replace(/\r$/, ''))
    .filter((l) => /^[┌├│└]/.test(l));
/** The cells of a table line. */
const cells = (line: string) =>
  line
    .split('│')
    .slice(1, -1)
    .map((c) => c.trim());

/** The cells of each row of a table (a line whose first cell is empty continues the row above it). */
const rowsOf = (table: string[]) =>
  table
    .slice(3, -1)
    .map(cells)
    .filter((r) => r[0] !== '');

// a real terminal through script(1) (util-linux): the table is drawn for a terminal of the width asked
const onTerminal = testWhenPresent('the terminal tests', hasScript() ? null : 'no `script` command (util-linux)');

/** The CLI on a pseudo-terminal: `stty cols` sets its width (or COLUMNS when given); stdout and stderr both land in stdout. */
async function terminal(args: string[], options: { cols?: number; columns?: string } = {}) {
  const res = await runOnTerminal(args, { cols: options.cols, env: { ...t.env, NODE_ENV: undefined, COLUMNS: options.columns } });
  return { status: res.status, stdout: res.output.replace(/\r\n/g, '\n') };
}

const LIST = ['webhooks', 'deliveries', 'list', '--tenant', '<tenant>'];
const list = (...more: string[]) => [...LIST.map((a) => (a === '<tenant>' ? t.sandbox.tenantId : a)), ...more];

describe(`tables fit the terminal (${dialectName})`, () => {
  // issue 32 item 4: ids, event types and statuses are never cut (they are what the next command needs); the columns
  // of less value are narrowed or hidden first, and the table says what it hid and how to see it
  onTerminal(
    'at 80 columns (stty) no line exceeds 80 characters; ids, event types and statuses are whole; the hidden columns are named with the flags that show them',
    async () => {
      const res = await terminal(list(), { cols: 80 });
      expectOk(res);
      const lines = res.stdout.split('\n');
      expect(lines.filter((l) => [...stripVTControlCharacters(l)].length > 80)).toEqual([]);
      const table = tableLines(res.stdout);
      // top border, header, the line under it, one line a row, bottom border: nothing between the rows
      expect(table).toHaveLength(deliveryIds.length + 4);
      expect(table.filter((l) => l.startsWith('├'))).toHaveLength(1);
      expect(table[2].startsWith('├')).toBe(true);
      expect(table.every((l) => [...l].length === [...table[0]].length)).toBe(true);
      // the ids, event types and statuses whole: what the next command needs is never cut
      expect(cells(table[1])).toEqual(['ID', 'Event type', 'Status', 'Mode']);
      const rows = rowsOf(table);
      expect(rows.map((r) => r[0])).toEqual(deliveryIds);
      expect(rows.map((r) => r[1]).sort()).toEqual(['payment.captured', 'payment.created', 'payment.succeeded']);
      expect(rows.map((r) => r[2]).sort()).toEqual(['failed', 'pending', 'pending']);
      expect(rows.map((r) => r[3])).toEqual(['test', 'test', 'test']);
      expect(res.stdout).not.toContain('…');
      expect(res.stdout).not.toContain('END-OF-ERROR');
      // what was hidden, and how to see it
      const note = res.stdout.slice(res.stdout.lastIndexOf('└')).split('\n').slice(1).join(' ').replace(/\s+/g, ' ');
      expect(note).toContain('Hidden to fit 80 columns: endpoint, attempts, last-error, created.');
      expect(note).toContain('Show them: --columns id,endpoint,attempts,last-error,created, or every column whole: --no-truncate.');
      // the footer is still there
      expect(res.stdout).toContain(`${deliveryIds.length} of ${deliveryIds.length}`);
    },
  );

  onTerminal(
    'the hint shows them: --columns picked at 100 columns shows every picked column (only text is cut), and says what it cut',
    async () => {
      const res = await terminal(list('--columns', 'id,endpoint,last-error'), { cols: 100 });
      expectOk(res);
      const table = tableLines(res.stdout);
      expect(cells(table[1])).toEqual(['ID', 'Endpoint', 'Last error']);
      const rows = rowsOf(table);
      expect(rows.map((r) => r[0])).toEqual(deliveryIds);
      // the endpoint (another record's id) whole too; the error cut to what is left
      expect(new Set(rows.map((r) => r[1])).size).toBe(1);
      expect(rows[0][1]).toMatch(/^[0-9a-f-]{36}$/);
      expect(table.every((l) => [...l].length <= 100)).toBe(true);
      expect(res.stdout).toContain('Cut to fit (cells ending in …): last-error.');
      expect(res.stdout).toContain('Every cell whole: --no-truncate.');
      expect(res.stdout).not.toContain('Hidden to fit');
    },
  );

  onTerminal(
    'a terminal too narrow for the ids and labels alone keeps them whole (the table is then wider than the terminal)',
    async () => {
      const res = await terminal(list(), { cols: 40 });
      expectOk(res);
      const rows = rowsOf(tableLines(res.stdout));
      expect(rows.map((r) => r[0])).toEqual(deliveryIds);
      expect(rows.map((r) => r[2]).sort()).toEqual(['failed', 'pending', 'pending']);
      expect(res.stdout.replace(/\s+/g, ' ')).toContain('Hidden to fit 40 columns: endpoint, attempts, mode, last-error, created.');
    },
  );

  onTerminal(
    "amounts and another record's id are never cut either: payments list and keys list at 80 columns",
    async () => {
      // a tenant of its own: its payments' events reach no endpoint of the deliveries listed above
      const other = await createSandbox(t.rt, { name: 'Tables payments tenant' });
      expectOk(await cli(['events', 'trigger', 'payment.succeeded', '--tenant', other.tenantId, '--merchant', other.merchantId, '--json']));
      const payments = await terminal(['payments', 'list', '--tenant', other.tenantId], { cols: 80 });
      expectOk(payments);
      const ids = await cli(['payments', 'list', '--tenant', other.tenantId, '--csv', '--columns', 'id,amount']);
      const table = tableLines(payments.stdout);
      const header = cells(table[1]);
      expect(header.slice(0, 3)).toEqual(['ID', 'Status', 'Amount']);
      const rows = rowsOf(table);
      expect(rows.length).toBeGreaterThan(0);
      const expected = parseCsv(ids.stdout, { anyLineEnd: true }).slice(1);
      expect(rows.map((r) => [r[0], r[2]])).toEqual(expected);
      expect(payments.stdout).not.toMatch(/[0-9a-f]…|EU…|\d…/);
      // "merchant <id>" is another record's id: hidden at 80 columns rather than cut, whole when asked for
      const hidden = await terminal(['keys', 'list', '--tenant', t.sandbox.tenantId], { cols: 80 });
      expectOk(hidden);
      expect(hidden.stdout).toMatch(/Hidden to fit 80 columns: owner/);
      expect(hidden.stdout).not.toMatch(/merchant [0-9a-f-]*…/);
      const keys = await terminal(['keys', 'list', '--tenant', t.sandbox.tenantId, '--columns', 'id,owner,status'], { cols: 80 });
      expectOk(keys);
      const owners = rowsOf(tableLines(keys.stdout)).map((r) => r[cells(tableLines(keys.stdout)[1]).indexOf('Owner')]);
      expect(owners).toContain(`merchant ${t.sandbox.merchantId}`);
    },
    120_000,
  );

  onTerminal(
    'COLUMNS sets the width on a terminal (here without a stty size), and a wider terminal cuts less',
    async () => {
      const narrow = await terminal(list(), { columns: '80' });
      expectOk(narrow);
      expect(tableLines(narrow.stdout).every((l) => [...l].length <= 80)).toBe(true);
      expect(narrow.stdout).toContain('Hidden to fit 80 columns:');
      const wider = await terminal(list(), { columns: '160' });
      expect(cells(tableLines(wider.stdout)[1])).toEqual(expect.arrayContaining(['Endpoint', 'Attempts', 'Created']));
      expect(tableLines(wider.stdout).every((l) => [...l].length <= 160)).toBe(true);
      const wide = await terminal(list('--columns', 'id,status,last-error'), { columns: '120' });
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
    },
    120_000,
  );

  onTerminal('--no-truncate keeps every cell whole on a terminal', async () => {
    const res = await terminal(list('--no-truncate'), { cols: 80 });
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
    const coloured = await cli(
      ['webhooks', 'endpoints', 'list', '--tenant', t.sandbox.tenantId, '--merchant', t.sandbox.merchantId, '--csv'],
      { NO_COLOR: undefined, FORCE_COLOR: '1' },
    );
    expectOk(coloured);
    expect(coloured.stdout).not.toMatch(/\u001b\[/);
    const records = parseCsv(coloured.stdout, { anyLineEnd: true });
    expect(records[0][0]).toBe('ID');
    expect(records).toHaveLength(2);
    expect(records[1]).toContain('enabled');
    // the table itself is coloured then (the check above is not vacuous)
    const table = await cli(['webhooks', 'endpoints', 'list', '--tenant', t.sandbox.tenantId, '--merchant', t.sandbox.merchantId], {
      NO_COLOR: undefined,
      FORCE_COLOR: '1',
    });
    expect(table.stdout).toMatch(/\u001b\[/);
    const empty = await cli(['payments', 'list', '--tenant', t.sandbox.tenantId, '--csv', '--columns', 'id,status']);
    expectOk(empty);
    expect(empty.stdout).toBe('ID,Status\n');
    expect((await cli(['payments', 'list', '--tenant', t.sandbox.tenantId])).stdout).toContain('No payments.');
  });

  onTerminal('--csv on a terminal is not cut to its width either', async () => {
    const res = await terminal(list('--csv'), { cols: 40 });
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
    const merchants = await cli(['merchants', 'list', '--tenant', t.sandbox.tenantId, '--csv', '--columns', 'name,id']);
    expectOk(merchants);
    expect(parseCsv(merchants.stdout, { anyLineEnd: true })).toEqual([
      ['Name', 'ID'],
      [expect.any(String), t.sandbox.merchantId],
    ]);
    expect(merchants.stderr).toContain('1 of 1');
    const tenants = await cli(['tenants', 'list', '--columns', 'name']);
    expectOk(tenants);
    expect(cells(tableLines(tenants.stdout)[1])).toEqual(['Name']);
    expect(tenants.stdout).toContain('Tables tenant');
    expect(tenants.stdout).not.toContain(t.sandbox.tenantId);
    const config = await cli(['config', 'show', '--csv', '--columns', 'key,source']);
    expectOk(config);
    expect(parseCsv(config.stdout, { anyLineEnd: true })[0]).toEqual(['Key', 'Source']);
    expect(config.stderr).toContain('Configuration file:');
  });

  test('every command that lists pages of rows takes --columns, --no-truncate and --csv', () => {
    const manifest = JSON.parse(fs.readFileSync(`${ROOT}/oclif.manifest.json`, 'utf8')) as {
      commands: Record<string, { flags: Record<string, { type: string }> }>;
    };
    const lists = Object.entries(manifest.commands).filter(([, c]) => c.flags.cursor);
    expect(lists.length).toBeGreaterThanOrEqual(35);
    const missing = lists
      .filter(
        ([, c]) => c.flags.columns?.type !== 'option' || c.flags['no-truncate']?.type !== 'boolean' || c.flags.csv?.type !== 'boolean',
      )
      .map(([id]) => id);
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

describe('column kinds (declared once: COLUMN_KINDS, kindOf, layoutColumns)', () => {
  const UUID = '01a2257a-c3f1-7a2b-9c1d-2e3f4a5b6c7d';
  test('a column is recognised from its header and its cells, unless it declares its kind', () => {
    expect(kindOf('ID', [UUID])).toBe('id');
    expect(kindOf('Status', ['succeeded'])).toBe('label');
    expect(kindOf('Event type', ['payment.succeeded'])).toBe('label');
    expect(kindOf('Merchant', [UUID, ''])).toBe('reference');
    expect(kindOf('Owner', [`merchant ${UUID}`, 'tenant'])).toBe('reference');
    expect(kindOf('Approved', [`alice (${UUID})`])).toBe('reference');
    expect(kindOf('Amount', ['25.00 EUR', '1,500 JPY', '-1.234 BHD'])).toBe('amount');
    expect(kindOf('Created', ['2026-11-29T05:49:39.123Z'])).toBe('date');
    expect(kindOf('Last error', ['HTTP 503 from https://receiver.example.test/hook'])).toBe('text');
    expect(kindOf('Name', ['Sandbox merchant'], 'label')).toBe('label');
    // only text is ever cut; ids and labels are never hidden
    expect(
      Object.entries(COLUMN_KINDS)
        .filter(([, k]) => k.cut)
        .map(([n]) => n),
    ).toEqual(['text']);
    expect(
      Object.entries(COLUMN_KINDS)
        .filter(([, k]) => k.essential)
        .map(([n]) => n)
        .sort(),
    ).toEqual(['id', 'label']);
  });

  test("renderTable on a 60-column terminal: a first column of ids is the row's own, whole; statuses whole; the rest hidden or cut, and said", () => {
    const tty = Object.getOwnPropertyDescriptor(process.stdout, 'isTTY');
    const columns = process.env.COLUMNS;
    Object.defineProperty(process.stdout, 'isTTY', { value: true, configurable: true });
    process.env.COLUMNS = '60';
    try {
      const rows = [{ id: UUID, endpoint: UUID.replace(/^01/, '02'), status: 'succeeded', error: 'x'.repeat(80) }];
      const drawn = stripVTControlCharacters(
        renderTable(rows, [
          { header: 'Delivery', get: (r) => r.id },
          { header: 'Endpoint', get: (r) => r.endpoint },
          { header: 'Status', get: (r) => r.status },
          { header: 'Last error', get: (r) => r.error },
        ]),
      );
      const table = tableLines(drawn);
      expect(cells(table[1])).toEqual(['Delivery', 'Status']);
      expect(cells(table[3])).toEqual([UUID, 'succeeded']);
      expect(drawn.split('\n').every((l) => [...l].length <= 60)).toBe(true);
      expect(drawn.replace(/\s+/g, ' ')).toContain('Hidden to fit 60 columns: endpoint, last-error.');
      expect(drawn).toContain('--no-truncate');
    } finally {
      if (tty) Object.defineProperty(process.stdout, 'isTTY', tty);
      else delete (process.stdout as { isTTY?: boolean }).isTTY;
      if (columns === undefined) delete process.env.COLUMNS;
      else process.env.COLUMNS = columns;
    }
  });

  test('too narrow: ids and labels whole, then the most valuable columns that fit; text cut, not below its floor', () => {
    // ID, Event type, Endpoint, Status, Attempts, Mode, Last error, Created (the deliveries list)
    const natural = [36, 17, 36, 7, 8, 4, 120, 24];
    const kinds = ['id', 'label', 'reference', 'label', 'text', 'text', 'text', 'date'] as const;
    const headers = [2, 10, 8, 6, 8, 4, 10, 7];
    const at80 = layoutColumns(natural, [...kinds], headers, 80);
    expect(at80).toEqual({ shown: [0, 1, 3, 5], widths: [36, 17, 7, 4], hidden: [2, 4, 6, 7], cut: [] });
    const at120 = layoutColumns(natural, [...kinds], headers, 120);
    // the endpoint (a reference) before the text columns; then what text still fits
    expect(at120).toEqual({ shown: [0, 1, 2, 3, 4], widths: [36, 17, 36, 7, 8], hidden: [5, 6, 7], cut: [] });
    const at200 = layoutColumns(natural, [...kinds], headers, 200);
    expect(at200.shown).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(at200.cut).toEqual([6]);
    expect(at200.widths.reduce((a, b) => a + b, 0) + 3 * at200.shown.length + 1).toBe(200);
    // narrower than the ids and labels: they stay whole
    expect(layoutColumns(natural, [...kinds], headers, 30)).toMatchObject({ shown: [0, 1, 3], widths: [36, 17, 7] });
    // picked columns are all shown, text cut as far as needed
    const picked = layoutColumns([36, 36, 120], ['id', 'reference', 'text'], [2, 8, 10], 100, true);
    expect(picked).toMatchObject({ shown: [0, 1, 2], hidden: [], cut: [2] });
    expect(picked.widths.slice(0, 2)).toEqual([36, 36]);
  });
});
