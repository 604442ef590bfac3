import type http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Runs a server of a bench child process (forked with an IPC channel): listens on 127.0.0.1, sends `{ port }` to the
 * parent once listening, and closes on SIGTERM, SIGINT or when the parent goes away.
 */
export function serveChild(server: http.Server, port = 0): void {
  server.listen(port, '127.0.0.1', () => {
    process.send?.({ port: (server.address() as AddressInfo).port });
  });
  const stop = () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.on('disconnect', stop);
}
