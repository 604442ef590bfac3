import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ROOT } from '../helpers/cli';
import { createTestDatabase, onPostgres, scanLogEnv, TEST_TOKEN_SECRET, type TestDatabase } from '../helpers/db';

/**
 * The README's ten-minute tour, run as written: its `serve` block in one process, its `listen` block in another,
 * its `run` blocks one after the other in one bash session (terminal 3), then what it promises is checked. The
 * only changes: the test's own ports (PORT for serve, --port for the listener) and home (PAYPLANE_HOME and
 * DATABASE_URL), so that it never touches a developer's .payplane or sandbox server.
 * The tour is the SQLite sandbox's (`npm start` provisions a sandbox on SQLite only): skipped on Postgres.
 */
interface TourBlock {
  kind: 'serve' | 'listen' | 'run';
  script: string;
}

function tourBlocks(): TourBlock[] {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## A ten-minute tour\n');
  if (start < 0) throw new Error('README.md has no "## A ten-minute tour" section');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const blocks: TourBlock[] = [];
  const unmarked: string[] = [];
  for (const match of section.matchAll(/(?:<!-- tour: (serve|listen|run) -->\s*\n)?```(\w*)\n([\s\S]*?)```/g)) {
    const [, kind, lang, script] = match;
    if (kind) blocks.push({ kind: kind as TourBlock['kind'], script });
    else if (lang === 'sh') unmarked.push(script);
  }
  // every shell block of the tour is run: an unmarked one would be an untested command
  if (unmarked.length > 0) throw new Error(`tour shell blocks without a <!-- tour: … --> marker:\n${unmarked.join('\n')}`);
  return blocks;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface Shell {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** bash -c script, in the checkout (the tour's `$PWD/bin/run.js`), in its own process group. */
function shell(script: string, env: NodeJS.ProcessEnv): Shell {
  const child = spawn('bash', ['-c', `shopt -s expand_aliases\nset -eo pipefail\n${script}`], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
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

const describeOnSqlite = onPostgres ? describe.skip : describe;

describeOnSqlite('the README ten-minute tour', () => {
  let db: TestDatabase;
  let serve: Shell | undefined;
  let listen: Shell | undefined;

  beforeAll(async () => {
    db = await createTestDatabase();
  });

  afterAll(async () => {
    signalGroup(listen, 'SIGKILL');
    signalGroup(serve, 'SIGKILL');
    await db.drop();
  });

  it('runs every command of the tour: a paid checkout, a refund, verified webhooks, an executed withdrawal', async () => {
    const blocks = tourBlocks();
    expect(blocks.filter((b) => b.kind === 'serve')).toHaveLength(1);
    expect(blocks.filter((b) => b.kind === 'listen')).toHaveLength(1);
    expect(blocks.filter((b) => b.kind === 'run').length).toBeGreaterThanOrEqual(3);

    const [port, listenPort] = [await freePort(), await freePort()];
    const env = {
      ...process.env,
      NO_COLOR: '1',
      PORT: String(port),
      PAYPLANE_HOME: db.home,
      DATABASE_URL: db.url,
      PAYPLANE_TOKEN_SECRET: TEST_TOKEN_SECRET,
    } as NodeJS.ProcessEnv;
    delete env.NODE_ENV;
    delete env.HOST;
    delete env.PAYPLANE_PUBLIC_URL;
    delete env.PAYPLANE_WEBHOOK_ALLOW_CIDRS; // the listener is reached by its pinned certificate, nothing else
    delete env.PAYPLANE_WEBHOOK_CA_FILE;

    // terminal 1
    serve = shell(blocks.find((b) => b.kind === 'serve')!.script, { ...env, ...scanLogEnv('tour-serve') });
    await until('the sandbox server answers /readyz', async () => {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
      return res?.status === 200;
    }, 120_000, serve.output);

    // terminal 2: the listener on the test's port
    const listenScript = blocks.find((b) => b.kind === 'listen')!.script;
    expect(listenScript).toMatch(/payplane webhooks listen\s*$/m);
    listen = shell(listenScript.replace(/payplane webhooks listen\s*$/m, `payplane webhooks listen --port ${listenPort}`), { ...env, ...scanLogEnv('tour-listen') });
    await until('the listener is ready', () => /^Ready\./m.test(listen!.output()), 60_000, listen.output);
    expect(listen.output()).toMatch(/^Signing secret: whsec_\S+$/m);
    expect(listen.output()).toContain(`https://localhost:${listenPort}/`);

    // terminal 3: every run block, in order, in one shell
    const runScript = blocks.filter((b) => b.kind === 'run').map((b) => b.script).join('\n');
    const terminal = shell(`${runScript}\necho "TOUR_IDS $PAYMENT_ID $WITHDRAWAL_ID $MERCHANT_KEY"`, { ...env, ...scanLogEnv('tour-cli') });
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([terminal.exited, new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), 150_000)))]);
    clearTimeout(timer);
    if (code !== 0) {
      signalGroup(terminal, 'SIGKILL');
      throw new Error(`the tour's commands ended with ${code}:\n${terminal.output()}\n--- serve:\n${serve.output().slice(-4000)}`);
    }
    const out = terminal.output();
    const ids = /^TOUR_IDS (\S+) (\S+) (\S+)$/m.exec(out);
    expect(ids).not.toBeNull();
    const [, paymentId, withdrawalId, merchantKey] = ids!;

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
    const refunds = (await (await fetch(`http://127.0.0.1:${port}/v1/payments/${paymentId}/refunds`, { headers: { authorization: `Bearer ${merchantKey}` } })).json()) as { data: any[] };
    expect(refunds.data).toHaveLength(1);
    expect(refunds.data[0]).toMatchObject({ amount: { currency: 'EUR', valueMinor: 500 } });
    expect(out).toMatch(/"valueMinor": 1940/); // the available balance before the withdrawal, as the tour says
    const withdrawal = await get(`/v1/withdrawals/${withdrawalId}`);
    expect(withdrawal).toMatchObject({ status: 'completed', amount: { currency: 'EUR', valueMinor: 1000 }, fee: { currency: 'EUR', valueMinor: 50 } });
    const balances = (await get('/v1/balances')) as Array<{ currency: string; available: { valueMinor: number } }>;
    expect(balances.find((b) => b.currency === 'EUR')!.available.valueMinor).toBe(890);
    expect(out).toMatch(/Available[\s\S]*8\.90 EUR/);

    // terminal 2 received the events the tour names, every one verified
    const promised = [
      'checkout.session.created', 'payment.created', 'payment.processing', 'payment.succeeded', 'payment.captured', 'checkout.session.completed',
      'refund.created', 'refund.succeeded', 'withdrawal.created', 'withdrawal.approved', 'withdrawal.succeeded',
    ];
    const verified = () => new Set([...listen!.output().matchAll(/^\S+ {2}(\S+) \S+ {2}signature verified {2}\[200\]$/gm)].map((m) => m[1]));
    await until('the listener received every event of the tour', () => promised.every((type) => verified().has(type)), 30_000, listen.output);
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
  }, 300_000);
});
