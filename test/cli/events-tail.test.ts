import { spawn, type ChildProcess } from 'node:child_process';
import { BIN, ROOT, useCliSandbox, cliProcessEnv } from '../helpers/cli';
import { dialectName, onPostgres } from '../helpers/db';
import { operatorContext } from '../../src/services/access/operators';
import type { Transaction } from 'sequelize';
import { createSandbox, type SandboxCredentials } from '../../src/services/sandbox/provision';
import { EventTail, type TailedEvent } from '../../src/services/event-tail';
import { EVENT_API_VERSION, emitEvent } from '../../src/services/webhooks/events';
import { withTransaction } from '../../src/domain/context';
import { newId } from '../../src/util/ids';

// Issue 24 item 7, "Following what happens": `payplane events tail` follows the events table as the events commit.
// The binary as the operator runs it (a sandbox from `sandbox init`, events from `events trigger`), and the tail
// service itself for what a terminal cannot arrange on purpose: events of one millisecond, a transaction that commits
// after a later one, another tenant's rows in the same table.

const s = useCliSandbox({ sandbox: false, runtime: true });
const cli = s.cli;
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

interface Tail {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** the exit code once it exited */
  exited: Promise<number | null>;
}

const running = new Set<ChildProcess>();

/** `payplane events tail …` in the background; resolves once it says it follows (it has read where it starts). */
async function startTail(args: string[]): Promise<Tail> {
  const fullEnv = cliProcessEnv(s.env);
  const child = spawn(process.execPath, [BIN, 'events', 'tail', ...args], { env: fullEnv, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  const tail = { child, stdout: () => out, stderr: () => err, exited };
  await until(
    'the tail follows',
    () => /^Following /m.test(err) || child.exitCode !== null,
    30_000,
    () => `${out}\n${err}`,
  );
  if (child.exitCode !== null) throw new Error(`events tail exited with ${child.exitCode}:\n${out}\n${err}`);
  return tail;
}

async function until(what: string, check: () => boolean, ms: number, show: () => string = () => ''): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${show()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** stdout of a --json tail: every non-empty line is one JSON object. */
function jsonLines(text: string): TailedEvent[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as TailedEvent);
}

/** `events trigger` of the type for the sandbox's merchant; the ids of the events it emitted. */
async function trigger(type: string, sandbox: { tenantId: string; merchantId: string }): Promise<{ id: string; type: string }[]> {
  const res = await cli('events', 'trigger', type, '--tenant', sandbox.tenantId, '--merchant', sandbox.merchantId, '--json');
  expect(res.status).toBe(0);
  return (res.json() as { events: { id: string; type: string }[] }).events;
}

let mine: SandboxCredentials; // the saved sandbox (sandbox.json)
let other: SandboxCredentials; // another tenant of the same database

beforeAll(async () => {
  const first = await cli('sandbox', 'init', '--json');
  expect(first.status).toBe(0);
  mine = first.json();
  expect(first.json().savedTo).toMatch(/sandbox\.json$/);
  const second = await cli('sandbox', 'init', '--name', 'Another tenant', '--no-save', '--json');
  expect(second.status).toBe(0);
  other = second.json();
});

afterAll(async () => {
  for (const child of running) child.kill('SIGKILL');
});

describe(`payplane events tail, the binary (${dialectName})`, () => {
  let firstPaymentEvents: { id: string; type: string }[];

  test("--json follows the saved sandbox's merchant from now on: one JSON line per new event, none twice, no other tenant's; SIGINT exits 0", async () => {
    // an event of the merchant committed before the tail starts: not shown
    const ctx = operatorContext(s.rt, { level: 'merchant', tenantId: mine.tenantId, merchantId: mine.merchantId, livemode: false });
    await s.rt.db.transaction((transaction) =>
      emitEvent(withTransaction(ctx, transaction), { type: 'payment.succeeded', data: { id: 'pay_before_the_tail' } }),
    );
    const before = new Set((await s.rt.db.models.Event.findAll({ attributes: ['id'] })).map((row) => row.get('id') as string));
    expect(before.size).toBeGreaterThan(0);
    const tail = await startTail(['--json']);
    expect(tail.stderr()).toContain(`Following test-mode events of merchant ${mine.merchantId} (tenant ${mine.tenantId}), all types.`);

    const theirs = await trigger('payment.succeeded', other);
    firstPaymentEvents = await trigger('payment.succeeded', mine);
    expect(firstPaymentEvents.map((e) => e.type)).toEqual(
      expect.arrayContaining(['payment.created', 'payment.succeeded', 'checkout.session.completed']),
    );
    await until('the triggered events', () => firstPaymentEvents.every((e) => tail.stdout().includes(e.id)), 20_000, tail.stdout);
    await sleep(1_500); // three more reads: nothing else may come

    const lines = jsonLines(tail.stdout());
    const ids = lines.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(firstPaymentEvents.map((e) => e.id)));
    expect(ids.filter((id) => before.has(id))).toEqual([]);
    expect(ids.filter((id) => theirs.some((e) => e.id === id))).toEqual([]);
    for (const event of lines) {
      expect(event).toMatchObject({ tenantId: mine.tenantId, merchantId: mine.merchantId, livemode: false, version: EVENT_API_VERSION });
      expect(event.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    // in (time, id) order, and as the merchant sees it: the payment, no fee decomposition
    const sorted = [...lines].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    expect(lines.map((e) => e.id)).toEqual(sorted.map((e) => e.id));
    const succeeded = lines.find((e) => e.type === 'payment.succeeded')!;
    expect(succeeded.data).toMatchObject({ status: 'captured', amount: { currency: 'EUR', valueMinor: 2500 } });
    expect((succeeded.data as Record<string, unknown>).feeBreakdown).toBeUndefined();

    tail.child.kill('SIGINT');
    expect(await tail.exited).toBe(0);
    // JSON Lines to the end: no closing summary on stdout
    expect(() => jsonLines(tail.stdout())).not.toThrow();
    expect(jsonLines(tail.stdout())).toHaveLength(lines.length);
  });

  test('--tenant, --type with a prefix wildcard and a comma list, --since replays the recent events first; SIGTERM exits 0', async () => {
    const tail = await startTail(['--json', '--tenant', mine.tenantId, '--type', 'refund.*,payment.succeeded', '--since', '10m']);
    expect(tail.stderr()).toMatch(
      new RegExp(`Following test-mode events of tenant ${mine.tenantId}, refund\\.\\*, payment\\.succeeded, since \\d{4}-`),
    );
    // the replay: the payment of the first test
    const earlier = firstPaymentEvents.find((e) => e.type === 'payment.succeeded')!;
    await until('the replayed payment.succeeded', () => tail.stdout().includes(earlier.id), 20_000, tail.stdout);

    const refund = await trigger('refund.succeeded', mine);
    const wanted = refund.filter((e) => e.type.startsWith('refund.') || e.type === 'payment.succeeded');
    expect(wanted.map((e) => e.type)).toEqual(expect.arrayContaining(['payment.succeeded', 'refund.created', 'refund.succeeded']));
    await until('the refund events', () => wanted.every((e) => tail.stdout().includes(e.id)), 20_000, tail.stdout);
    await sleep(1_500);

    const lines = jsonLines(tail.stdout());
    const ids = lines.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...new Set(lines.map((e) => e.type))].sort()).toEqual(['payment.succeeded', 'refund.created', 'refund.succeeded']);
    // the one written before the first tail, the first test's and the refund's payment
    expect(lines.filter((e) => e.type === 'payment.succeeded')).toHaveLength(3);
    // the tenant's view: its fees are shown to it
    expect((lines.find((e) => e.id === earlier.id)!.data as Record<string, unknown>).feeBreakdown).toBeDefined();
    expect(lines.every((e) => e.tenantId === mine.tenantId)).toBe(true);
    tail.child.kill('SIGTERM');
    expect(await tail.exited).toBe(0);
  });

  test('on a terminal-style run (no --json): one readable line per event, the merchant at tenant level; SIGINT says how many', async () => {
    const tail = await startTail(['--tenant', other.tenantId, '--type', 'payment.*', '--type', 'checkout.session.completed']);
    const events = await trigger('payment.succeeded', other);
    const wanted = events.filter((e) => e.type.startsWith('payment.') || e.type === 'checkout.session.completed');
    await until('the lines', () => wanted.every((e) => tail.stdout().includes(e.id)), 20_000, tail.stdout);
    const succeeded = wanted.find((e) => e.type === 'payment.succeeded')!;
    const line = tail
      .stdout()
      .split('\n')
      .find((l) => l.includes(succeeded.id))!;
    expect(line).toMatch(
      new RegExp(
        `^\\d\\d:\\d\\d:\\d\\d  payment\\.succeeded  ${succeeded.id}  merchant ${other.merchantId}  payment ${UUID} captured 25\\.00 EUR$`,
      ),
    );
    expect(tail.stdout()).not.toContain('checkout.session.created');
    expect(tail.stdout()).not.toMatch(/\u001b\[/);
    expect(tail.stdout()).not.toContain(mine.merchantId);
    tail.child.kill('SIGINT');
    expect(await tail.exited).toBe(0);
    const shown = tail
      .stdout()
      .split('\n')
      .filter((l) => /^\d\d:\d\d:\d\d {2}/.test(l));
    expect(shown).toHaveLength(wanted.length);
    expect(tail.stdout()).toContain(`SIGINT: ${wanted.length} events shown.`);
  });

  test('refusals: an unknown type, a merchant of another tenant, no sandbox and no --tenant', async () => {
    const [unknown, foreign, since, elsewhere] = await Promise.all([
      cli('events', 'tail', '--type', 'nothing.*', '--json'),
      cli('events', 'tail', '--tenant', mine.tenantId, '--merchant', other.merchantId, '--json'),
      cli('events', 'tail', '--since', 'yesterday', '--json'),
      s.cliWith({ PAYPLANE_HOME: `${s.db.home}/nowhere`, DATABASE_URL: s.db.url }, 'events', 'tail', '--json'),
    ]);
    expect(unknown.status).toBe(2);
    expect(unknown.json().error).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(foreign.status).toBe(4);
    expect(since.status).toBe(2);
    expect(elsewhere.status).toBe(2);
    expect(elsewhere.json().error).toMatchObject({ code: 'MISSING_FLAG' });
  });
});

describe(`the tail service: order, late commits and scope (${dialectName})`, () => {
  const ctxOf = (who: { tenantId: string; merchantId?: string }) =>
    operatorContext(s.rt, {
      level: who.merchantId ? 'merchant' : 'tenant',
      tenantId: who.tenantId,
      merchantId: who.merchantId,
      livemode: false,
    });

  /** An event row written as the outbox writes it, stamped `at` (in `transaction` when given). */
  async function insertEvent(
    owner: { tenantId: string; merchantId: string | null },
    at: Date,
    extra: { type?: string; livemode?: boolean; deletedAt?: Date; transaction?: Transaction } = {},
  ): Promise<string> {
    const id = newId();
    await s.rt.db.models.Event.create(
      {
        id,
        type: extra.type ?? 'payment.succeeded',
        tenantId: owner.tenantId,
        merchantId: owner.merchantId,
        livemode: extra.livemode ?? false,
        data: { id: `pay_${id.slice(-6)}`, status: 'captured' },
        apiVersion: EVENT_API_VERSION,
        createdAt: at,
        updatedAt: at,
        deletedAt: extra.deletedAt ?? null,
      } as never,
      { transaction: extra.transaction },
    );
    return id;
  }

  async function drain(tail: EventTail): Promise<TailedEvent[]> {
    const out: TailedEvent[] = [];
    for await (const page of tail.poll()) out.push(...page);
    return out;
  }

  let shop: SandboxCredentials;
  let rival: SandboxCredentials;
  beforeAll(async () => {
    shop = await createSandbox(s.rt, { name: 'Tail shop' });
    rival = await createSandbox(s.rt, { name: 'Tail rival' });
  });

  test('events of one millisecond, more than a page of them, each once in id order; other tenants, modes and deleted rows never', async () => {
    const tail = new EventTail(ctxOf(shop), { batch: 3 });
    await tail.prime();
    const at = new Date();
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push(await insertEvent(shop, at));
    await insertEvent(rival, at);
    await insertEvent({ tenantId: rival.tenantId, merchantId: shop.merchantId }, at); // a forged row: the tenant decides
    await insertEvent(shop, at, { livemode: true });
    await insertEvent(shop, at, { deletedAt: at });
    const seen = await drain(tail);
    expect(seen.map((e) => e.id)).toEqual([...ids].sort());
    expect(await drain(tail)).toEqual([]);
  });

  test('an event stamped before the newest one seen but committed after it is shown when it commits, once', async () => {
    const tail = new EventTail(ctxOf({ tenantId: shop.tenantId, merchantId: shop.merchantId }), { lookbackMs: 10_000 });
    await tail.prime();
    const now = Date.now();
    const newer = await insertEvent(shop, new Date(now + 5));
    expect((await drain(tail)).map((e) => e.id)).toEqual([newer]);
    const late = await insertEvent(shop, new Date(now - 3_000));
    await insertEvent({ tenantId: shop.tenantId, merchantId: null }, new Date(now)); // a tenant event: not the merchant's
    expect((await drain(tail)).map((e) => e.id)).toEqual([late]);
    expect(await drain(tail)).toEqual([]);
  });

  (onPostgres ? test : test.skip)('Postgres: two transactions committing out of order, neither skipped nor shown twice', async () => {
    const tail = new EventTail(ctxOf({ tenantId: shop.tenantId }));
    await tail.prime();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let written!: () => void;
    const inserted = new Promise<void>((resolve) => (written = resolve));
    let first = '';
    // T1: stamped first, written, and held open
    const t1 = s.rt.db.transaction(async (transaction) => {
      first = await insertEvent(shop, new Date(), { transaction });
      written();
      await gate;
    });
    await inserted;
    await sleep(5);
    // T2: stamped later, commits first
    const second = await insertEvent(shop, new Date());
    expect((await drain(tail)).map((e) => e.id)).toEqual([second]);
    release();
    await t1;
    expect((await drain(tail)).map((e) => e.id)).toEqual([first]);
    expect(await drain(tail)).toEqual([]);
  });

  test("--since: the window's events first, filtered by type; without it, what was there at the start is not shown", async () => {
    const start = new Date(Date.now() - 60_000);
    const old = await insertEvent(shop, new Date(start.getTime() + 1_000), { type: 'refund.created' });
    const oldPayment = await insertEvent(shop, new Date(start.getTime() + 2_000), { type: 'payment.failed' });
    const replay = new EventTail(ctxOf({ tenantId: shop.tenantId }), { since: start, types: ['refund.*'] });
    const replayed = await drain(replay);
    expect(replayed.map((e) => e.id)).toEqual([old]);
    expect(replayed.every((e) => e.type.startsWith('refund.'))).toBe(true);
    const fresh = new EventTail(ctxOf({ tenantId: shop.tenantId }));
    expect((await drain(fresh)).map((e) => e.id)).not.toContain(oldPayment);
    expect(await drain(fresh)).toEqual([]);
  });
});
