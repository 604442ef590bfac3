import { dialectName } from '../helpers/db';
import { hasScript, runOnTerminal, useCliSandbox } from '../helpers/cli';
import { operatorContext } from '../../src/services/access/operators';
import { createTenant } from '../../src/services/tenants/tenants';
import { createApiKey } from '../../src/services/api-keys/keys';
import { ALL_PAGE_SIZE, followPages, type PageRequest, type ProgressStream } from '../../src/cli/progress';
import type { Page } from '../../src/db/scoped';
import { testWhenPresent } from '../helpers/prerequisite';

// --all on the list commands: every page from --cursor on, following nextCursor (src/cli/progress.ts followPages,
// reached through BaseCommand.listAll), with a progress bar on a terminal only.

const TENANTS = 230; // more than two pages of ALL_PAGE_SIZE (100): --all needs three requests without --limit
const KEYS = 13;

const t = useCliSandbox({ sandbox: false, runtime: true });
const cli = t.cli;
/** every tenant id, newest first, as the database orders them (tenants list sorts createdAt desc, id desc) */
let tenantIds: string[];
let keysTenantId: string;
let keyIds: string[];

beforeAll(async () => {
  const platform = operatorContext(t.rt, { level: 'platform', tenantId: null, livemode: true });
  for (let i = 0; i < TENANTS; i++) await createTenant(platform, { name: `Tenant ${i}`, livemode: false });
  const rows = await t.rt.db.models.Tenant.findAll({
    attributes: ['id'],
    order: [
      ['createdAt', 'DESC'],
      ['id', 'DESC'],
    ],
  });
  tenantIds = rows.map((r) => r.get('id') as string);
  keysTenantId = tenantIds[0];
  const asTenant = operatorContext(t.rt, { level: 'tenant', tenantId: keysTenantId, livemode: false });
  for (let i = 0; i < KEYS; i++) await createApiKey(asTenant, { name: `Key ${i}`, ownerType: 'tenant', livemode: false });
  const keys = await t.rt.db.models.ApiKey.findAll({
    attributes: ['id'],
    where: { tenantId: keysTenantId },
    order: [
      ['createdAt', 'DESC'],
      ['id', 'DESC'],
    ],
  });
  keyIds = keys.map((r) => r.get('id') as string);
}, 120_000);

const ids = (page: Page<{ id: string }>) => page.data.map((r) => r.id);

describe(`list commands --all (${dialectName})`, () => {
  test('tenants list --all --json: every tenant of the database, in its order, once, over three pages of 100', async () => {
    expect(tenantIds).toHaveLength(TENANTS);
    const res = await cli('tenants', 'list', '--all', '--json');
    expect(res.status).toBe(0);
    const page = res.json<Page<{ id: string }>>();
    expect(ids(page)).toEqual(tenantIds);
    expect(new Set(ids(page)).size).toBe(TENANTS);
    expect(page.pagination).toEqual({ nextCursor: null, prevCursor: null, hasMore: false, totalCount: TENANTS });
    // not a terminal, and --json: no progress bar on stderr
    expect(res.stderr).not.toContain('tenants list [');
  });

  test('without --all: the first page only (--limit, default 20), and its cursor', async () => {
    const first = (await cli('tenants', 'list', '--json')).json<Page<{ id: string }>>();
    expect(ids(first)).toEqual(tenantIds.slice(0, 20));
    expect(first.pagination).toMatchObject({ nextCursor: tenantIds[20], hasMore: true, totalCount: TENANTS });
    const page = (await cli('tenants', 'list', '--limit', '7', '--cursor', tenantIds[20], '--json')).json<Page<{ id: string }>>();
    expect(ids(page)).toEqual(tenantIds.slice(20, 27));
    expect(page.pagination.nextCursor).toBe(tenantIds[27]);
  });

  test('--all starts at --cursor, and an explicit --limit is the page size it asks for', async () => {
    const res = await cli('tenants', 'list', '--all', '--cursor', tenantIds[45], '--limit', '50', '--json');
    expect(res.status).toBe(0);
    const page = res.json<Page<{ id: string }>>();
    expect(ids(page)).toEqual(tenantIds.slice(45));
    expect(page.pagination).toEqual({ nextCursor: null, prevCursor: null, hasMore: false, totalCount: TENANTS });
    const unknown = await cli('tenants', 'list', '--all', '--cursor', '00000000-0000-4000-8000-000000000000', '--json');
    expect(unknown.status).toBe(2);
    expect(unknown.json().error.code).toBe('INVALID_CURSOR');
  });

  test('the table under --all: every row, and the footer says so (no next cursor)', async () => {
    const res = await cli('tenants', 'list', '--all', '--limit', '60');
    expect(res.status).toBe(0);
    for (const id of [tenantIds[0], tenantIds[99], tenantIds[TENANTS - 1]]) expect(res.stdout).toContain(id);
    const footer = res.stdout.trimEnd().split('\n').pop();
    expect(footer).toBe(`${TENANTS} of ${TENANTS}`);
    expect(res.stdout).not.toContain('--cursor');
    // a pipe is not a terminal: no bar
    expect(res.stderr).not.toContain('[#');
  });

  test('another list (keys list, tenant scope and filters): --all --limit 4 returns every key over four pages', async () => {
    const res = await cli('keys', 'list', '--tenant', keysTenantId, '--all', '--limit', '4', '--json');
    expect(res.status).toBe(0);
    const page = res.json<Page<{ id: string; tenantId: string }>>();
    expect(ids(page)).toEqual(keyIds);
    expect(page.data.every((k) => k.tenantId === keysTenantId)).toBe(true);
    expect(page.pagination).toEqual({ nextCursor: null, prevCursor: null, hasMore: false, totalCount: KEYS });
    const one = (await cli('keys', 'list', '--tenant', keysTenantId, '--limit', '4', '--json')).json<Page<{ id: string }>>();
    expect(ids(one)).toEqual(keyIds.slice(0, 4));
  });

  // a real terminal through script(1): the bar is drawn on it, and not under --json
  testWhenPresent('the terminal test', hasScript() ? null : 'no `script` command (bsdutils)')(
    'on a terminal the bar is drawn while the pages load; under --json it is not',
    async () => {
      const run = (args: string) => runOnTerminal(args.split(' '), { env: { ...t.env, COLUMNS: '100' } });
      const table = await run('tenants list --all --limit 100');
      expect(table.status).toBe(0);
      expect(table.output).toMatch(/\rtenants list \[#+-*\] 100\/230 43%/);
      expect(table.output).toMatch(/\rtenants list \[#+\] 230\/230 100%/);
      const json = await run('tenants list --all --json');
      expect(json.status).toBe(0);
      expect(json.output).not.toContain('tenants list [');
      expect(json.output).toContain('"totalCount": 230');
    },
    120_000,
  );
});

/** A list of `n` records r0…r(n-1) served in pages like ScopedAccess.list: the cursor is the id of the page's first record. */
function fakeList(n: number) {
  const records = Array.from({ length: n }, (_, i) => ({ id: `r${i}` }));
  const requests: PageRequest[] = [];
  const load = async (page: PageRequest): Promise<Page<{ id: string }>> => {
    requests.push(page);
    const start = page.cursor === undefined ? 0 : records.findIndex((r) => r.id === page.cursor);
    const data = records.slice(start, start + page.limit);
    const next = records[start + page.limit];
    return { data, pagination: { nextCursor: next?.id ?? null, prevCursor: null, hasMore: Boolean(next), totalCount: n } };
  };
  return { records, requests, load };
}

function fakeStream(isTTY: boolean) {
  const chunks: string[] = [];
  const stream: ProgressStream = { isTTY, columns: 80, write: (chunk: string) => chunks.push(chunk) };
  return { stream, text: () => chunks.join('') };
}

describe('followPages (the helper behind --all)', () => {
  test('without --all: one request, with --limit and --cursor as given, and the page as the list answered it', async () => {
    const list = fakeList(30);
    const page = await followPages(list.load, { all: false, limit: 20, cursor: 'r5' });
    expect(list.requests).toEqual([{ limit: 20, cursor: 'r5' }]);
    expect(ids(page)).toEqual(list.records.slice(5, 25).map((r) => r.id));
    expect(page.pagination.nextCursor).toBe('r25');
  });

  test('--all: pages of 100 (whatever the default --limit), following the cursors to the end', async () => {
    const list = fakeList(250);
    const page = await followPages(list.load, { all: true, limit: 20 });
    expect(list.requests).toEqual([
      { limit: ALL_PAGE_SIZE, cursor: undefined },
      { limit: 100, cursor: 'r100' },
      { limit: 100, cursor: 'r200' },
    ]);
    expect(ids(page)).toEqual(list.records.map((r) => r.id));
    expect(page.pagination).toEqual({ nextCursor: null, prevCursor: null, hasMore: false, totalCount: 250 });
  });

  test('--all with an explicit --limit and a --cursor: pages of that size from there on', async () => {
    const list = fakeList(40);
    const page = await followPages(list.load, { all: true, limit: 15, limitGiven: true, cursor: 'r10' });
    expect(list.requests).toEqual([
      { limit: 15, cursor: 'r10' },
      { limit: 15, cursor: 'r25' },
    ]);
    expect(ids(page)).toEqual(list.records.slice(10).map((r) => r.id));
    expect(page.pagination.totalCount).toBe(40);
  });

  test("the bar is drawn on a terminal, counting records against the first page's total, and ends its line", async () => {
    const out = fakeStream(true);
    await followPages(fakeList(250).load, { all: true, limit: 20, label: 'tenants list', stream: out.stream });
    const frames = out.text().split('\r').filter(Boolean);
    expect(frames.map((f) => f.trim().match(/(\d+)\/250/)?.[1])).toEqual(['0', '100', '200', '250']);
    expect(frames[frames.length - 1]).toMatch(/^tenants list \[#+\] 250\/250 100%\n$/);
  });

  test('no bar on a pipe, nor under --json on a terminal, nor without --all', async () => {
    const pipe = fakeStream(false);
    await followPages(fakeList(250).load, { all: true, limit: 20, stream: pipe.stream });
    const json = fakeStream(true);
    await followPages(fakeList(250).load, { all: true, limit: 20, progress: false, stream: json.stream });
    const onePage = fakeStream(true);
    await followPages(fakeList(250).load, { all: false, limit: 20, stream: onePage.stream });
    expect([pipe.text(), json.text(), onePage.text()]).toEqual(['', '', '']);
  });

  test("a cursor answered twice stops with an error instead of looping (the bar's line is ended)", async () => {
    const requests: PageRequest[] = [];
    const looping = async (page: PageRequest): Promise<Page<{ id: string }>> => {
      requests.push(page);
      // a broken list: after the first page it always points back at its second page
      return { data: [{ id: `x${requests.length}` }], pagination: { nextCursor: 'c2', prevCursor: null, hasMore: true, totalCount: 9 } };
    };
    const out = fakeStream(true);
    await expect(followPages(looping, { all: true, limit: 20, stream: out.stream })).rejects.toMatchObject({ code: 'PAGINATION_LOOP' });
    expect(requests.map((r) => r.cursor)).toEqual([undefined, 'c2']);
    expect(out.text().endsWith('\n')).toBe(true);
    // the starting --cursor counts as seen
    const back = async (): Promise<Page<{ id: string }>> => ({
      data: [{ id: 'a' }],
      pagination: { nextCursor: 'start', prevCursor: null, hasMore: true, totalCount: 2 },
    });
    await expect(followPages(back, { all: true, limit: 20, cursor: 'start' })).rejects.toMatchObject({ code: 'PAGINATION_LOOP' });
  });
});
