import dns from 'node:dns';
import net from 'node:net';
import os from 'node:os';
import { useApiHarness, expectProblem } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { operatorContext } from '../../src/services/access/operators';
import { emitEvent } from '../../src/services/webhooks/events';
import { Dispatcher } from '../../src/services/webhooks/dispatcher';
import { addressAllowed, checkDestination, WebhookTransport, type Resolver } from '../../src/services/webhooks/transport';
import { openListenerEndpoint } from '../../src/listener/listener';
import { ValidationError } from '../../src/domain/errors';

/**
 * The webhook address filter, as an attacker would probe it: every way of writing a private, loopback, link-local or
 * unspecified address into an endpoint URL is refused when the endpoint is saved (400 naming body.url) and when the
 * dispatcher connects (before any connection; a name is resolved by a stub resolver to each of the addresses).
 */

const hex = (v4: string) =>
  v4
    .split('.')
    .map(Number)
    .reduce<number[]>((acc, b, i) => (i % 2 ? [...acc.slice(0, -1), (acc[acc.length - 1] << 8) | b] : [...acc, b]), []);
const h16 = (n: number) => n.toString(16);
const inverted = (v4: string) =>
  hex(v4)
    .map((n) => h16(n ^ 0xffff))
    .join(':');
const halves = (v4: string) => hex(v4).map(h16).join(':');
const PUBLIC = '93.184.216.34';

/** Every IPv6 form that carries an IPv4 address, by the range that embeds it. */
const EMBEDDINGS: Record<string, (v4: string) => string> = {
  'IPv4-compatible (dotted)': (v4) => `::${v4}`,
  'IPv4-compatible (hex)': (v4) => `::${halves(v4)}`,
  'IPv4-mapped (dotted)': (v4) => `::ffff:${v4}`,
  'IPv4-mapped (hex, expanded, upper case)': (v4) => `0:0:0:0:0:FFFF:${halves(v4).toUpperCase()}`,
  'IPv4-translated ::ffff:0:0:0/96': (v4) => `::ffff:0:${v4}`,
  'NAT64 64:ff9b::/96': (v4) => `64:ff9b::${v4}`,
  '6to4 2002::/16': (v4) => `2002:${halves(v4)}::1`,
  'Teredo (server)': (v4) => `2001:0:${halves(v4)}:0:0:${inverted(PUBLIC)}`,
  'Teredo (client, inverted)': (v4) => `2001:0:${halves(PUBLIC)}:0:0:${inverted(v4)}`,
};
const REFUSED_IPV4 = ['127.0.0.1', '127.1.2.3', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0'];

/** Literal hosts as a URL may write them, each refused. */
const REFUSED_HOSTS: Array<[string, string]> = [
  ...Object.entries(EMBEDDINGS).flatMap(([form, embed]) =>
    REFUSED_IPV4.map((v4): [string, string] => [`${form} of ${v4}`, `[${embed(v4)}]`]),
  ),
  ['NAT64 local-use 64:ff9b:1::/48, even of a public address', `[64:ff9b:1::${PUBLIC}]`],
  ...REFUSED_IPV4.map((v4): [string, string] => [`IPv4 ${v4}`, v4]),
  ['decimal IPv4', '2130706433'],
  ['octal IPv4', '0177.0.0.1'],
  ['hex IPv4', '0x7f.0.0.1'],
  ['hex IPv4, one number', '0xa9fea9fe'],
  ['short IPv4', '127.1'],
  ['zero', '0'],
  ['trailing dot', '127.0.0.1.'],
  ['trailing dot, link-local', '169.254.169.254.'],
  ['IPv6 loopback', '[::1]'],
  ['IPv6 unspecified', '[::]'],
  ['IPv6 link-local', '[fe80::1]'],
  ['IPv6 link-local with a zone id', '[fe80::1%25eth0]'],
  ['IPv6 unique local', '[fd00::1]'],
  ['IPv6 site-local (deprecated)', '[fec0::1]'],
  ['IPv6 multicast', '[ff02::1]'],
];

/** What a name may resolve to at connect time: every refused literal, as a resolver answers it. */
const REFUSED_ADDRESSES = [
  ...Object.values(EMBEDDINGS).flatMap((embed) => REFUSED_IPV4.map(embed)),
  `64:ff9b:1::${PUBLIC}`,
  ...REFUSED_IPV4,
  '::1',
  '::',
  'fe80::1',
  'fe80::1%eth0',
  'fd00::1',
  'ff02::1',
];

let counter: net.Server;
let port: number;
let connections = 0;

// no private range allowed (PAYPLANE_WEBHOOK_ALLOW_CIDRS unset): every refused address is refused at save too
const h = useApiHarness(() => ({ start: new Date().toISOString(), config: { webhookAllowCidrs: [] } }));
beforeAll(async () => {
  // a listener on 127.0.0.1 of the port every refused URL names: nothing may ever connect to it
  counter = net.createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => counter.listen(0, '127.0.0.1', resolve));
  port = (counter.address() as net.AddressInfo).port;
});
h.beforeClose(() => new Promise((resolve) => counter.close(resolve)));

const merchantKey = () => h.sandbox.merchantKey.secretKey;
const refusal = /private, loopback or reserved address|^invalid URL$/;

describe(`webhook address filter (${dialectName})`, () => {
  test('the table: every refused address is refused by the one decision, and the same forms of a public address are not', () => {
    for (const address of REFUSED_ADDRESSES) expect([address, addressAllowed(address, [])]).toEqual([address, false]);
    for (const [form, embed] of Object.entries(EMBEDDINGS)) expect([form, addressAllowed(embed(PUBLIC), [])]).toEqual([form, true]);
    expect(addressAllowed('2606:2800:220:1:248:1893:25c8:1946', [])).toBe(true);
    // an allowed CIDR allows its addresses in every form that carries them, and nothing more
    expect(addressAllowed('::ffff:7f00:1', ['127.0.0.1/32'])).toBe(true);
    expect(addressAllowed('64:ff9b::127.0.0.1', ['127.0.0.1/32'])).toBe(true);
    expect(addressAllowed('64:ff9b::127.0.0.2', ['127.0.0.1/32'])).toBe(false);
  });

  test('at save: each form answers 400 naming body.url, on create and on update; the public forms are saved', async () => {
    for (const [form, host] of REFUSED_HOSTS) {
      const res = await h.as(merchantKey()).post('/v1/webhooks/endpoints', { url: `https://${host}:${port}/hook`, events: ['*'] });
      if (res.status !== 400) throw new Error(`${form} (${host}) was answered ${res.status}: ${JSON.stringify(res.body)}`);
      expectProblem(res, 400);
      expect([form, res.body.errors.map((e: { path: string }) => e.path)]).toEqual([form, ['body.url']]);
    }
    const saved = await h.as(merchantKey()).post('/v1/webhooks/endpoints', { url: 'https://hooks.example.com/hook', events: ['*'] });
    expect(saved.status).toBe(201);
    for (const [, host] of REFUSED_HOSTS.filter((_, i) => i % 7 === 0)) {
      const res = await h.as(merchantKey()).patch(`/v1/webhooks/endpoints/${saved.body.data.id}`, { url: `https://${host}/hook` });
      expectProblem(res, 400);
      expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(['body.url']);
    }
    const tenant = await h
      .as(h.sandbox.tenantKey.secretKey)
      .post('/v1/admin/webhook-endpoints', { url: 'https://[::127.0.0.1]/', events: ['*'] });
    expectProblem(tenant, 400, 'WEBHOOK_URL_NOT_ALLOWED');
    for (const [form, embed] of Object.entries(EMBEDDINGS)) {
      const res = await h.as(merchantKey()).post('/v1/webhooks/endpoints', { url: `https://[${embed(PUBLIC)}]/hook`, events: ['*'] });
      expect([form, res.status]).toEqual([form, 201]);
    }
    await h.rt.db.models.WebhookEndpoint.update({ status: 'disabled' }, { where: {} });
  });

  test('at save: names of this machine (localhost in every spelling, names resolving to loopback) on every level, create and update', async () => {
    const names: Array<[string, string]> = [
      ['localhost', 'localhost'],
      ['upper case', 'LOCALHOST'],
      ['fullwidth', '\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54'],
      ['trailing dot', 'localhost.'],
      ['soft hyphen (IDNA maps it away)', 'loc\u00adalhost'],
      ['a subdomain (RFC 6761)', 'api.localhost'],
      ['fullwidth digits of 127.0.0.1', '\uff11\uff12\uff17.0.0.1'],
      ['circled digits', '\u2460\u2461\u2466.0.0.1'],
    ];
    // this machine's own name, when its resolver answers it with a refused address (as /etc/hosts often does)
    const own = await dns.promises.lookup(os.hostname(), { all: true }).catch(() => []);
    if (own.length > 0 && own.some((a) => !addressAllowed(a.address, []))) names.push(["this machine's name", os.hostname()]);
    const levels = [
      { credential: () => merchantKey(), path: '/v1/webhooks/endpoints' },
      { credential: () => h.sandbox.tenantKey.secretKey, path: '/v1/admin/webhook-endpoints' },
      { credential: () => h.sandbox.platformToken, path: '/v1/admin/webhook-endpoints' },
    ];
    for (const level of levels) {
      const saved = await h.as(level.credential()).post(level.path, { url: 'https://hooks.example.com/hook', events: ['*'] });
      expect(saved.status).toBe(201);
      for (const [form, host] of names) {
        const url = `https://${host}:${port}/hook`;
        for (const res of [
          await h.as(level.credential()).post(level.path, { url, events: ['*'] }),
          await h.as(level.credential()).patch(`${level.path}/${saved.body.data.id}`, { url }),
        ]) {
          if (res.status !== 400)
            throw new Error(`${level.path}: ${form} (${host}) was answered ${res.status}: ${JSON.stringify(res.body)}`);
          expectProblem(res, 400, 'WEBHOOK_URL_NOT_ALLOWED');
          expect([form, res.body.errors]).toEqual([
            form,
            [{ path: 'body.url', message: expect.stringMatching(/private, loopback or reserved address$/) }],
          ]);
        }
      }
      const unchanged = await h.as(level.credential()).get(`${level.path}/${saved.body.data.id}`);
      expect(unchanged.body.data.url).toBe('https://hooks.example.com/hook');
    }
    await h.rt.db.models.WebhookEndpoint.update({ status: 'disabled' }, { where: {} });
  });

  test("at save, a name is checked by every address it resolves to now (the dispatcher's decision); unresolvable names are saved", async () => {
    const answers: Record<string, string[]> = {
      'public.hooks.example.com': [PUBLIC],
      'mixed.hooks.example.com': [PUBLIC, '::ffff:10.0.0.1'],
      'meta.hooks.example.com': ['169.254.169.254'],
    };
    const resolve: Resolver = async (name) => {
      if (!(name in answers)) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      return answers[name].map((address) => ({ address, family: net.isIP(address) }));
    };
    const check = (url: string, allowCidrs: string[] = []) => checkDestination(url, 'body.url', { allowCidrs, resolve });
    await expect(check('https://public.hooks.example.com/')).resolves.toBeUndefined();
    await expect(check('https://gone.hooks.example.com/')).resolves.toBeUndefined();
    await expect(check('https://mixed.hooks.example.com/')).rejects.toThrow(ValidationError);
    await expect(check('https://mixed.hooks.example.com/')).rejects.toMatchObject({
      code: 'WEBHOOK_URL_NOT_ALLOWED',
      errors: [
        { path: 'body.url', message: 'mixed.hooks.example.com resolves to ::ffff:10.0.0.1, a private, loopback or reserved address' },
      ],
    });
    await expect(check('https://META.hooks.example.com./')).rejects.toMatchObject({ code: 'WEBHOOK_URL_NOT_ALLOWED' });
    // an allowed CIDR allows at save what it allows at delivery, and nothing more
    await expect(check('https://mixed.hooks.example.com/', ['10.0.0.0/8'])).resolves.toBeUndefined();
    await expect(check('https://localhost/', ['127.0.0.1/32', '::1/128'])).resolves.toBeUndefined();
    await expect(check('https://localhost/', ['127.0.0.1/32'])).rejects.toMatchObject({ code: 'WEBHOOK_URL_NOT_ALLOWED' });
    // where the resolver knows localhost, its addresses are the ones the dispatcher connects to, and the ones checked
    const v4Only: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    await expect(
      checkDestination('https://localhost/', 'body.url', { allowCidrs: ['127.0.0.1/32'], resolve: v4Only }),
    ).resolves.toBeUndefined();
    await expect(checkDestination('https://localhost/', 'body.url', { allowCidrs: [], resolve: v4Only })).rejects.toMatchObject({
      code: 'WEBHOOK_URL_NOT_ALLOWED',
    });
  });

  test('the local listener registers its own localhost endpoint (no allowlist needed); the same URL is refused through the API', async () => {
    const ctx = operatorContext(h.rt, {
      level: 'merchant',
      tenantId: h.sandbox.tenantId,
      merchantId: h.sandbox.merchantId,
      livemode: false,
    });
    const opened = await openListenerEndpoint(ctx, { port, events: ['*'] });
    expect(opened).toMatchObject({ created: true, endpoint: { url: `https://localhost:${port}/`, status: 'enabled' } });
    const res = await h.as(merchantKey()).post('/v1/webhooks/endpoints', { url: `https://localhost:${port}/`, events: ['*'] });
    expectProblem(res, 400, 'WEBHOOK_URL_NOT_ALLOWED');
    await h.rt.db.models.WebhookEndpoint.update({ status: 'disabled' }, { where: {} });
  });

  test('at connect: literal addresses and names resolving to any of them are refused before a connection', async () => {
    const asked: string[] = [];
    const answers = new Map<string, string[]>();
    const resolve: Resolver = async (hostname) => {
      asked.push(hostname);
      return (answers.get(hostname) ?? []).map((address) => ({ address, family: net.isIP(address.replace(/%.*$/, '')) }));
    };
    const transport = new WebhookTransport({ allowCidrs: [], resolve });
    try {
      for (const [form, host] of REFUSED_HOSTS) {
        const result = await transport.post(`https://${host}:${port}/hook`, {}, '{}');
        expect([form, result.ok, result.error]).toEqual([form, false, expect.stringMatching(refusal)]);
      }
      REFUSED_ADDRESSES.forEach((address, i) => answers.set(`a${i}.hooks.example.com`, [address]));
      // a name with a public address and a refused one, and a name written with a trailing dot
      answers.set('mixed.hooks.example.com', [PUBLIC, '::ffff:127.0.0.1']);
      answers.set('dot.hooks.example.com.', ['::ffff:127.0.0.1']);
      for (const name of answers.keys()) {
        const result = await transport.post(`https://${name}:${port}/hook`, {}, '{}');
        expect([name, result.ok, result.error]).toEqual([
          name,
          false,
          expect.stringMatching(/resolves to .*, a private, loopback or reserved address$/),
        ]);
      }
      expect(new Set(asked)).toEqual(new Set(answers.keys()));
    } finally {
      transport.close();
    }
    expect(connections).toBe(0);
  });

  test('the dispatcher delivers through the same check: a saved name that resolves to ::127.0.0.1 is refused, retried, never connected to', async () => {
    const endpoint = await h
      .as(merchantKey())
      .post('/v1/webhooks/endpoints', { url: `https://rebinding.hooks.example.com:${port}/hook`, events: ['payment.*'] });
    expect(endpoint.status).toBe(201);
    const dispatcher = new Dispatcher(h.rt, { transport: { allowCidrs: [], resolve: async () => [{ address: '::7f00:1', family: 6 }] } });
    try {
      const ctx = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
      await h.rt.db.transaction((transaction) =>
        emitEvent({ ...ctx, transaction }, { type: 'payment.created', data: { id: 'pay_1' }, merchantId: h.sandbox.merchantId }),
      );
      expect(await dispatcher.runOnce()).toBe(1);
    } finally {
      dispatcher['sender'].close();
    }
    const row = (await h.as(merchantKey()).get(`/v1/webhooks/deliveries?endpoint_id=${endpoint.body.data.id}`)).body.data[0];
    expect(row).toMatchObject({
      status: 'pending',
      attemptCount: 1,
      lastError: 'rebinding.hooks.example.com resolves to ::7f00:1, a private, loopback or reserved address',
    });
    expect(connections).toBe(0);
  });
});
