import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Runtime } from '../runtime';
import { problemType } from '../domain/errors';
import { createApp } from './app';
import { listenUrlOf } from '../util/public-url';

/** What Node's parser refuses before Express sees a request, as problem details: the status Node would send, a code of ours. */
const CLIENT_ERRORS: Record<string, { status: number; code: string; detail: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, code: 'HEADERS_TOO_LARGE', detail: 'The request headers are too large.' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: 'REQUEST_TIMEOUT', detail: 'The request was not received in time.' },
};

/**
 * Answers a request Node's HTTP parser refused (bytes that are no HTTP, oversized headers, a request not received in
 * time) with problem+json like every other refusal, and closes the connection.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  // as Node's own handler: an answer only on a connection that has not been written to (never inside another answer)
  if (error.code === 'ECONNRESET' || !socket.writable || ((socket as Partial<Socket>).bytesWritten ?? 0) > 0) {
    socket.destroy();
    return;
  }
  const known = CLIENT_ERRORS[error.code ?? ''] ?? { status: 400, code: 'MALFORMED_REQUEST', detail: 'The request is not valid HTTP.' };
  const body = JSON.stringify({
    type: problemType(known.code),
    title: http.STATUS_CODES[known.status],
    status: known.status,
    detail: known.detail,
    code: known.code,
  });
  socket.end(
    `HTTP/1.1 ${known.status} ${http.STATUS_CODES[known.status]}\r\nContent-Type: application/problem+json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export interface RunningServer {
  url: string;
  server: http.Server;
  /** stop accepting, let in-flight requests finish (up to graceMs), then close idle connections */
  close(graceMs?: number): Promise<void>;
}

export async function startServer(rt: Runtime, port: number, host: string): Promise<RunningServer> {
  rt.metrics.collectProcessMetrics();
  const app = createApp(rt);
  // slow clients are cut off: headers within httpHeadersTimeoutMs, the whole request within httpRequestTimeoutMs
  // (answered 408 and closed); the connections are checked every second, not Node's default 30 s
  const { httpHeadersTimeoutMs, httpRequestTimeoutMs } = rt.config;
  const server = http.createServer(
    {
      headersTimeout: Math.min(httpHeadersTimeoutMs, httpRequestTimeoutMs),
      requestTimeout: httpRequestTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, httpHeadersTimeoutMs),
      keepAliveTimeout: 5_000,
    },
    app,
  );
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  // URLs made outside a request (jobs of this process) link to where this server listens unless PAYPLANE_PUBLIC_URL is set
  rt.config.listenUrl = listenUrlOf(address.address, address.port);
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}`,
    server,
    close: (graceMs = 10_000) =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), graceMs);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
