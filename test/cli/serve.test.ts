import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, ROOT } from '../helpers/cli';
import { createTestDatabase, dialectName, testConfig, TEST_TOKEN_SECRET } from '../helpers/db';
import { Receiver, testTls } from '../helpers/receiver';
import { openRuntime, closeRuntime } from '../../src/runtime';
import { operatorContext } from '../../src/services/access/operators';
import { emitEvent } from '../../src/services/webhooks/events';
import { createSandbox } from '../../src/services/sandbox/provision';

interface Started {
  child: ChildProcess;
  output: () => string;
  url: string;
}

/** Starts `payplane serve --port 0` and waits for its banner. */
function startServe(env: Record<string, string | undefined>): Promise<Started> {
  const fullEnv = { ...process.env, NO_COLOR: '1', ...env } as NodeJS.ProcessEnv;
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete fullEnv[k];
  delete fullEnv.NODE_ENV;
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { env: fullEnv, cwd: ROOT });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${out}`)), 30_000);
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}:\n${out}`)));
    const poll = setInterval(() => {
      const m = /serving (http:\/\/\S+)/.exec(out);
      if (m && out.includes('OpenAPI:')) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve({ child, output: () => out, url: m[1] });
      }
    }, 50);
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.on('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

describe('payplane serve', () => {
  test('a fresh SQLite sandbox: keys kept in a 0600 file and masked in the output (not a terminal), a working curl line, stops on SIGTERM, reuses them', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'payplane-serve-'));
    const env = { DATABASE_URL: undefined, PAYPLANE_HOME: home, PAYPLANE_TOKEN_SECRET: TEST_TOKEN_SECRET };
    const first = await startServe(env);
    try {
      const out = first.output();
      const file = path.join(home, 'sandbox.json');
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      const saved = JSON.parse(fs.readFileSync(file, 'utf8'));
      // stdout is a pipe here (it also carries the JSON logs): the keys are masked and the file named
      expect(out).toContain(`Sandbox (saved in ${file})`);
      expect(out).toMatch(new RegExp(`tenant key\\s+${saved.tenantKey.secretKey.slice(0, 16)}… \\(full key in the file\\)`));
      expect(out).not.toContain(saved.tenantKey.secretKey);
      expect(out).not.toContain(saved.merchantKey.secretKey);
      expect(out).not.toContain(saved.platformToken);
      // the curl line reads the key from the file
      const curl = /curl -s (\S+) -H "Authorization: Bearer \$\(node -p '(.+)'\)"/.exec(out)!;
      const key = execFileSync(process.execPath, ['-p', curl[2]], { encoding: 'utf8' }).trim();
      expect(key).toBe(saved.tenantKey.secretKey);
      const res = await fetch(curl[1], { headers: { Authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { data: { id: string }[] };
      expect(body.data).toHaveLength(2);

      const tenants = await fetch(`${first.url}/v1/admin/tenants`, { headers: { Authorization: `Bearer ${saved.platformToken}` } });
      expect(tenants.status).toBe(200);
      expect((await fetch(`${first.url}/readyz`)).status).toBe(200);
      expect(fs.existsSync(path.join(home, 'payplane.db'))).toBe(true);
    } finally {
      expect(await stop(first.child)).toBe(0);
    }
    expect(first.output()).toContain('SIGTERM: finishing running requests');

    const second = await startServe(env);
    try {
      const out = second.output();
      const saved = JSON.parse(fs.readFileSync(path.join(home, 'sandbox.json'), 'utf8'));
      expect(out).toContain(`tenant key      ${saved.tenantKey.secretKey.slice(0, 16)}…`);
      expect(out).not.toContain(saved.tenantKey.secretKey);
      const res = await fetch(`${second.url}/v1/admin/tenants`, { headers: { Authorization: `Bearer ${saved.tenantKey.secretKey}` } });
      expect(((await res.json()) as { data: unknown[] }).data).toHaveLength(1);
    } finally {
      expect(await stop(second.child)).toBe(0);
    }
    fs.rmSync(home, { recursive: true, force: true });
  });

  test(`serves on the configured database (${dialectName}) with readiness`, async () => {
    const db = await createTestDatabase();
    const started = await startServe({ DATABASE_URL: db.url, PAYPLANE_HOME: db.home, PAYPLANE_TOKEN_SECRET: TEST_TOKEN_SECRET });
    try {
      const ready = await fetch(`${started.url}/readyz`);
      expect(await ready.json()).toEqual({ status: 'ready', database: dialectName });
      const doc = (await (await fetch(`${started.url}/v1/openapi.json`)).json()) as { openapi: string };
      expect(doc.openapi).toBe('3.1.0');
      const unauth = await fetch(`${started.url}/v1/api-keys`);
      expect(unauth.status).toBe(401);
      expect(unauth.headers.get('content-type')).toMatch(/application\/problem\+json/);
    } finally {
      expect(await stop(started.child)).toBe(0);
      await db.drop();
    }
  });

  test('logs a JSON line per request at info by default, without query strings or credentials', async () => {
    const db = await createTestDatabase();
    // the level and file left to serve's defaults (the test set-up and the CI scan set them otherwise)
    const started = await startServe({
      DATABASE_URL: db.url,
      PAYPLANE_HOME: db.home,
      PAYPLANE_TOKEN_SECRET: TEST_TOKEN_SECRET,
      PAYPLANE_LOG_LEVEL: undefined,
      PAYPLANE_LOG_FILE: undefined,
    });
    try {
      const bearer = 'sk_test_0123456789abcdef_notarealsecretvalue';
      const res = await fetch(`${started.url}/v1/payments?limit=5&key=cs_secret_in_the_query`, {
        headers: { Authorization: `Bearer ${bearer}` },
      });
      expect(res.status).toBe(401);
      const requestId = res.headers.get('request-id');
      let line: Record<string, unknown> | undefined;
      for (let i = 0; i < 100 && !line; i++) {
        line = started
          .output()
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as Record<string, unknown>)
          .find((l) => l.requestId === requestId && l.msg === 'request');
        if (!line) await new Promise((r) => setTimeout(r, 50));
      }
      expect(line).toMatchObject({ level: 30, operation: 'listPayments', method: 'GET', path: '/v1/payments', status: 401 });
      expect(started.output()).not.toContain('cs_secret_in_the_query');
      expect(started.output()).not.toContain(bearer);
    } finally {
      expect(await stop(started.child)).toBe(0);
      await db.drop();
    }
  });

  test('SIGTERM lets a request in flight finish, then refuses new connections and exits 0', async () => {
    const db = await createTestDatabase();
    const started = await startServe({ DATABASE_URL: db.url, PAYPLANE_HOME: db.home, PAYPLANE_TOKEN_SECRET: TEST_TOKEN_SECRET });
    const { hostname, port } = new URL(started.url);
    try {
      const socket = net.connect(Number(port), hostname);
      await new Promise((resolve) => socket.once('connect', resolve));
      let answer = '';
      socket.on('data', (d) => (answer += d));
      const body = JSON.stringify({ name: 'in flight' });
      socket.write(
        `POST /v1/admin/tenants HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 5)}`,
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      const exited = new Promise<number | null>((resolve) => {
        started.child.removeAllListeners('exit');
        started.child.on('exit', (code) => resolve(code));
      });
      started.child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 300));
      // the listener is closed: a new connection is refused
      await expect(fetch(`${started.url}/healthz`)).rejects.toThrow();
      socket.write(body.slice(5));
      await new Promise((resolve) => socket.once('end', resolve));
      expect(answer).toMatch(/^HTTP\/1\.1 401 /);
      expect(answer).toContain('MISSING_CREDENTIALS');
      expect(await exited).toBe(0);
    } finally {
      started.child.kill('SIGKILL');
      await db.drop();
    }
  });

  test('serve runs the webhook dispatcher: an event emitted by another process reaches a merchant endpoint', async () => {
    const db = await createTestDatabase();
    const receiver = await new Receiver().start();
    const started = await startServe({
      DATABASE_URL: db.url,
      PAYPLANE_HOME: db.home,
      PAYPLANE_TOKEN_SECRET: TEST_TOKEN_SECRET,
      PAYPLANE_WEBHOOK_ALLOW_CIDRS: '127.0.0.1/32,::1/128',
      PAYPLANE_WEBHOOK_CA_FILE: testTls().caFile,
      PAYPLANE_DISPATCH_POLL_MS: '100',
    });
    const rt = await openRuntime(testConfig(db));
    try {
      const sandbox = await createSandbox(rt);
      const created = await fetch(`${started.url}/v1/webhooks/endpoints`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${sandbox.merchantKey.secretKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: receiver.url(), events: ['payment.*'] }),
      });
      expect(created.status).toBe(201);
      const ctx = operatorContext(rt, { level: 'tenant', tenantId: sandbox.tenantId, livemode: false });
      await rt.db.transaction((transaction) =>
        emitEvent({ ...ctx, transaction }, { type: 'payment.succeeded', data: { id: 'pay_e2e' }, merchantId: sandbox.merchantId }),
      );
      const deadline = Date.now() + 15_000;
      while (receiver.received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(receiver.types()).toEqual(['payment.succeeded']);
    } finally {
      await closeRuntime(rt);
      expect(await stop(started.child)).toBe(0);
      await receiver.close();
      await db.drop();
    }
  });
});
