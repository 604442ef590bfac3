import net from 'node:net';
import { useCliSandbox } from '../helpers/cli';
import { listenRefusal } from '../../src/domain/listen';
import { UnavailableError } from '../../src/domain/errors';
import { dialectName } from '../helpers/db';

// Issue 32 item 7: `serve --port <busy>` printed Node's raw `listen EADDRINUSE` and exited 1 (an internal error). A
// listen error is one line naming the port and what to do, with the exit code of an unavailable resource (8), and the
// same JSON error as any other under --json; so is every listen error (an address not of this machine here).

const s = useCliSandbox({ sandbox: false });
let busy: net.Server;
let port: number;

beforeAll(async () => {
  busy = net.createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  port = (busy.address() as net.AddressInfo).port;
}, 60_000);
afterAll(async () => {
  await new Promise((resolve) => busy?.close(resolve));
});

describe(`serve cannot listen (${dialectName})`, () => {
  test('a busy port: one line naming the port and what to do, exit 8, no stack and no raw EADDRINUSE', async () => {
    const res = await s.cli('serve', '--port', String(port), '--no-sandbox', '--no-jobs', '--no-dispatch');
    expect(res.status).toBe(8);
    const error = res.stderr.split('\n').filter((l) => /Error:/.test(l));
    expect(error).toEqual([
      expect.stringContaining(
        `Cannot listen on port ${port} of 127.0.0.1: it is already in use; stop what listens there, or pass another --port`,
      ),
    ]);
    expect(res.stderr).not.toMatch(/listen EADDRINUSE|\n\s+at /);
    expect(res.stdout).not.toContain('serving');
  }, 60_000);

  test('under --json the same error as an object on stdout: PORT_IN_USE, exit 8', async () => {
    const res = await s.cli('serve', '--port', String(port), '--no-sandbox', '--no-jobs', '--no-dispatch', '--json');
    expect(res.status).toBe(8);
    expect(res.json().error).toMatchObject({
      code: 'PORT_IN_USE',
      status: 503,
      exitCode: 8,
      message: expect.stringContaining(`port ${port} of 127.0.0.1`),
    });
  }, 60_000);

  test('any listen error is the same class: an address not of this machine names --host, exit 8', async () => {
    // TEST-NET-1 (RFC 5737): never an address of this machine
    const res = await s.cli('serve', '--port', '0', '--host', '192.0.2.1', '--no-sandbox', '--no-jobs', '--no-dispatch', '--json');
    expect(res.status).toBe(8);
    expect(res.json().error).toMatchObject({
      code: 'LISTEN_ADDRESS_UNAVAILABLE',
      exitCode: 8,
      message: expect.stringContaining('192.0.2.1 is not an address of this machine'),
    });
    expect(res.json().error.message).toContain('--host');
  }, 60_000);
});

describe('listenRefusal (every listen error is one line naming the address and what to do, exit 8)', () => {
  const errno = (code: string) => Object.assign(new Error(`listen ${code}: 127.0.0.1:80`), { code });
  test('each kind names the port and the flag to change; an error that is no listen error passes through', () => {
    const denied = listenRefusal(errno('EACCES'), 80, '127.0.0.1') as UnavailableError;
    expect(denied).toBeInstanceOf(UnavailableError);
    expect([denied.code, denied.exitCode]).toEqual(['LISTEN_NOT_PERMITTED', 8]);
    expect(denied.detail).toBe(
      'Cannot listen on port 80 of 127.0.0.1: not permitted (ports below 1024 need privileges); pass --port 1024 or above, or run with the needed permission.',
    );
    const busy = listenRefusal(errno('EADDRINUSE'), 4242, '0.0.0.0') as UnavailableError;
    expect([busy.code, busy.exitCode]).toEqual(['PORT_IN_USE', 8]);
    expect(busy.detail).toContain('port 4242 of 0.0.0.0');
    const unresolved = listenRefusal(errno('ENOTFOUND'), 4242, 'nowhere.invalid') as UnavailableError;
    expect(unresolved.detail).toContain('the host nowhere.invalid does not resolve');
    const other = listenRefusal(errno('EMFILE'), 4242, '127.0.0.1') as UnavailableError;
    expect([other.code, other.exitCode, other.detail]).toEqual([
      'LISTEN_FAILED',
      8,
      'Cannot listen on port 4242 of 127.0.0.1 (EMFILE); pass another --port or --host.',
    ]);
    const bug = new TypeError('not a listen error');
    expect(listenRefusal(bug, 4242, '127.0.0.1')).toBe(bug);
  });
});
