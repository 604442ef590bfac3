import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Runtime } from '../runtime';
import { createApp } from './app';

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
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
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
