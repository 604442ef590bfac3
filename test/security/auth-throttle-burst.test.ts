import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { useApiHarness, expectProblem } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { createApp } from '../../src/http/app';
import { operatorContext } from '../../src/services/access/operators';
import { createApiKey } from '../../src/services/api-keys/keys';

/**
 * The failed-authentication throttle (src/http/auth-throttle.ts) against a burst in flight: each attempt reserves its
 * point before its credential is verified, so N concurrent bad attempts let at most the limit through to verification;
 * a failure of ours (the identity provider's keys unreachable) is 503 and takes no point; the /metrics bearer is
 * throttled as the API's credentials are.
 */
const PER_ADDRESS = 8;
const PER_KEY = 4;
const WINDOW_SECONDS = 300;
const METRICS_TOKEN = 'metrics-token-0123456789abcdef';
const ISSUER = 'https://idp.example.test';

let server: http.Server;
let jwks: http.Server;
let jwksMode: 'keys' | 'down' | 'error' | 'garbage' = 'down';
let idpKey: CryptoKey;
let addresses = 0;
const freshAddress = () => `203.0.113.${++addresses}`;
const base62 = (n: number) =>
  Array.from(crypto.randomBytes(n), (b) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'[b % 62]).join('');
const unknownKey = () => `sk_test_${base62(56)}`;

function call(credential: string, ip: string, path = '/v1/api-keys') {
  return request(server).get(path).set('Authorization', `Bearer ${credential}`).set('X-Forwarded-For', ip);
}

/** n attempts at once (all sent before any is answered), their answers' statuses counted */
async function burst(n: number, attempt: (i: number) => request.Test): Promise<Record<number, number>> {
  const answers = await Promise.all(Array.from({ length: n }, (_, i) => attempt(i)));
  const counts: Record<number, number> = {};
  for (const res of answers) counts[res.status] = (counts[res.status] ?? 0) + 1;
  for (const res of answers) if (res.status === 429) expectProblem(res, 429, 'AUTH_RATE_LIMITED');
  return counts;
}

function idpToken(): Promise<string> {
  const now = Math.floor(h.clock.now().getTime() / 1000);
  return new SignJWT({ mode: 'test' })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setIssuer(ISSUER)
    .setAudience('payplane')
    .setSubject('idp|nobody')
    .setIssuedAt(now)
    .setExpirationTime(now + 300)
    .sign(idpKey);
}

beforeAll(async () => {
  const pair = await generateKeyPair('RS256', { extractable: true });
  idpKey = pair.privateKey;
  const other = await generateKeyPair('RS256', { extractable: true });
  // the identity provider's key set: down (the connection is closed), an error, not JSON, or a set without the token's key
  const jwk = { ...(await exportJWK(other.publicKey)), kid: 'other', alg: 'RS256', use: 'sig' };
  jwks = http.createServer((req, res) => {
    if (jwksMode === 'down') return req.socket.destroy();
    if (jwksMode === 'error') return res.writeHead(500).end('oops');
    res.setHeader('Content-Type', 'application/json');
    res.end(jwksMode === 'garbage' ? '{"keys": [' : JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
});
const h = useApiHarness(() => ({
  config: {
    authFailuresPerAddress: PER_ADDRESS,
    authFailuresPerKey: PER_KEY,
    authFailureWindowSeconds: WINDOW_SECONDS,
    metricsToken: METRICS_TOKEN,
    oidcIssuer: ISSUER,
    oidcJwksUrl: `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks`,
    oidcAudience: 'payplane',
  },
}));
beforeAll(async () => {
  server = http.createServer(createApp({ ...h.rt, config: { ...h.rt.config, trustProxy: 'loopback' } }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
h.beforeClose(async () => {
  await new Promise((resolve) => server.close(resolve));
  await new Promise((resolve) => jwks.close(resolve));
});
beforeEach(() => {
  const windowMs = WINDOW_SECONDS * 1000;
  h.clock.set(new Date((Math.floor(h.clock.now().getTime() / windowMs) + 1) * windowMs));
});

describe(`failed-authentication throttle under a burst (${dialectName})`, () => {
  test('per address: a burst of bad keys at once lets exactly the limit through to verification, the rest 429', async () => {
    const attacker = freshAddress();
    const reads = jest.spyOn(h.rt.db.authCache, 'read');
    let counts: Record<number, number>;
    try {
      counts = await burst(5 * PER_ADDRESS, () => call(unknownKey(), attacker));
      // each attempt that reached verification read its key once: no more than the limit did
      expect(reads.mock.calls.filter(([key]) => String(key).startsWith('key:')).length).toBe(PER_ADDRESS);
    } finally {
      reads.mockRestore();
    }
    expect(counts).toEqual({ 401: PER_ADDRESS, 429: 4 * PER_ADDRESS });
    // and afterwards: still refused
    expectProblem(await call(unknownKey(), attacker), 429, 'AUTH_RATE_LIMITED');
  });

  test('per key prefix: a burst of wrong secrets of one real key from as many addresses lets exactly the limit through', async () => {
    const ctx = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
    const victim = await createApiKey(ctx, { ownerType: 'tenant' });
    const wrongSecret = () => `${victim.secretKey.slice(0, 'sk_test_'.length + 16)}${base62(40)}`;
    const counts = await burst(6 * PER_KEY, () => call(wrongSecret(), freshAddress()));
    expect(counts).toEqual({ 401: PER_KEY, 429: 5 * PER_KEY });
  });

  test('good credentials in a burst take no point: the limit is left for failures', async () => {
    const address = freshAddress();
    const ctx = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
    const keys = await Promise.all(Array.from({ length: 3 * PER_ADDRESS }, () => createApiKey(ctx, { ownerType: 'tenant' })));
    expect(await burst(keys.length, (i) => call(keys[i].secretKey, address))).toEqual({ 200: keys.length });
    // every point is still there for failures: exactly the limit of them, then 429
    expect(await burst(3 * PER_ADDRESS, () => call(unknownKey(), address))).toEqual({ 401: PER_ADDRESS, 429: 2 * PER_ADDRESS });
  });

  test("the identity provider's keys not fetched: 503, no point taken (the caller may still fail its limit afterwards)", async () => {
    const address = freshAddress();
    const token = await idpToken();
    for (const mode of ['down', 'error', 'garbage'] as const) {
      jwksMode = mode;
      for (let i = 0; i < PER_ADDRESS + 2; i++) {
        const res = await call(token, address, '/v1/admin/tenants');
        expectProblem(res, 503, 'IDENTITY_PROVIDER_UNAVAILABLE');
      }
    }
    // a burst of them too
    expect(await burst(2 * PER_ADDRESS, () => call(token, address, '/v1/admin/tenants'))).toEqual({ 503: 2 * PER_ADDRESS });
    // nothing was counted: the address still has its whole limit
    expect(await burst(2 * PER_ADDRESS, () => call(unknownKey(), address))).toEqual({ 401: PER_ADDRESS, 429: PER_ADDRESS });
    // a key set fetched that lacks the token's key: the token's failure (401), counted
    jwksMode = 'keys';
    const other = freshAddress();
    expect(await burst(2 * PER_ADDRESS, () => call(token, other, '/v1/admin/tenants'))).toEqual({ 401: PER_ADDRESS, 429: PER_ADDRESS });
  });

  test('the /metrics bearer: wrong tokens are throttled per address (a burst too); the right one keeps working', async () => {
    const metrics = (token: string, ip: string) =>
      request(server).get('/metrics').set('Authorization', `Bearer ${token}`).set('X-Forwarded-For', ip);
    const scraper = freshAddress();
    expect((await metrics(METRICS_TOKEN, scraper)).status).toBe(200);
    const counts = await burst(3 * PER_ADDRESS, () => metrics(`guess-${base62(10)}`, scraper));
    expect(counts).toEqual({ 401: PER_ADDRESS, 429: 2 * PER_ADDRESS });
    // the scraper's own token authenticated before: not locked out by the guesses at its address
    expect((await metrics(METRICS_TOKEN, scraper)).status).toBe(200);
    // another address is unaffected
    const other = freshAddress();
    expectProblem(await metrics('wrong', other), 401, 'INVALID_CREDENTIALS');
    // the header's absence is no guess: 401, never 429
    for (let i = 0; i < PER_ADDRESS + 2; i++)
      expectProblem(await request(server).get('/metrics').set('X-Forwarded-For', freshAddress()), 401, 'INVALID_CREDENTIALS');
  });
});
