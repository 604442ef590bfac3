import { spawn, type ChildProcess } from 'node:child_process';
import { BIN, ROOT } from '../helpers/cli';
import { createTestRuntime, dialectName, TEST_TOKEN_SECRET, type TestRuntime } from '../helpers/db';
import { Receiver, testTls } from '../helpers/receiver';
import { createSandbox } from '../../src/services/sandbox/provision';
import { operatorContext } from '../../src/services/access/operators';
import { createEndpoint } from '../../src/services/webhooks/endpoints';
import { emitEvent } from '../../src/services/webhooks/events';

let t: TestRuntime;
let receiver: Receiver;
let tenantId: string;
let endpointId: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  t = await createTestRuntime();
  receiver = await new Receiver().start();
  receiver.reply = () => ({ status: 200, delayMs: 3 });
  const sandbox = await createSandbox(t.rt);
  tenantId = sandbox.tenantId;
  const ctx = operatorContext(t.rt, { level: 'tenant', tenantId, livemode: false });
  endpointId = (await createEndpoint(ctx, { url: receiver.url(), events: ['*'] })).id;
});
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await receiver.close();
  await t.close();
});

async function emitMany(count: number, tag: string): Promise<void> {
  const ctx = operatorContext(t.rt, { level: 'tenant', tenantId, livemode: false });
  for (let start = 0; start < count; start += 100) {
    await t.rt.db.transaction(async (transaction) => {
      for (let i = start; i < Math.min(count, start + 100); i++) {
        await emitEvent({ ...ctx, transaction }, { type: 'payment.succeeded', data: { id: `${tag}_${i}` }, merchantId: null });
      }
    });
  }
}

function dispatcher(extraEnv: Record<string, string> = {}): ChildProcess {
  const env = {
    ...process.env,
    NO_COLOR: '1',
    DATABASE_URL: t.db.url,
    PAYPLANE_HOME: t.db.home,
    PAYPLANE_TOKEN_SECRET: TEST_TOKEN_SECRET,
    PAYPLANE_WEBHOOK_ALLOW_CIDRS: '127.0.0.1/32,::1/128',
    PAYPLANE_WEBHOOK_CA_FILE: testTls().caFile,
    PAYPLANE_DISPATCH_POLL_MS: '100',
    PAYPLANE_DISPATCH_BATCH: '20',
    ...extraEnv,
  } as NodeJS.ProcessEnv;
  delete env.NODE_ENV;
  const child = spawn(process.execPath, [BIN, 'webhooks', 'dispatch'], { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return child;
}

const ids = (tag: string) =>
  new Set(receiver.received.filter((r) => r.body.events[0].data.id.startsWith(`${tag}_`)).map((r) => r.headers['webhook-id']));

async function waitFor(condition: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function stopped(child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
    child.kill(signal);
  });
}

describe(`dispatcher processes (${dialectName})`, () => {
  test('two dispatcher processes on one database deliver 1,000 events, every one once', async () => {
    await emitMany(1000, 'a');
    const [one, two] = [dispatcher(), dispatcher()];
    // generous bounds: CI runs other suites beside this one on two cores
    await waitFor(() => ids('a').size === 1000, 240_000, '1000 deliveries');
    await Promise.all([stopped(one, 'SIGTERM'), stopped(two, 'SIGTERM')]);
    const batch = receiver.received.filter((r) => r.body.events[0].data.id.startsWith('a_'));
    const sends = batch.map((r) => `${r.headers['webhook-id']}#${r.body.events[0].attempt}`);
    expect(sends).toHaveLength(1000);
    expect(new Set(sends).size).toBe(1000);
    const rows = await t.rt.db.models.WebhookDelivery.findAll({ where: { endpointId } });
    expect(rows.filter((r) => r.get('status') === 'succeeded')).toHaveLength(1000);
    expect(rows.every((r) => r.get('attemptCount') === 1)).toBe(true);
    const workers = await t.rt.db.models.WebhookAttempt.findAll({ attributes: ['workerId'], group: ['workerId'] });
    expect(workers).toHaveLength(2);
  }, 300_000);

  test('a dispatcher killed with SIGKILL mid-run loses no event: after a restart every event is delivered', async () => {
    receiver.reply = () => ({ status: 200, delayMs: 15 });
    await emitMany(500, 'b');
    const first = dispatcher({ PAYPLANE_DISPATCH_LEASE_MS: '1500' });
    await waitFor(() => ids('b').size >= 100, 120_000, 'the first 100 deliveries');
    await stopped(first, 'SIGKILL');
    expect(ids('b').size).toBeLessThan(500);
    const second = dispatcher({ PAYPLANE_DISPATCH_LEASE_MS: '1500' });
    await waitFor(() => ids('b').size === 500, 240_000, 'every delivery after the restart');
    // the receiver may have every id before the database says so: what the killed process sent but never recorded
    // is sent again once its claim's lease has passed (at least once: the same webhook-id)
    const succeeded = () => t.rt.db.models.WebhookDelivery.count({ where: { endpointId, status: 'succeeded' } });
    const deadline = Date.now() + 60_000;
    while ((await succeeded()) < 1500 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    await stopped(second, 'SIGTERM');
    const pending = await t.rt.db.models.WebhookDelivery.count({ where: { endpointId, status: 'pending' } });
    expect(pending).toBe(0);
    expect(await succeeded()).toBe(1500);
  }, 420_000);
});
