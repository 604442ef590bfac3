import { SignJWT, generateKeyPair } from 'jose';
import { IDP_ISSUER, localIdentityProvider, type LocalIdentityProvider } from '../helpers/identity-provider';
import { useApiHarness, expectProblem } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { operatorContext } from '../../src/services/access/operators';
import { createActiveUser } from '../../src/services/access/users';
import { createApp } from '../../src/http/app';
import { createApiKey } from '../../src/services/api-keys/keys';
import request from 'supertest';
import { TokenService } from '../../src/services/access/tokens';

const ISSUER = IDP_ISSUER;
let idp: LocalIdentityProvider;
let signingKey: CryptoKey;
let strangerKey: CryptoKey;

beforeAll(async () => {
  idp = await localIdentityProvider();
  signingKey = idp.key;
  strangerKey = (await generateKeyPair('RS256')).privateKey;
});
const h = useApiHarness(() => ({ config: idp.config }));
afterAll(() => idp.close());

async function idpToken(sub: string, key: CryptoKey = signingKey, claims: Record<string, unknown> = {}) {
  const now = Math.floor(h.clock.now().getTime() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setIssuer(ISSUER)
    .setAudience('payplane')
    .setSubject(sub)
    .setIssuedAt(now)
    .setExpirationTime(now + 300)
    .sign(key);
}

describe(`authentication (${dialectName})`, () => {
  test('missing, malformed, public and unknown credentials answer 401', async () => {
    const none = await request(h.app).get('/v1/api-keys');
    expectProblem(none, 401, 'MISSING_CREDENTIALS');
    expect(none.headers['www-authenticate']).toBe('Bearer');
    expectProblem(await request(h.app).get('/v1/api-keys').set('Authorization', 'Basic abc'), 401, 'INVALID_CREDENTIALS');
    expectProblem(await h.as('pk_test_AAAAAAAAAAAAAAAA').get('/v1/api-keys'), 401, 'PUBLIC_KEY_USED');
    expectProblem(await h.as(`sk_test_${'A'.repeat(56)}`).get('/v1/api-keys'), 401, 'INVALID_API_KEY');
    expectProblem(await h.as('sk_test_short').get('/v1/api-keys'), 401, 'INVALID_API_KEY');
    // right prefix, wrong secret
    const real = h.sandbox.tenantKey.secretKey;
    expectProblem(await h.as(real.slice(0, -1) + (real.endsWith('A') ? 'B' : 'A')).get('/v1/api-keys'), 401, 'INVALID_API_KEY');
    // a sandbox secret with the live prefix
    expectProblem(await h.as(real.replace('sk_test_', 'sk_live_')).get('/v1/api-keys'), 401, 'INVALID_API_KEY');
    expectProblem(await h.as('not.a.jwt').get('/v1/api-keys'), 401, 'INVALID_TOKEN');
  });

  test('our own user tokens: platform level, expiry, tampering, inactive users', async () => {
    const ok = await h.as(h.sandbox.platformToken).get('/v1/admin/tenants');
    expect(ok.status).toBe(200);
    // a platform caller on a merchant/tenant-only operation
    expectProblem(await h.as(h.sandbox.platformToken).get('/v1/api-keys'), 403, 'LEVEL_NOT_ALLOWED');

    const short = await h.rt.tokens.issue(h.sandbox.platformUserId, 60, false);
    expect((await h.as(short.token).get('/v1/admin/tenants')).status).toBe(200);
    h.clock.advance(61_000);
    expectProblem(await h.as(short.token).get('/v1/admin/tenants'), 401, 'TOKEN_EXPIRED');

    const [head, body, sig] = h.sandbox.platformToken.split('.');
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), sub: '00000000-0000-4000-8000-000000000000' }),
    ).toString('base64url');
    expectProblem(await h.as(`${head}.${forged}.${sig}`).get('/v1/admin/tenants'), 401, 'INVALID_TOKEN');

    const ctx = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
    const user = await createActiveUser(ctx, { layer: 'operator', email: 'op@example.com' });
    const token = (await h.rt.tokens.issue(user.id, 3600, false)).token;
    const asOperator = await h.as(token).get('/v1/admin/tenants');
    expect(asOperator.body.data.map((t: { id: string }) => t.id)).toEqual([h.sandbox.tenantId]);
    await h.rt.db.models.User.update({ status: 'disabled' }, { where: { id: user.id } });
    expectProblem(await h.as(token).get('/v1/admin/tenants'), 401, 'USER_NOT_ACTIVE');
  });

  test("OIDC: a token of the configured issuer maps sub to the user's externalIdpId", async () => {
    const ctx = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
    await createActiveUser(ctx, { layer: 'operator', email: 'alice@example.com', externalIdpId: 'idp|alice' });
    const token = await idpToken('idp|alice');
    const res = await h.as(token).get('/v1/admin/tenants').set('Payplane-Mode', 'test');
    expect(res.status).toBe(200);
    expect(res.body.data.map((t: { id: string }) => t.id)).toEqual([h.sandbox.tenantId]);

    // the caller's mode: test by header, else live; a tenant caller issues keys in that mode
    const issued = await h
      .as(token)
      .post('/v1/api-keys', { ownerType: 'tenant', permissions: ['api-keys:keys:view'] })
      .set('Payplane-Mode', 'test');
    expect(issued.status).toBe(201);
    expect(issued.body.data.livemode).toBe(false);
    expect(issued.body.data.createdByType).toBe('user');
    expectProblem(await h.as(token).get('/v1/admin/tenants').set('Payplane-Mode', 'sideways'), 401, 'INVALID_MODE');

    expectProblem(await h.as(await idpToken('idp|nobody')).get('/v1/admin/tenants'), 401, 'UNKNOWN_USER');
    expectProblem(await h.as(await idpToken('idp|alice', strangerKey)).get('/v1/admin/tenants'), 401, 'INVALID_TOKEN');
  });

  test('X-Forwarded-For decides the client address only behind a trusted proxy', async () => {
    const ctx = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
    const key = await createApiKey(ctx, { ownerType: 'tenant', ipAllowlist: ['203.0.113.0/24'] });
    const behindProxy = createApp({ ...h.rt, config: { ...h.rt.config, trustProxy: 'loopback' } });
    const call = (app: typeof behindProxy, forwarded: string) =>
      request(app).get('/v1/api-keys').set('Authorization', `Bearer ${key.secretKey}`).set('X-Forwarded-For', forwarded);
    expect((await call(behindProxy, '203.0.113.7')).status).toBe(200);
    expectProblem(await call(behindProxy, '198.51.100.1'), 403, 'IP_NOT_ALLOWED');
    expectProblem(await call(h.app, '203.0.113.7'), 403, 'IP_NOT_ALLOWED');
  });

  test('a merchant-layer user without a merchant cannot authenticate or even be created', async () => {
    const ctx = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
    await expect(createActiveUser(ctx, { layer: 'merchant', email: 'm@example.com' })).rejects.toMatchObject({ status: 400 });
    const id = '0194f000-0000-7000-8000-00000000abcd';
    const now = h.clock.now();
    await h.rt.db.models.User.create({
      id,
      tenantId: h.sandbox.tenantId,
      merchantId: null,
      layer: 'merchant',
      email: 'broken@example.com',
      displayName: null,
      status: 'active',
      externalIdpId: null,
      entityScope: { type: 'all' },
      mfaEnabled: false,
      lastLoginAt: null,
      createdBy: null,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    });
    const token = (await h.rt.tokens.issue(id, 3600, false)).token;
    expectProblem(await h.as(token).get('/v1/api-keys'), 401, 'USER_WITHOUT_SCOPE');
  });

  test('an OIDC issuer without an audience is refused at start', () => {
    expect(() => new TokenService({ ...h.rt.config, oidcAudience: undefined }, h.clock)).toThrow(/AUDIENCE/);
  });

  test('a merchant key on a tenant-only operation answers 403', async () => {
    const res = await h.as(h.sandbox.merchantKey.secretKey).get('/v1/admin/tenants');
    expectProblem(res, 403, 'LEVEL_NOT_ALLOWED');
  });
});
