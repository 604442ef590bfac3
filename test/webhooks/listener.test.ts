import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { useApiHarness } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { Receiver } from '../helpers/receiver';
import { operatorContext } from '../../src/services/access/operators';
import { emitEvent } from '../../src/services/webhooks/events';
import { Dispatcher } from '../../src/services/webhooks/dispatcher';
import { currentSigningSecrets, rotateEndpointSecret } from '../../src/services/webhooks/endpoints';
import { transportOptionsFromEnv } from '../../src/services/webhooks/transport';
import { announceListener, identityFile, runningListener, withdrawListener } from '../../src/listener/registry';
import {
  closeListenerEndpoint,
  ensureListenerCertificate,
  LISTENER_DESCRIPTION,
  LocalListener,
  openListenerEndpoint,
  type ListenerCertificate,
  type ReceivedDelivery,
} from '../../src/listener/listener';
import { testTls } from '../helpers/receiver';

let certificate: ListenerCertificate;
const closers: Array<() => Promise<void> | void> = [];

// the real time: the standardwebhooks library checks the timestamp against it
const h = useApiHarness(() => ({ start: new Date().toISOString() }));
beforeAll(async () => {
  certificate = await ensureListenerCertificate(h.rt.config.home, h.clock.now());
});
h.beforeClose(async () => {
  for (const close of closers.reverse()) await close();
});

const merchantCtx = () =>
  operatorContext(h.rt, { level: 'merchant', tenantId: h.sandbox.tenantId, merchantId: h.sandbox.merchantId, livemode: false });

/** A dispatcher as `serve` makes it: no private range allowed (unless `env` says so), this home's listeners. */
function dispatcher(options: { home?: string; env?: NodeJS.ProcessEnv } = { home: h.rt.config.home }): Dispatcher {
  const d = new Dispatcher(h.rt, { transport: transportOptionsFromEnv(options.env ?? {}, options.home) });
  closers.push(() => d['sender'].close());
  return d;
}

/** A listener on `port` for the endpoint (its secrets read for each delivery), announced as running, as `listen` does. */
async function startListener(
  port: number,
  endpointId: string | null,
  forwardTo?: string,
  secrets?: () => Promise<string[]>,
): Promise<{ listener: LocalListener; received: ReceivedDelivery[] }> {
  const received: ReceivedDelivery[] = [];
  const read = secrets ?? (async () => (endpointId ? currentSigningSecrets(merchantCtx(), endpointId) : []));
  const listener = await new LocalListener({ port, certificate, secrets: read, forwardTo, onDelivery: (d) => received.push(d) }).start();
  if (endpointId) announceListener(h.rt.config.home, { endpointId, port, pid: process.pid, cert: certificate.cert });
  closers.push(async () => {
    if (endpointId) withdrawListener(h.rt.config.home, endpointId);
    await listener.stop();
  });
  return { listener, received };
}

async function emit(type: string, data: Record<string, unknown>) {
  const ctx = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
  return h.rt.db.transaction((transaction) => emitEvent({ ...ctx, transaction }, { type, data, merchantId: h.sandbox.merchantId }));
}

async function deliveriesOf(endpointId: string) {
  return (await h.rt.db.models.WebhookDelivery.findAll({ where: { endpointId } })).map(
    (r) => r.get({ plain: true }) as { status: string; lastError: string | null; attemptCount: number },
  );
}

/** A free port of 127.0.0.1 for a listener. */
async function freePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe(`payplane webhooks listen: the local listener (${dialectName})`, () => {
  test('its certificate is made once under the home (key 0600), for localhost only, and renewed when it is about to end', async () => {
    expect(fs.statSync(identityFile(h.rt.config.home)).mode & 0o777).toBe(0o600);
    const x509 = new crypto.X509Certificate(certificate.cert);
    expect(x509.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
    expect(x509.ca).toBe(false);
    expect(x509.checkPrivateKey(crypto.createPrivateKey(certificate.key))).toBe(true);
    expect((await ensureListenerCertificate(h.rt.config.home, h.clock.now())).fingerprint256).toBe(certificate.fingerprint256);

    const other = fs.mkdtempSync(path.join(h.rt.config.home, 'renew-'));
    const first = await ensureListenerCertificate(other, h.clock.now());
    expect((await ensureListenerCertificate(other, new Date(first.validTo.getTime() - 8 * 86_400_000))).fingerprint256).toBe(
      first.fingerprint256,
    );
    const renewed = await ensureListenerCertificate(other, new Date(first.validTo.getTime() - 6 * 86_400_000));
    expect(renewed.fingerprint256).not.toBe(first.fingerprint256);
    expect(fs.readFileSync(identityFile(other), 'utf8')).toContain(renewed.cert.trim());
  });

  test('the dispatcher reaches the listener on loopback (its certificate pinned), and every delivery verifies', async () => {
    const port = await freePort();
    const opened = await openListenerEndpoint(merchantCtx(), { port, events: ['*'] });
    expect(opened).toMatchObject({
      created: true,
      endpoint: { url: `https://localhost:${port}/`, description: LISTENER_DESCRIPTION, level: 'merchant', status: 'enabled' },
    });
    const { received } = await startListener(port, opened.endpoint.id);
    const event = await emit('payment.captured', { id: 'pay_listen_1' });
    expect(await dispatcher().runOnce()).toBeGreaterThanOrEqual(1);
    expect(received).toEqual([
      expect.objectContaining({ verified: true, status: 200, events: [{ id: event.id, type: 'payment.captured', livemode: false }] }),
    ]);
    expect(await deliveriesOf(opened.endpoint.id)).toEqual([expect.objectContaining({ status: 'succeeded', attemptCount: 1 })]);

    // a dispatcher that also allows loopback (PAYPLANE_WEBHOOK_ALLOW_CIDRS, its own CA file) still reaches the listener
    await emit('payment.captured', { id: 'pay_listen_1b' });
    expect(
      await dispatcher({
        home: h.rt.config.home,
        env: { PAYPLANE_WEBHOOK_ALLOW_CIDRS: '127.0.0.1/32,::1/128', PAYPLANE_WEBHOOK_CA_FILE: testTls().caFile },
      }).runOnce(),
    ).toBe(1);
    expect(received.map((d) => d.verified)).toEqual([true, true]);

    // a secret rotated while listening (no grace period): the listener follows, deliveries still verify
    await rotateEndpointSecret(merchantCtx(), opened.endpoint.id, { graceHours: 0 });
    await emit('payment.captured', { id: 'pay_listen_1c' });
    expect(await dispatcher().runOnce()).toBe(1);
    expect(received.map((d) => [d.verified, d.status])).toEqual([
      [true, 200],
      [true, 200],
      [true, 200],
    ]);
    await closeListenerEndpoint(merchantCtx(), opened.endpoint.id);
  });

  test("only the running listener's own endpoint is reached on loopback: another endpoint on its port, or a listener gone, is refused before any connection", async () => {
    const port = await freePort();
    const opened = await openListenerEndpoint(merchantCtx(), { port, events: ['dispute.*'] });
    const { received } = await startListener(port, opened.endpoint.id);
    // an endpoint anyone could create through the API at the same address
    const res = await h
      .as(h.sandbox.merchantKey.secretKey)
      .post('/v1/webhooks/endpoints', { url: `https://localhost:${port}/`, events: ['dispute.created'] });
    expect(res.status).toBe(201);
    await emit('dispute.created', { id: 'dp_listen_0' });
    expect(await dispatcher().runOnce()).toBe(2);
    const [foreign] = await deliveriesOf(res.body.data.id);
    expect(foreign).toMatchObject({ status: 'pending', attemptCount: 1 });
    expect(foreign.lastError).toMatch(/localhost resolves to (127\.0\.0\.1|::1), a private, loopback or reserved address/);
    expect(received.map((d) => d.events[0]?.type)).toEqual(['dispute.created']); // the listener's own delivery only
    expect(await deliveriesOf(opened.endpoint.id)).toEqual([expect.objectContaining({ status: 'succeeded' })]);

    // the listener killed without its Ctrl-C: its running file names a dead process, so nothing is sent
    withdrawListener(h.rt.config.home, opened.endpoint.id);
    announceListener(h.rt.config.home, { endpointId: opened.endpoint.id, port, pid: 2 ** 22 + 7, cert: certificate.cert });
    expect(runningListener(h.rt.config.home, opened.endpoint.id)).toBeUndefined();
    await emit('dispute.updated', { id: 'dp_listen_00' });
    expect(await dispatcher().runOnce()).toBe(1);
    expect(received).toHaveLength(1);
    const rows = await deliveriesOf(opened.endpoint.id);
    expect(rows.find((r) => r.status === 'pending')!.lastError).toMatch(/a private, loopback or reserved address/);
    withdrawListener(h.rt.config.home, opened.endpoint.id);
    await h.rt.db.models.WebhookEndpoint.update({ status: 'disabled' }, { where: { id: res.body.data.id } });
    await closeListenerEndpoint(merchantCtx(), opened.endpoint.id);
  });

  test('no other loopback service is sent a delivery: another certificate, or no listener certificate, fails before any request', async () => {
    // a receiver on localhost with a certificate of its own (the test CA), as any local service might be
    const other = await new Receiver().start();
    closers.push(() => other.close());
    const res = await h
      .as(h.sandbox.merchantKey.secretKey)
      .post('/v1/webhooks/endpoints', { url: other.url('/'), events: ['dispute.created'] });
    expect(res.status).toBe(201);
    // a running listener announced for that endpoint and port, whose certificate is not the one presented there
    announceListener(h.rt.config.home, { endpointId: res.body.data.id, port: other.port, pid: process.pid, cert: certificate.cert });
    closers.push(() => withdrawListener(h.rt.config.home, res.body.data.id));
    await emit('dispute.created', { id: 'dp_listen_1' });
    expect(await dispatcher().runOnce()).toBe(1);
    const [pinned] = await deliveriesOf(res.body.data.id);
    expect(pinned).toMatchObject({ status: 'pending', attemptCount: 1 });
    expect(pinned.lastError).toMatch(/certificate differs|self-signed|unable to verify/);

    // a dispatcher without this home (no listener certificate): refused as any loopback address
    await emit('dispute.created', { id: 'dp_listen_2' });
    const bare = dispatcher({});
    expect(await bare.runOnce()).toBe(1);
    const rows = await deliveriesOf(res.body.data.id);
    expect(
      rows.some((r) => /localhost resolves to (127\.0\.0\.1|::1), a private, loopback or reserved address/.test(r.lastError ?? '')),
    ).toBe(true);
    expect(other.received).toHaveLength(0);
    await h.rt.db.models.WebhookEndpoint.update({ status: 'disabled' }, { where: { id: res.body.data.id } });
  });

  test('a delivery whose signature does not verify is answered 400 and reported', async () => {
    const port = await freePort();
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const { received } = await startListener(port, null, undefined, async () => [secret]);
    const body = JSON.stringify({ events: [{ id: 'evt_forged', type: 'payment.captured' }] });
    const forged = new Webhook(`whsec_${Buffer.alloc(32, 8).toString('base64')}`).sign('msg_1', new Date(), body);
    const status = await new Promise<number>((resolve, reject) => {
      const req = https.request(
        `https://localhost:${port}/`,
        {
          method: 'POST',
          ca: certificate.cert,
          headers: {
            'content-type': 'application/json',
            'webhook-id': 'msg_1',
            'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
            'webhook-signature': forged,
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(status).toBe(400);
    expect(received).toEqual([
      expect.objectContaining({
        verified: false,
        status: 400,
        webhookId: 'msg_1',
        events: [{ id: 'evt_forged', type: 'payment.captured', livemode: undefined }],
      }),
    ]);
    expect(received[0].error).toMatch(/signature/i);
  });

  test("--forward-to posts each verified delivery as received to the app, whose answer is the listener's", async () => {
    const forwarded: Array<{ headers: http.IncomingHttpHeaders; raw: string }> = [];
    let appStatus = 503;
    const app = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        forwarded.push({ headers: req.headers, raw: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(appStatus).end();
      });
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise<void>((resolve) => app.close(() => resolve())));
    const port = await freePort();
    const opened = await openListenerEndpoint(merchantCtx(), { port, events: ['refund.*'] });
    const { received } = await startListener(port, opened.endpoint.id, `http://127.0.0.1:${(app.address() as AddressInfo).port}/webhooks`);
    await emit('refund.succeeded', { id: 're_listen_1' });
    const d = dispatcher();
    await d.runOnce();
    // the app failed: so did the delivery (it will be retried)
    expect(received).toEqual([expect.objectContaining({ verified: true, status: 503, forwarded: { status: 503 } })]);
    expect(await deliveriesOf(opened.endpoint.id)).toEqual([expect.objectContaining({ status: 'pending', lastError: 'HTTP 503' })]);
    // what the app got verifies with the endpoint's secret, as the app itself will check it
    expect(forwarded).toHaveLength(1);
    const verified = new Webhook(opened.secrets[0]).verify(forwarded[0].raw, forwarded[0].headers as Record<string, string>) as {
      events: Array<{ type: string }>;
    };
    expect(verified.events[0].type).toBe('refund.succeeded');

    // the app recovers: the retry succeeds
    appStatus = 204;
    h.clock.advance(61_000);
    await d.runOnce();
    expect(await deliveriesOf(opened.endpoint.id)).toEqual([expect.objectContaining({ status: 'succeeded', attemptCount: 2 })]);
    h.clock.set(new Date());
    await closeListenerEndpoint(merchantCtx(), opened.endpoint.id);
  });

  test('the endpoint is found again with the same secret; stopping disables it and cancels what was pending', async () => {
    const port = await freePort();
    const first = await openListenerEndpoint(merchantCtx(), { port, events: ['payment.*'] });
    await emit('payment.created', { id: 'pay_listen_2' });
    const closed = await closeListenerEndpoint(merchantCtx(), first.endpoint.id);
    expect(closed.status).toBe('disabled');
    expect(await deliveriesOf(first.endpoint.id)).toEqual([expect.objectContaining({ status: 'canceled' })]);
    // nothing is queued while nobody listens
    await emit('payment.created', { id: 'pay_listen_3' });
    expect(await deliveriesOf(first.endpoint.id)).toHaveLength(1);

    const again = await openListenerEndpoint(merchantCtx(), { port, events: ['payment.*', 'refund.*'] });
    expect(again).toMatchObject({
      created: false,
      endpoint: { id: first.endpoint.id, status: 'enabled', events: ['payment.*', 'refund.*'] },
    });
    expect(again.secrets).toEqual(first.secrets);
    // after a rotation, the listener knows both secrets of the grace period
    const rotated = await rotateEndpointSecret(merchantCtx(), first.endpoint.id, { graceHours: 1 });
    const third = await openListenerEndpoint(merchantCtx(), { port, events: ['payment.*', 'refund.*'] });
    expect(third.secrets).toEqual([rotated.secret, first.secrets[0]]);
    // another port is another endpoint
    const other = await openListenerEndpoint(merchantCtx(), { port: port + 1, events: ['*'] });
    expect(other.endpoint.id).not.toBe(first.endpoint.id);
    await closeListenerEndpoint(merchantCtx(), first.endpoint.id);
    await closeListenerEndpoint(merchantCtx(), other.endpoint.id);
  });

  test('a port in use is refused as an unavailable resource naming it (exit 8, as serve)', async () => {
    const port = await freePort();
    await startListener(port, null);
    await expect(
      new LocalListener({ port, certificate, secrets: async () => [], onDelivery: () => undefined }).start(),
    ).rejects.toMatchObject({
      code: 'PORT_IN_USE',
      exitCode: 8,
      message: expect.stringContaining(`port ${port} of 127.0.0.1: it is already in use`),
    });
  });
});
