import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, ROOT } from '../helpers/cli';
import { createTestDatabase, dialectName, TEST_TOKEN_SECRET, type TestDatabase } from '../helpers/db';
import { startServe } from '../helpers/serve';
import { testWhenPresent } from '../helpers/prerequisite';
import { createLogger } from '../../src/runtime';
import { chooseLogFormat, logFormatSetting, prettyLogLine } from '../../src/log-format';

// Issue 24 item 7: on a terminal `serve` prints one readable line per request (and readable errors); JSON stays when
// stdout is not a terminal, or when PAYPLANE_LOG_FORMAT says so. Redaction applies to both.

const ESC = /\u001b\[/;
const stripAnsi = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');
const BEARER = 'sk_test_0123456789abcdef_notarealsecretvalue';
const READABLE_REQUEST = /^\d\d:\d\d:\d\d GET \/v1\/payments 401 \d+(\.\d)?ms req_[0-9a-f]{32}$/m;

describe('the readable log line', () => {
  test('a request: time, method, path, status, duration, request id', () => {
    const time = Date.UTC(2026, 0, 2, 12, 1, 2);
    const line = prettyLogLine({
      level: 30,
      time,
      pid: 1,
      hostname: 'h',
      requestId: 'req_abc',
      operation: 'createCheckoutSession',
      method: 'POST',
      path: '/v1/checkout-sessions',
      status: 201,
      ms: 12.4,
      msg: 'request',
    });
    expect(line).toBe('12:01:02 POST /v1/checkout-sessions 201 12ms req_abc');
    expect(
      prettyLogLine({ level: 30, time, method: 'GET', path: '/healthz', status: 200, ms: 0.42, requestId: 'req_x', msg: 'request' }),
    ).toBe('12:01:02 GET /healthz 200 0.4ms req_x');
  });

  test('an error: level, message, its fields, then the stack indented', () => {
    const time = Date.UTC(2026, 0, 2, 12, 1, 2);
    const line = prettyLogLine({
      level: 50,
      time,
      pid: 1,
      hostname: 'h',
      requestId: 'req_abc',
      msg: 'request failed',
      err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at handler (/app/x.js:1:2)\n    at next (/app/y.js:3:4)' },
    });
    expect(line.split('\n')).toEqual([
      '12:01:02 ERROR request failed requestId=req_abc',
      '    Error: boom',
      '    at handler (/app/x.js:1:2)',
      '    at next (/app/y.js:3:4)',
    ]);
    expect(prettyLogLine({ level: 40, time, msg: 'claim lost', deliveryId: 'd1', note: 'two words' })).toBe(
      '12:01:02 WARN claim lost deliveryId=d1 note="two words"',
    );
  });

  test('PAYPLANE_LOG_FORMAT: json, pretty, or auto (pretty only for stdout on a terminal); anything else is refused', () => {
    expect(chooseLogFormat({ toFile: false, tty: true, env: {} })).toBe('pretty');
    expect(chooseLogFormat({ toFile: false, tty: false, env: {} })).toBe('json');
    expect(chooseLogFormat({ toFile: true, tty: true, env: {} })).toBe('json');
    expect(chooseLogFormat({ toFile: false, tty: true, env: { PAYPLANE_LOG_FORMAT: 'json' } })).toBe('json');
    expect(chooseLogFormat({ toFile: false, tty: false, env: { PAYPLANE_LOG_FORMAT: 'pretty' } })).toBe('pretty');
    expect(chooseLogFormat({ toFile: false, tty: true, env: { PAYPLANE_LOG_FORMAT: 'auto' } })).toBe('pretty');
    expect(() => logFormatSetting({ PAYPLANE_LOG_FORMAT: 'yaml' })).toThrow(
      'PAYPLANE_LOG_FORMAT must be json, pretty or auto (got "yaml")',
    );
  });

  test('credentials are redacted in the readable lines as in the JSON ones', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payplane-logfmt-'));
    try {
      const secrets = {
        headers: { authorization: `Bearer ${BEARER}` },
        key: { secretKey: 'sk_test_secretkeyvalue', secret: 'whsec_secretvalue', token: 'tok_value' },
      };
      for (const format of ['pretty', 'json'] as const) {
        const file = path.join(dir, `${format}.log`);
        const logger = createLogger('info', file, { format });
        logger.info({ ...secrets, authorization: 'Bearer direct' }, 'with credentials');
        logger.error({ err: new Error('failed'), key: secrets.key }, 'request failed');
        const text = fs.readFileSync(file, 'utf8');
        for (const secret of [BEARER, 'sk_test_secretkeyvalue', 'whsec_secretvalue', 'tok_value', 'Bearer direct'])
          expect(text).not.toContain(secret);
        expect(text).toContain('[redacted]');
        if (format === 'pretty') {
          expect(text).toMatch(/^\d\d:\d\d:\d\d INFO with credentials /m);
          expect(text).toMatch(/^\d\d:\d\d:\d\d ERROR request failed /m);
          expect(text).toMatch(/^ {4}Error: failed$/m);
          expect(text).not.toMatch(/^\{/m);
        } else {
          expect(
            text
              .trim()
              .split('\n')
              .every((line) => line.startsWith('{')),
          ).toBe(true);
        }
      }
      // a file is not a terminal: JSON unless told otherwise
      const auto = path.join(dir, 'auto.log');
      createLogger('info', auto).info('plain');
      expect(JSON.parse(fs.readFileSync(auto, 'utf8'))).toMatchObject({ msg: 'plain' });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

const hasScript = spawnSync('script', ['--version']).status === 0;

describe(`serve's request lines (${dialectName})`, () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  /** the environment of a serve of the test database with the logs left to serve's defaults (stdout, info) */
  const serveEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: db.url,
      PAYPLANE_HOME: db.home,
      PAYPLANE_TOKEN_SECRET: TEST_TOKEN_SECRET,
      ...extra,
    };
    for (const name of ['PAYPLANE_LOG_LEVEL', 'PAYPLANE_LOG_FILE', 'PAYPLANE_LOG_FORMAT', 'NODE_ENV', 'NO_COLOR', 'FORCE_COLOR'])
      if (!(name in extra)) delete env[name];
    return env;
  };

  /**
   * `payplane serve` on a pseudo-terminal (script(1)): one request with a bearer credential, then Ctrl-C typed on the
   * terminal. Returns what the terminal showed and the exit code.
   */
  async function serveOnTerminal(extra: Record<string, string>): Promise<{ out: string; code: number | null }> {
    const child = spawn('script', ['-qec', `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} serve --port 0`, '/dev/null'], {
      cwd: ROOT,
      env: serveEnv({ COLUMNS: '200', ...extra }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const deadline = Date.now() + 60_000;
      let url: string | undefined;
      while (!url) {
        const m = /serving (http:\/\/\S+)/.exec(stripAnsi(out));
        if (m && stripAnsi(out).includes('Ctrl-C to stop')) url = m[1];
        else if (Date.now() > deadline || child.exitCode !== null) throw new Error(`serve did not start on the terminal:\n${out}`);
        else await new Promise((r) => setTimeout(r, 50));
      }
      const res = await fetch(`${url}/v1/payments?limit=5&key=cs_secret_in_the_query`, { headers: { Authorization: `Bearer ${BEARER}` } });
      expect(res.status).toBe(401);
      const requestId = res.headers.get('request-id')!;
      for (let i = 0; i < 100 && !out.includes(requestId); i++) await new Promise((r) => setTimeout(r, 50));
      child.stdin!.write('\x03'); // Ctrl-C on the terminal
      const code = await Promise.race([exited, new Promise<null>((r) => setTimeout(() => r(null), 20_000))]);
      return { out: out.replace(/\r\n/g, '\n'), code };
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }

  testWhenPresent('a terminal', hasScript ? null : 'no `script` command (bsdutils)')(
    'on a terminal: readable request lines, no JSON, nothing secret; Ctrl-C exits 0',
    async () => {
      const { out, code } = await serveOnTerminal({ NO_COLOR: '1' });
      expect(code).toBe(0);
      expect(out).toMatch(READABLE_REQUEST);
      expect(out).not.toMatch(/^\{"level"/m);
      expect(out).not.toMatch(ESC);
      expect(out).not.toContain(BEARER);
      expect(out).not.toContain('cs_secret_in_the_query');
      expect(out).toContain('SIGINT: finishing running requests');
    },
  );

  testWhenPresent('a terminal', hasScript ? null : 'no `script` command (bsdutils)')(
    'in colour when colour is on; JSON on a terminal too under PAYPLANE_LOG_FORMAT=json',
    async () => {
      const coloured = await serveOnTerminal({ FORCE_COLOR: '1' });
      expect(coloured.code).toBe(0);
      const line = coloured.out.split('\n').find((l) => l.includes('/v1/payments') && / 401 /.test(stripAnsi(l)))!;
      expect(line).toMatch(ESC);
      expect(stripAnsi(line)).toMatch(READABLE_REQUEST);

      const json = await serveOnTerminal({ NO_COLOR: '1', PAYPLANE_LOG_FORMAT: 'json' });
      expect(json.code).toBe(0);
      const request = json.out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.msg === 'request');
      expect(request).toMatchObject({ level: 30, method: 'GET', path: '/v1/payments', status: 401 });
      expect(json.out).not.toMatch(READABLE_REQUEST);
      expect(json.out).not.toContain(BEARER);
    },
  );

  test('piped: JSON lines by default, readable lines under PAYPLANE_LOG_FORMAT=pretty', async () => {
    const unset = { PAYPLANE_LOG_LEVEL: undefined, PAYPLANE_LOG_FILE: undefined, PAYPLANE_LOG_FORMAT: undefined };
    const request = async (server: Awaited<ReturnType<typeof startServe>>) => {
      const res = await server.request('/v1/payments', { credential: BEARER });
      expect(res.status).toBe(401);
      const id = res.headers.get('request-id')!;
      for (let i = 0; i < 100 && !server.output().includes(id); i++) await new Promise((r) => setTimeout(r, 50));
      return id;
    };
    const piped = await startServe(db, unset);
    try {
      const id = await request(piped);
      const line = piped
        .output()
        .split('\n')
        .find((l) => l.includes(id))!;
      expect(JSON.parse(line)).toMatchObject({ msg: 'request', requestId: id, status: 401 });
    } finally {
      expect(await piped.stop()).toBe(0);
    }
    const pretty = await startServe(db, { ...unset, PAYPLANE_LOG_FORMAT: 'pretty' });
    try {
      const id = await request(pretty);
      expect(pretty.output()).toMatch(READABLE_REQUEST);
      expect(pretty.output()).toContain(id);
      expect(pretty.output()).not.toMatch(/^\{"level"/m);
      expect(pretty.output()).not.toContain(BEARER);
    } finally {
      expect(await pretty.stop()).toBe(0);
    }
  });
});
