import net from 'node:net';
import { startServer, type RunningServer } from '../../src/http/server';
import { loadConfig } from '../../src/config';
import { createTestRuntime, type TestRuntime } from '../helpers/db';

// Slow clients (slowloris: headers or body trickled a byte at a time) are cut off by the server's timeouts, so they
// cannot hold connections open; a client that sends its request in time is served.

interface Exchange {
  /** everything the server sent */
  received: string;
  /** whether the server closed the connection while the client was still trickling */
  closedByServer: boolean;
  /** how many pieces the client had sent when the connection ended */
  piecesSent: number;
}

/** Sends `head` and then `pieces` one every `everyMs`, until the server closes the connection or the pieces run out. */
function trickle(url: string, head: string, pieces: string[], everyMs: number): Promise<Exchange> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let received = '';
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      received += d;
    });
    socket.on('error', (e: NodeJS.ErrnoException) => {
      // a write racing the server's close
      if (e.code !== 'ECONNRESET' && e.code !== 'EPIPE') reject(e);
    });
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ received, closedByServer: sent < pieces.length, piecesSent: sent });
    });
    socket.on('connect', () => {
      socket.write(head);
      timer = setInterval(() => {
        if (sent === pieces.length) {
          clearInterval(timer);
          // the client is done; give the server a moment to answer, then hang up
          setTimeout(() => socket.end(), 500);
          return;
        }
        if (!socket.destroyed) socket.write(pieces[sent++]);
      }, everyMs);
    });
  });
}

describe('slow clients are timed out', () => {
  let t: TestRuntime;
  let server: RunningServer;

  beforeAll(async () => {
    t = await createTestRuntime({ config: { httpHeadersTimeoutMs: 1_500, httpRequestTimeoutMs: 3_000 } });
    server = await startServer(t.rt, 0, '127.0.0.1');
  });
  afterAll(async () => {
    await server?.close(100);
    await t?.close();
  });

  test('headers trickled past the headers timeout are answered 408 and the connection is closed', async () => {
    // 160 header lines, one every 50 ms: 8 s if the server waited for all of them
    const pieces = Array.from({ length: 160 }, (_, i) => `X-Slow-${i}: ${'a'.repeat(10)}\r\n`);
    const result = await trickle(server.url, 'GET /healthz HTTP/1.1\r\nHost: localhost\r\n', pieces, 50);
    expect(result.closedByServer).toBe(true);
    expect(result.received).toMatch(/^HTTP\/1\.1 408 /);
    expect(result.piecesSent).toBeLessThan(pieces.length);
  });

  test('a body trickled past the request timeout is answered 408 and the connection is closed', async () => {
    const body = JSON.stringify({ amount: { currency: 'EUR', valueMinor: 1000 }, metadata: { pad: 'x'.repeat(200) } });
    const head = `POST /v1/checkout-sessions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer sk_test_nothing\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
    // one byte every 40 ms: about 10 s for the whole body
    const result = await trickle(server.url, head, body.split(''), 40);
    expect(result.closedByServer).toBe(true);
    expect(result.received).toMatch(/^HTTP\/1\.1 408 /);
    expect(result.piecesSent).toBeLessThan(body.length);
  });

  test('a client that sends its request in a few pieces within the timeouts is served', async () => {
    // a server of its own with roomy timeouts: on a loaded machine the pieces' timers may run late, and this case is
    // about a request assembled from pieces, not about the limits
    const relaxed = await startServer(
      { ...t.rt, config: { ...t.rt.config, httpHeadersTimeoutMs: 10_000, httpRequestTimeoutMs: 20_000 } },
      0,
      '127.0.0.1',
    );
    let result: Exchange;
    try {
      result = await trickle(relaxed.url, 'GET /healthz HTTP/1.1\r\n', ['Host: localhost\r\n', 'Connection: close\r\n', '\r\n'], 50);
    } finally {
      await relaxed.close(100);
    }
    expect(result.received).toMatch(/^HTTP\/1\.1 200 /);
    expect(result.received).toContain('"status":"ok"');
  });

  test('a timed-out request is answered with problem details', async () => {
    const result = await trickle(
      server.url,
      'GET /healthz HTTP/1.1\r\nHost: localhost\r\n',
      Array.from({ length: 160 }, (_, i) => `X-${i}: a\r\n`),
      50,
    );
    const [head, body] = result.received.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(head).toContain('Content-Type: application/problem+json');
    expect(JSON.parse(body)).toMatchObject({ status: 408, code: 'REQUEST_TIMEOUT', title: 'Request Timeout' });
  });

  test.each([
    [
      'a byte that is no HTTP in the request line',
      Buffer.from('GET /v1/pay\x01ments HTTP/1.1\r\nHost: localhost\r\n\r\n', 'latin1'),
      400,
      'MALFORMED_REQUEST',
    ],
    [
      'headers larger than Node takes (16 KB)',
      Buffer.from(`GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
      431,
      'HEADERS_TOO_LARGE',
    ],
  ])('%s: problem details and a closed connection, not a bare status line', async (_what, bytes, status, code) => {
    const received = await new Promise<string>((resolve, reject) => {
      const { hostname, port } = new URL(server.url);
      const socket = net.connect(Number(port), hostname, () => socket.write(bytes));
      let data = '';
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => (data += d));
      socket.on('error', (e: NodeJS.ErrnoException) => (e.code === 'ECONNRESET' || e.code === 'EPIPE' ? undefined : reject(e)));
      socket.on('close', () => resolve(data));
    });
    const [head, body] = received.split('\r\n\r\n');
    expect(head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(head).toContain('Connection: close');
    expect(JSON.parse(body)).toMatchObject({ status, code, type: expect.stringMatching(/^https?:\/\//) });
  });

  test('the timeouts come from the configuration, with defaults of 10 s for headers and 30 s for the whole request', () => {
    expect(server.server.headersTimeout).toBe(1_500);
    expect(server.server.requestTimeout).toBe(3_000);
    const defaults = loadConfig({});
    expect([defaults.httpHeadersTimeoutMs, defaults.httpRequestTimeoutMs]).toEqual([10_000, 30_000]);
    expect(loadConfig({ PAYPLANE_HTTP_HEADERS_TIMEOUT_MS: '2500' }).httpHeadersTimeoutMs).toBe(2_500);
    expect(() => loadConfig({ PAYPLANE_HTTP_REQUEST_TIMEOUT_MS: '0' })).toThrow(
      /PAYPLANE_HTTP_REQUEST_TIMEOUT_MS must be a positive integer/,
    );
  });
});
