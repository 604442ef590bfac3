import crypto from 'node:crypto';
import request from 'supertest';
import { useMoneyHarness } from '../helpers/money';
import { dialectName } from '../helpers/db';
import { SandboxCardConnector } from '../../src/connectors/sandbox-card';
import { publicUrl } from '../../src/util/public-url';
import { finalizeDue } from '../../src/services/settlements/statements';

/**
 * Every URL the API hands out is absolute, on the one public base (PAYPLANE_PUBLIC_URL, else the request's origin,
 * else the address serve listens at): a merchant redirects a browser to it. A scenario of hosted checkout with a 3DS
 * challenge, refunds, KYB documents and webhook endpoints records every answer, every webhook the receiver got and
 * every event of the outbox; the walk finds every string under a key named url, href, …Url, …Path or …Href and every
 * string that starts with "/", wherever it sits, so a new field or a new place is covered.
 */

const BASE = 'https://pay.example.test/pp';
const URL_KEY = /^(url|href|path)$|(Url|Href|Path)$/;
/** keys whose values are base64 binary (a 3DS cryptogram), which begins with "/" one time in 64 and is never a URL */
const BINARY_KEYS = new Set(['cavv']);

/** Every URL-like string of a value: [where, value]. */
function urlsIn(value: unknown, where = '', key = ''): Array<[string, string]> {
  if (typeof value === 'string') return URL_KEY.test(key) || (value.startsWith('/') && !BINARY_KEYS.has(key)) ? [[where, value]] : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => urlsIn(v, `${where}[${i}]`, key));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => urlsIn(v, `${where}.${k}`, k));
  return [];
}

const HOST = 'api.example.test:8443';

describe.each([
  ['PAYPLANE_PUBLIC_URL set', { publicBaseUrl: `${BASE}/` }, undefined, [`${BASE}/`]],
  // without it, each request's origin (the Host it came to), else (a job) the address serve listens at
  ['without PAYPLANE_PUBLIC_URL', {}, HOST, [`http://${HOST}/`, 'http://127.0.0.1:4242/']],
] as const)('URLs handed out are absolute, on one base: %s (' + dialectName + ')', (_name, config, host, bases) => {
  const m = useMoneyHarness({ config: { ...config } });

  test('a scenario of sessions, a 3DS payment, refunds, KYB and webhooks: every answer, webhook and outbox event', async () => {
    const base = bases[0].slice(0, -1);
    /** URLs the scenario itself sent: they come back as given (absolute, of the client's choosing) */
    const given = new Set([m.receiver.url(), 'https://shop.example/ok', 'https://shop.example/cancel']);
    const answers: Array<[string, unknown]> = [];
    const ok = (label: string, res: request.Response) => {
      if (res.status >= 300) throw new Error(`${label}: ${res.status} ${JSON.stringify(res.body)}`);
      answers.push([label, res.body]);
      return res.body.data;
    };
    const at = (test: request.Test) => (host ? test.set('Host', host) : test);
    const as = (key: string) => {
      const caller = m.as(key);
      return {
        get: (path: string) => at(caller.get(path)),
        post: (path: string, body?: object) => at(caller.post(path, body)),
      };
    };
    const merchant = as(m.sandbox.merchantKey.secretKey);
    const tenant = as(m.sandbox.tenantKey.secretKey);

    // hosted checkout with a card that asks for a 3DS challenge
    const session = ok(
      'create session',
      await merchant.post('/v1/checkout-sessions', {
        amount: { currency: 'EUR', valueMinor: 10_000 },
        successUrl: 'https://shop.example/ok',
        cancelUrl: 'https://shop.example/cancel',
      }),
    );
    ok(
      'create session (tenant)',
      await tenant.post('/v1/checkout-sessions', { merchantId: m.sandbox.merchantId, amount: { currency: 'EUR', valueMinor: 500 } }),
    );
    const completed = ok(
      'complete',
      await merchant.post(`/v1/checkout-sessions/${session.id}/complete`, {
        paymentMethod: {
          type: 'card',
          card: { number: '4000002760003184', expMonth: 12, expYear: 2030, cvc: '123', holderName: 'Ada Lovelace' },
        },
      }),
    );
    await m.settle();
    const payment = ok('payment requiring action', await merchant.get(`/v1/payments/${completed.paymentId}`));
    expect(payment).toMatchObject({
      status: 'requires_action',
      action: { type: 'redirect', url: expect.stringMatching(/^https?:\/\/[^/]+\/(pp\/)?sandbox\/3ds\//) },
    });
    ok('payment requiring action (tenant)', await tenant.get(`/v1/payments/${completed.paymentId}`));
    ok('sessions', await merchant.get('/v1/checkout-sessions'));
    ok('session', await merchant.get(`/v1/checkout-sessions/${session.id}`));
    // the customer passes the challenge on the page the url names (a proxy at PAYPLANE_PUBLIC_URL strips its path)
    const page = payment.action.url.startsWith(base) ? payment.action.url.slice(base.length) : payment.action.url;
    expect((await request(m.app).post(page).type('form').send({ action: 'complete' })).status).toBeLessThan(400);
    await m.settle();
    ok('captured payment', await merchant.get(`/v1/payments/${completed.paymentId}`));
    ok(
      'refund',
      await merchant
        .post(`/v1/payments/${completed.paymentId}/refunds`, { amount: { currency: 'EUR', valueMinor: 1_000 } })
        .set('Idempotency-Key', crypto.randomUUID()),
    );
    await m.settle();
    ok('refunds', await merchant.get(`/v1/payments/${completed.paymentId}/refunds`));
    ok('payments', await tenant.get('/v1/payments'));

    // KYB: a submission with a document
    const draft = ok('kyb draft', await merchant.post('/v1/kyb-submissions', { data: { legalName: 'Sandbox Company GmbH' } }));
    ok(
      'kyb upload',
      await at(request(m.app).post(`/v1/kyb-submissions/${draft.id}/documents?type=certificate_of_incorporation`))
        .set('Authorization', `Bearer ${m.sandbox.merchantKey.secretKey}`)
        .attach('file', Buffer.from('%PDF-1.7\nx'), { filename: 'c.pdf', contentType: 'application/pdf' }),
    );
    ok('kyb submission', await merchant.get(`/v1/kyb-submissions/${draft.id}`));
    ok('kyb latest', await merchant.get('/v1/kyb-submissions/latest'));
    ok('kyb review queue', await tenant.get('/v1/admin/kyb-submissions'));

    // webhooks
    ok('endpoints', await merchant.get('/v1/webhooks/endpoints'));
    ok('deliveries', await merchant.get('/v1/webhooks/deliveries'));
    ok('event types', await merchant.get('/v1/webhooks/event-types'));

    // settlement statements: the download URL in answers, and in settlement.finalized once the job (no request) finalized the day
    const [statement] = ok('settlements', await merchant.get('/v1/settlements'));
    ok('settlement', await tenant.get(`/v1/settlements/${statement.id}`));
    m.clock.advance(86_400_000);
    expect(await finalizeDue(m.rt)).toBeGreaterThan(0);
    await m.settle();

    const received = m.events();
    expect(received.map((e) => e.type)).toEqual(
      expect.arrayContaining(['checkout.session.created', 'payment.requires_action', 'payment.captured', 'settlement.finalized']),
    );
    const outbox = (await m.rt.db.models.Event.findAll()).map((row) => row.get({ plain: true }) as { type: string; data: unknown });
    const found = [
      ...answers.flatMap(([label, body]) => urlsIn(body, label)),
      ...received.flatMap((event) => urlsIn(event, `webhook ${event.type}`)),
      ...outbox.flatMap((event) => urlsIn(event.data, `outbox ${event.type}`)),
    ];
    const handedOut = found.filter(([, value]) => !given.has(value));
    // the walk does find them: session urls and the 3DS page, in answers, webhooks and the outbox
    expect(handedOut.filter(([where]) => /^webhook payment\.requires_action/.test(where))).not.toEqual([]);
    expect(handedOut.filter(([where]) => /^outbox checkout\.session\.created/.test(where))).not.toEqual([]);
    expect(handedOut.filter(([where]) => /^create session/.test(where))).not.toEqual([]);
    expect(handedOut.filter(([where]) => /^outbox settlement\.finalized/.test(where))).not.toEqual([]);
    expect(handedOut.filter(([where]) => /^settlement\./.test(where))).not.toEqual([]);
    expect(handedOut.filter(([, value]) => !bases.some((b) => value.startsWith(b)))).toEqual([]);
    // and what the client gave comes back absolute
    expect(found.filter(([, value]) => given.has(value) && !/^https?:\/\/[^/]/.test(value))).toEqual([]);
  }, 120_000);
});

describe(`without PAYPLANE_PUBLIC_URL (${dialectName})`, () => {
  const m = useMoneyHarness();

  test('a request links to its own origin; a URL made outside a request (a job) to the address serve listens at', async () => {
    const merchant = m.as(m.sandbox.merchantKey.secretKey);
    const session = (await merchant.post('/v1/checkout-sessions', { amount: { currency: 'EUR', valueMinor: 700 } })).body.data;
    expect(session.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/checkout\//);
    const completed = (
      await merchant.post(`/v1/checkout-sessions/${session.id}/complete`, {
        paymentMethod: { type: 'card', card: { number: '4000002760003184', expMonth: 12, expYear: 2030, cvc: '123' } },
      })
    ).body.data;
    const payment = (await merchant.get(`/v1/payments/${completed.paymentId}`)).body.data;
    expect(payment.action.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sandbox\/3ds\/[A-Za-z0-9_-]+$/);

    // the connector called without a request (as the jobs call it): the configured listen address
    const env = { db: m.rt.db, clock: m.rt.clock, config: m.rt.config };
    expect(m.rt.config.listenUrl).toMatch(/^http:\/\//);
    const terminal = (await m.rt.db.models.Terminal.findOne())!.get({ plain: true }) as { id: string; providerIntegrationId: string };
    const answer = await new SandboxCardConnector().authorize(
      env,
      {
        terminalId: terminal.id,
        providerIntegrationId: terminal.providerIntegrationId,
        connectorBaseUrl: 'sandbox',
        credentials: {},
        mcc: null,
        descriptor: null,
      } as never,
      {
        reference: crypto.randomUUID(),
        tenantId: m.sandbox.tenantId,
        livemode: false,
        amount: { currency: 'EUR', valueMinor: 1 },
        capture: true,
        paymentMethod: { type: 'card', card: { number: '4000002760003184', expMonth: 12, expYear: 2030 } },
      },
    );
    expect(answer.action!.url).toMatch(new RegExp(`^${publicUrl(env, '/sandbox/3ds/').replace(/[.]/g, '\\.')}[A-Za-z0-9_-]+$`));
    expect(answer.action!.url.startsWith(`${m.rt.config.listenUrl}/sandbox/3ds/`)).toBe(true);
  });
});
