import { UnavailableError } from './errors';

/**
 * A server that cannot listen (serve's --port/--host, the local webhook listener's --port): one line naming the address and what to do, as an unavailable
 * resource (exit 8, 503 family), instead of Node's raw `listen EADDRINUSE` as an internal error (exit 1). Every listen
 * error is one of these: the port taken, a privileged port, an address not of this machine, a host that does not
 * resolve, or any other (named by its code).
 */
export function listenRefusal(
  error: unknown,
  port: number,
  host: string,
  inUse = 'stop what listens there, or pass another --port (--port 0 picks a free one)',
): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code !== 'string' || !/^E[A-Z_]+$/.test(code)) return error;
  const where = `port ${port} of ${host}`;
  switch (code) {
    case 'EADDRINUSE':
      return new UnavailableError(`Cannot listen on ${where}: it is already in use; ${inUse}.`, 'PORT_IN_USE');
    case 'EACCES':
    case 'EPERM':
      return new UnavailableError(
        `Cannot listen on ${where}: not permitted${port > 0 && port < 1024 ? ' (ports below 1024 need privileges)' : ''}; pass --port 1024 or above, or run with the needed permission.`,
        'LISTEN_NOT_PERMITTED',
      );
    case 'EADDRNOTAVAIL':
      return new UnavailableError(
        `Cannot listen on ${where}: ${host} is not an address of this machine; pass --host 127.0.0.1 (or 0.0.0.0 for every interface).`,
        'LISTEN_ADDRESS_UNAVAILABLE',
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return new UnavailableError(
        `Cannot listen on ${where}: the host ${host} does not resolve; pass --host 127.0.0.1 (or 0.0.0.0 for every interface).`,
        'LISTEN_ADDRESS_UNAVAILABLE',
      );
    default:
      return new UnavailableError(`Cannot listen on ${where} (${code}); pass another --port or --host.`, 'LISTEN_FAILED');
  }
}
