import crypto from 'node:crypto';
import request from 'supertest';
import { SignJWT } from 'jose';
import { useApiHarness, expectProblem } from '../helpers/api';
import { dialectName, onPostgres, testConfig } from '../helpers/db';
import { createApp } from '../../src/http/app';
import { openRuntime, closeRuntime, type Runtime } from '../../src/runtime';
import { operatorContext } from '../../src/services/access/operators';
import { createApiKey, revokeApiKey } from '../../src/services/api-keys/keys';
import { TOKEN_AUDIENCE, TOKEN_ISSUER } from '../../src/services/access/tokens';

// Issue 20, item 9: failed authentications are limited per client address and per credential identifier (an API
// key's public prefix, a checkout session of a clientSecret), with 429 AUTH_RATE_LIMITED and Retry-After, before any
// lookup of the credential; a credential that already authenticated is never locked out by someone else's failures;
// the window follows the injected clock; on Postgres every process on the database shares the counts.

const PER_ADDRESS = 10;
const PER_KEY = 5;
const WINDOW_SECONDS = 300;
const LIMITS = { authFailuresPerAddress: PER_ADDRESS, authFailuresPerKey: PER_KEY, authFailureWindowSeconds: WINDOW_SECONDS };

let proxied: ReturnType<typeof createApp>;
let addresses = 0;
/** a client address of its own for each use (TEST-NET-3, then 198.18/15) */
const freshAddress = () => {
  addresses++;
  return addresses < 250 ? `203.0.113.${addresses}` : `198.18.${Math.floor(addresses / 250)}.${addresses % 250}`;
};

const base62 = (n: number) =>
  Array.from(crypto.randomBytes(n), (b) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'[b % 62]).join('');
/** a well-formed secret key nobody holds (a prefix of its own) */
const unknownKey = () => `sk_test_${base62(56)}`;
/** the real key's public prefix with a wrong secret */
const wrongSecretOf = (secretKey: string) => `${secretKey.slice(0, 'sk_test_'.length + 16)}${base62(40)}`;

/** GET /v1/api-keys (or another path) from a client address, through the proxy the app trusts */
function call(credential: string, ip: string, path = '/v1/api-keys', app = proxied) {
  return request(app).get(path).set('Authorization', `Bearer ${credential}`).set('X-Forwarded-For', ip);
}

function expectThrottled(res: request.Response, retryAfter?: number) {
  expectProblem(res, 429, 'AUTH_RATE_LIMITED');
  const seconds = Number(res.headers['retry-after']);
  expect(Number.isInteger(seconds) && seconds >= 1 && seconds <= WINDOW_SECONDS).toBe(true);
  if (retryAfter !== undefined) expect(seconds).toBe(retryAfter);
}

const h = useApiHarness({ config: LIMITS });
beforeAll(async () => {
  proxied = createApp({ ...h.rt, config: { ...h.rt.config, trustProxy: 'loopback' } });
});
/** each test in a window of its own, from its start */
beforeEach(() => {
  const windowMs = WINDOW_SECONDS * 1000;
  h.clock.set(new Date((Math.floor(h.clock.now().getTime() / windowMs) + 1) * windowMs));
});

describe(`failed authentication is throttled (${dialectName})`, () => {
  test('per address: after the limit of wrong credentials of any kind, 429 with Retry-After before any key is read; other addresses unaffected', async () => {
    const tenantKey = h.sandbox.tenantKey.secretKey;
    const attacker = freshAddress();
    // a credential in use before the attack (it authenticated once)
    expect((await call(tenantKey, attacker)).status).toBe(200);
    const ctx = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
    const neverUsed = await createApiKey(ctx, { ownerType: 'tenant' });

    const forged = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(h.sandbox.platformUserId)
      .setIssuer(TOKEN_ISSUER)
      .setAudience(TOKEN_AUDIENCE)
      .setIssuedAt(Math.floor(h.clock.now().getTime() / 1000))
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('x'.repeat(48)));
    // every kind of unverified credential counts: unknown keys, forged tokens, wrong client secrets, malformed headers
    const wrong = [
      () => call(unknownKey(), attacker),
      () => call(forged, attacker, '/v1/admin/tenants'),
      () => call(`cs_test_${crypto.randomUUID().replace(/-/g, '')}_secret_${base62(32)}`, attacker),
      () => request(proxied).get('/v1/api-keys').set('Authorization', 'Basic YWxhZGRpbjpvcGVuc2VzYW1l').set('X-Forwarded-For', attacker),
      () => call('sk_test_short', attacker),
    ];
    for (let i = 0; i < PER_ADDRESS; i++) {
      const res = await wrong[i % wrong.length]();
      expect(res.status).toBe(401);
      expect(['INVALID_API_KEY', 'INVALID_TOKEN', 'INVALID_CLIENT_SECRET', 'INVALID_CREDENTIALS']).toContain(res.body.code);
    }

    // the address is blocked: refused before the key, the session or the user is read
    const reads = [
      jest.spyOn(h.rt.db.models.ApiKey, 'findOne'),
      jest.spyOn(h.rt.db.models.CheckoutSession, 'findOne'),
      jest.spyOn(h.rt.db.models.User, 'findOne'),
    ];
    try {
      for (const attempt of wrong) expectThrottled(await attempt(), WINDOW_SECONDS);
      // a genuine key never used before is refused too (the address is blocked, as Stripe blocks it)
      expectThrottled(await call(neverUsed.secretKey, attacker));
      for (const read of reads) expect(read).not.toHaveBeenCalled();
    } finally {
      for (const read of reads) read.mockRestore();
    }
    // a credential that already authenticated is not locked out by failures of others at its address
    expect((await call(tenantKey, attacker)).status).toBe(200);
    // another address: a good key works, a wrong one is an ordinary 401
    const other = freshAddress();
    expect((await call(neverUsed.secretKey, other)).status).toBe(200);
    expectProblem(await call(unknownKey(), other), 401, 'INVALID_API_KEY');

    // Retry-After counts down with the clock; once the window is over the address may try again
    h.clock.advance(100_000);
    expectThrottled(await call(unknownKey(), attacker), WINDOW_SECONDS - 100);
    h.clock.advance((WINDOW_SECONDS - 100) * 1000);
    expectProblem(await call(unknownKey(), attacker), 401, 'INVALID_API_KEY');
    const fresh = await createApiKey(ctx, { ownerType: 'tenant' });
    expect((await call(fresh.secretKey, attacker)).status).toBe(200);
  });

  test('per key prefix: wrong secrets of a real key from rotating addresses are refused after the limit; its holder keeps working', async () => {
    const ctx = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
    const victim = await createApiKey(ctx, { ownerType: 'tenant' });
    const idle = await createApiKey(ctx, { ownerType: 'tenant' });
    const holder = freshAddress();
    expect((await call(victim.secretKey, holder)).status).toBe(200);

    for (const key of [victim, idle]) {
      for (let i = 0; i < PER_KEY; i++) expectProblem(await call(wrongSecretOf(key.secretKey), freshAddress()), 401, 'INVALID_API_KEY');
      // each address made a single attempt: the prefix's own counter refuses the next one, wherever it comes from
      expectThrottled(await call(wrongSecretOf(key.secretKey), freshAddress()), WINDOW_SECONDS);
      expect((await call(wrongSecretOf(key.secretKey), freshAddress())).body.detail).toMatch(/API key/);
    }
    // the key's holder is not locked out: a key that authenticated keeps working, from its address or another
    expect((await call(victim.secretKey, holder)).status).toBe(200);
    expect((await call(victim.secretKey, freshAddress())).status).toBe(200);
    // a key that never authenticated waits for the end of the window (or is rotated: a new prefix)
    expectThrottled(await call(idle.secretKey, freshAddress()), WINDOW_SECONDS);
    // other keys are not concerned
    expect((await call(h.sandbox.merchantKey.secretKey, freshAddress())).status).toBe(200);
    h.clock.advance(WINDOW_SECONDS * 1000);
    expect((await call(idle.secretKey, freshAddress())).status).toBe(200);
    expectProblem(await call(wrongSecretOf(victim.secretKey), freshAddress()), 401, 'INVALID_API_KEY');
  });

  test("per checkout session: wrong clientSecrets of a session are refused after the limit, on the API and the hosted page; the customer's secret keeps working", async () => {
    const created = await h
      .as(h.sandbox.merchantKey.secretKey)
      .post('/v1/checkout-sessions', { amount: { currency: 'EUR', valueMinor: 1500 } });
    expect(created.status).toBe(201);
    const { id, clientSecret } = created.body.data as { id: string; clientSecret: string };
    const customer = freshAddress();
    const patch = (secret: string, ip: string) =>
      request(proxied)
        .patch(`/v1/checkout-sessions/${id}`)
        .set('Authorization', `Bearer ${secret}`)
        .set('X-Forwarded-For', ip)
        .send({ customerInfo: { name: 'Ada' } });
    expect((await patch(clientSecret, customer)).status).toBe(200);
    const guess = () => clientSecret.replace(/_secret_.*$/, `_secret_${base62(32)}`);
    for (let i = 0; i < PER_KEY - 1; i++) expectProblem(await patch(guess(), freshAddress()), 401, 'INVALID_CLIENT_SECRET');
    // the hosted page's wrong keys count on the same counter (a 404 page)
    const page = await request(proxied).get(`/checkout/${id}`).query({ key: guess() }).set('X-Forwarded-For', freshAddress());
    expect(page.status).toBe(404);
    const refused = await patch(guess(), freshAddress());
    expectThrottled(refused, WINDOW_SECONDS);
    expect(refused.body.detail).toMatch(/checkout session/);
    const refusedPage = await request(proxied).get(`/checkout/${id}`).query({ key: guess() }).set('X-Forwarded-For', freshAddress());
    expect(refusedPage.status).toBe(429);
    expect(refusedPage.headers['retry-after']).toBe(String(WINDOW_SECONDS));
    // the customer's own secret still works
    expect((await patch(clientSecret, customer)).status).toBe(200);
  });

  test('the client address is the one Express trusts: X-Forwarded-For is ignored without PAYPLANE_TRUST_PROXY', async () => {
    // h.app trusts no proxy: rotating X-Forwarded-For does not make rotating addresses
    for (let i = 0; i < PER_ADDRESS; i++)
      expectProblem(await call(unknownKey(), freshAddress(), '/v1/api-keys', h.app), 401, 'INVALID_API_KEY');
    expectThrottled(await call(unknownKey(), freshAddress(), '/v1/api-keys', h.app));
    // behind the trusted proxy the forwarded addresses are the clients: another one is not blocked
    expectProblem(await call(unknownKey(), freshAddress()), 401, 'INVALID_API_KEY');
  });

  test('genuine credentials refused for their state are not counted as guesses', async () => {
    const ctx = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
    const revoked = await createApiKey(ctx, { ownerType: 'tenant' });
    await revokeApiKey(ctx, revoked.id);
    const expired = await h.rt.tokens.issue(h.sandbox.platformUserId, 60, false);
    h.clock.advance(61_000);
    const client = freshAddress();
    for (let i = 0; i < PER_ADDRESS * 2; i++) {
      expectProblem(await call(revoked.secretKey, client), 401, 'API_KEY_REVOKED');
      expectProblem(await call(expired.token, client, '/v1/admin/tenants'), 401, 'TOKEN_EXPIRED');
      expectProblem(await request(proxied).get('/v1/api-keys').set('X-Forwarded-For', client), 401, 'MISSING_CREDENTIALS');
    }
    expectProblem(await call(unknownKey(), client), 401, 'INVALID_API_KEY');
  });

  (onPostgres ? test : test.skip)('two processes on one database share the counts (postgres)', async () => {
    const second: Runtime = await openRuntime(testConfig(h.db, { ...LIMITS, trustProxy: 'loopback' }), { clock: h.clock });
    try {
      const apps = [proxied, createApp(second)];
      const attacker = freshAddress();
      for (let i = 0; i < PER_ADDRESS; i++)
        expectProblem(await call(unknownKey(), attacker, '/v1/api-keys', apps[i % 2]), 401, 'INVALID_API_KEY');
      for (const app of apps) expectThrottled(await call(unknownKey(), attacker, '/v1/api-keys', app), WINDOW_SECONDS);

      // the per-key counter too, and the trust a key earned in one process holds in the other
      const ctx = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
      const victim = await createApiKey(ctx, { ownerType: 'tenant' });
      expect((await call(victim.secretKey, freshAddress(), '/v1/api-keys', apps[0])).status).toBe(200);
      for (let i = 0; i < PER_KEY; i++)
        expectProblem(
          await call(wrongSecretOf(victim.secretKey), freshAddress(), '/v1/api-keys', apps[(i + 1) % 2]),
          401,
          'INVALID_API_KEY',
        );
      for (const app of apps) expectThrottled(await call(wrongSecretOf(victim.secretKey), freshAddress(), '/v1/api-keys', app));
      expect((await call(victim.secretKey, freshAddress(), '/v1/api-keys', apps[1])).status).toBe(200);
    } finally {
      await closeRuntime(second);
    }
  });
});
