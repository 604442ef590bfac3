import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ROOT } from '../helpers/cli';
import { eventCatalog } from '../../src/services/webhooks/catalog';
import { createTestDatabase, dialectName, scanLogEnv, TEST_TOKEN_SECRET, type TestDatabase } from '../helpers/db';

/**
 * The README's ten-minute tour, run as written: its `serve` block in one process, its `listen` block in another,
 * its `run` blocks one after the other in one bash session (terminal 3), then what it promises is checked. The
 * only changes: the test's own ports (PORT for serve, --port for the listener) and home (PAYPLANE_HOME and
 * DATABASE_URL), so that it never touches a developer's .payplane or sandbox server.
 * It runs on the suite's database: on Postgres `npm start` provisions the sandbox in the test's empty database.
 */
interface TourBlock {
  kind: 'serve' | 'listen' | 'run';
  script: string;
  /** the events the README says terminal 2 shows after this block (named in backticks before the next block) */
  promises: string[];
}

function tourBlocks(): TourBlock[] {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## A ten-minute tour\n');
  if (start < 0) throw new Error('README.md has no "## A ten-minute tour" section');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const eventTypes = new Set(eventCatalog().map((e) => e.type));
  const blocks: TourBlock[] = [];
  const unmarked: string[] = [];
  const fence = /(?:<!-- tour: (serve|listen|run) -->\s*\n)?```(\w*)\n([\s\S]*?)```/g;
  let previousEnd = 0;
  const promisesBetween = (from: number, to: number) =>
    [...section.slice(from, to).matchAll(/`([a-z_.]+)`/g)].map((m) => m[1]).filter((name) => eventTypes.has(name));
  for (const match of section.matchAll(fence)) {
    const [, kind, lang, script] = match;
    if (blocks.length > 0) blocks[blocks.length - 1].promises.push(...promisesBetween(previousEnd, match.index));
    if (kind) blocks.push({ kind: kind as TourBlock['kind'], script, promises: [] });
    else if (lang === 'sh') unmarked.push(script);
    previousEnd = match.index + match[0].length;
  }
  if (blocks.length > 0) blocks[blocks.length - 1].promises.push(...promisesBetween(previousEnd, section.length));
  // every shell block of the tour is run: an unmarked one would be an untested command
  if (unmarked.length > 0) throw new Error(`tour shell blocks without a <!-- tour: … --> marker:\n${unmarked.join('\n')}`);
  return blocks;
}

/** `count` distinct free ports of 127.0.0.1 (held together while they are picked). */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: count }, async () => {
      const server = net.createServer();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return server;
    }),
  );
  const ports = servers.map((server) => (server.address() as net.AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

interface Shell {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** bash -c script, in the checkout (the tour's `$PWD/bin/run.js`), in its own process group. */
function shell(script: string, env: NodeJS.ProcessEnv): Shell {
  const child = spawn('bash', ['-c', `shopt -s expand_aliases\nset -eo pipefail\n${script}`], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number, output: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s. Output so far:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Signals the shell's whole process group (npm start's node lives on in it when bash has gone). */
function signalGroup(shell: Shell | undefined, signal: NodeJS.Signals): void {
  if (!shell || shell.child.pid === undefined) return;
  try {
    process.kill(-shell.child.pid, signal);
  } catch {
    // already gone
  }
}

/** Whether any process of the shell's group is still running. */
function groupAlive(shell: Shell): boolean {
  try {
    process.kill(-shell.child.pid!, 0);
    return true;
  } catch {
    return false;
  }
}

describe(`the README ten-minute tour (${dialectName})`, () => {
  let db: TestDatabase;
  let serve: Shell | undefined;
  let listen: Shell | undefined;
  let terminal: Shell | undefined;

  beforeAll(async () => {
    db = await createTestDatabase();
  });

  afterAll(async () => {
    signalGroup(terminal, 'SIGKILL');
    signalGroup(listen, 'SIGKILL');
    signalGroup(serve, 'SIGKILL');
    // the statement the tour downloads into the checkout
    fs.rmSync(path.join(ROOT, 'statement.csv'), { force: true });
    await db.drop();
  });

  it('runs every command of the tour: a paid checkout, a refund, verified webhooks, an executed withdrawal, a dispute won, the statement', async () => {
    const blocks = tourBlocks();
    expect(blocks.filter((b) => b.kind === 'serve')).toHaveLength(1);
    expect(blocks.filter((b) => b.kind === 'listen')).toHaveLength(1);
    expect(blocks.filter((b) => b.kind === 'run').length).toBeGreaterThanOrEqual(3);

    const [port, listenPort] = await freePorts(2);
    const sync = fs.mkdtempSync(path.join(db.home, 'sync-'));
    const env = {
      ...process.env,
      NO_COLOR: '1',
      PORT: String(port),
      PAYPLANE_HOME: db.home,
      DATABASE_URL: db.url,
      PAYPLANE_TOKEN_SECRET: TEST_TOKEN_SECRET,
      // `npm start` without its prestart build: dist/ is built, and other test workers are running it
      npm_config_ignore_scripts: 'true',
    } as NodeJS.ProcessEnv;
    delete env.NODE_ENV;
    delete env.HOST;
    delete env.PAYPLANE_PUBLIC_URL;
    delete env.PAYPLANE_WEBHOOK_ALLOW_CIDRS; // the listener is reached as its own running endpoint, nothing else
    delete env.PAYPLANE_WEBHOOK_CA_FILE;

    // terminal 1
    serve = shell(blocks.find((b) => b.kind === 'serve')!.script, { ...env, ...scanLogEnv('tour-serve') });
    await until(
      'the sandbox server answers /readyz',
      async () => {
        const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
        return res?.status === 200;
      },
      90_000,
      serve.output,
    );

    // terminal 2: the listener on the test's port
    const listenScript = blocks.find((b) => b.kind === 'listen')!.script;
    expect(listenScript).toMatch(/payplane webhooks listen\s*$/m);
    listen = shell(listenScript.replace(/payplane webhooks listen\s*$/m, `payplane webhooks listen --port ${listenPort}`), {
      ...env,
      ...scanLogEnv('tour-listen'),
    });
    await until('the listener is ready', () => /^Ready\./m.test(listen!.output()), 30_000, listen.output);
    expect(listen.output()).toMatch(/^Signing secret: whsec_\S+$/m);
    expect(listen.output()).toContain(`https://localhost:${listenPort}/`);
    const verified = () =>
      new Set([...listen!.output().matchAll(/^\S+ {2}(\S+) \S+ {2}signature verified {2}\[200\]$/gm)].map((m) => m[1]));

    // terminal 3: the run blocks in order, in one shell; after each, as a reader would, the test looks at terminal 2
    // for the events the README says it shows, then lets the shell go on
    const runs = blocks.filter((b) => b.kind === 'run');
    // (released by the test; never waits more than 5 minutes, should the test be gone)
    const prelude = `tour_step() { echo "TOUR_STEP_DONE $1"; for _ in $(seq 3000); do [ -e "${sync}/$1" ] && return 0; sleep 0.1; done; exit 1; }`;
    const script = [
      prelude,
      ...runs.map((b, i) => `${b.script}\ntour_step ${i}`),
      'echo "TOUR_IDS $PAYMENT_ID $WITHDRAWAL_ID $MERCHANT_KEY $DISPUTE_ID $STATEMENT_ID"',
    ].join('\n');
    terminal = shell(script, { ...env, ...scanLogEnv('tour-cli') });
    const t3 = terminal;
    let failed: number | null | undefined;
    void t3.exited.then((code) => (failed = code === 0 ? undefined : code));
    const promised: string[] = [];
    for (const [i, block] of runs.entries()) {
      await until(
        `tour step ${i} runs`,
        () => {
          if (failed !== undefined)
            throw new Error(`the tour's commands ended with ${failed}:\n${t3.output()}\n--- serve:\n${serve!.output().slice(-4000)}`);
          return t3.output().includes(`TOUR_STEP_DONE ${i}\n`);
        },
        60_000,
        t3.output,
      );
      promised.push(...block.promises);
      await until(
        `terminal 2 shows, verified, what the README says after step ${i} (${block.promises.join(', ')})`,
        () => block.promises.every((type) => verified().has(type)),
        20_000,
        listen.output,
      );
      fs.writeFileSync(path.join(sync, String(i)), '');
    }
    expect(await t3.exited).toBe(0);
    const out = t3.output();
    const ids = /^TOUR_IDS (\S+) (\S+) (\S+) (\S+) (\S+)$/m.exec(out);
    expect(ids).not.toBeNull();
    const [, paymentId, withdrawalId, merchantKey, disputeId, statementId] = ids!;
    // the README promises the events of each step: payments, refunds, withdrawals and disputes
    for (const type of [
      'payment.captured',
      'checkout.session.completed',
      'refund.succeeded',
      'withdrawal.succeeded',
      'dispute.created',
      'dispute.won',
    ]) {
      expect(promised).toContain(type);
    }

    // what the tour says happened, read back over the API
    const get = async (pathname: string) => {
      const res = await fetch(`http://127.0.0.1:${port}${pathname}`, { headers: { authorization: `Bearer ${merchantKey}` } });
      expect(res.status).toBe(200);
      return ((await res.json()) as { data: any }).data;
    };
    const payment = await get(`/v1/payments/${paymentId}`);
    expect(payment).toMatchObject({ status: 'partially_refunded', amount: { currency: 'EUR', valueMinor: 2500 } });
    expect(out).toMatch(/status\s+captured/); // payments get --wait showed it captured
    expect(out).toMatch(/fee\s+│ 0\.60 EUR/);
    expect(out).toMatch(/net\s+│ 24\.40 EUR/);
    const refunds = (await (
      await fetch(`http://127.0.0.1:${port}/v1/payments/${paymentId}/refunds`, { headers: { authorization: `Bearer ${merchantKey}` } })
    ).json()) as { data: any[] };
    expect(refunds.data).toHaveLength(1);
    expect(refunds.data[0]).toMatchObject({ amount: { currency: 'EUR', valueMinor: 500 } });
    expect(out).toMatch(/"valueMinor": 1940/); // the available balance before the withdrawal, as the tour says
    const withdrawal = await get(`/v1/withdrawals/${withdrawalId}`);
    expect(withdrawal).toMatchObject({
      status: 'completed',
      amount: { currency: 'EUR', valueMinor: 1000 },
      fee: { currency: 'EUR', valueMinor: 50 },
    });
    const balances = (await get('/v1/balances')) as Array<{ currency: string; available: { valueMinor: number } }>;
    // 8.90 EUR at step 6, as the tour shows; then the won dispute's 15.00 EUR fee: -6.10 EUR, as step 7 says
    expect(out).toMatch(/Available[\s\S]*8\.90 EUR/);
    expect(balances.find((b) => b.currency === 'EUR')!.available.valueMinor).toBe(-610);

    // the dispute was won: its amount came back, its fee stayed
    const dispute = await get(`/v1/disputes/${disputeId}`);
    expect(dispute).toMatchObject({
      status: 'won',
      reason: 'fraudulent',
      amount: { currency: 'EUR', valueMinor: 2000 },
      fee: { currency: 'EUR', valueMinor: 1500 },
    });
    expect(out).toMatch(/"status": "under_review"/);
    // today's statement: its lines (every movement of the tour) and the CSV the tour wrote
    const statement = await get(`/v1/settlements/${statementId}`);
    expect(statement).toMatchObject({ merchantId: expect.any(String), currency: 'EUR', status: 'open' });
    const csv = fs.readFileSync(path.join(ROOT, 'statement.csv'), 'utf8');
    for (const type of ['payment', 'refund', 'withdrawal', 'dispute', 'dispute_fee', 'dispute_reversal'])
      expect(csv).toMatch(new RegExp(`(^|,)${type}(,|$)`, 'm'));
    expect(out).toMatch(/dispute_reversal/);

    // terminal 2 showed no delivery that failed its verification
    expect(listen.output()).not.toMatch(/NOT verified/);
    // and the deliveries list of step 6 shows them delivered
    expect(out).toMatch(/withdrawal\.succeeded\s+│ \S+\s+│ succeeded/);

    // Ctrl-C: the listener disables its endpoint and exits 0
    signalGroup(listen, 'SIGINT');
    expect(await listen.exited).toBe(0);
    expect(listen.output()).toMatch(/SIGINT: endpoint \S+ disabled; \d+ deliveries received\./);
    expect(groupAlive(listen)).toBe(false);
    // Ctrl-C in terminal 1: serve finishes its requests and stops
    signalGroup(serve, 'SIGINT');
    await until('the sandbox server stops', () => !groupAlive(serve!), 30_000, serve.output);
    expect(serve.output()).toMatch(/SIGINT: finishing running requests/);
  }, 420_000);
});
