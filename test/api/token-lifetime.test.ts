import fs from 'node:fs';
import request from 'supertest';
import { SignJWT, decodeJwt } from 'jose';
import { IDP_ISSUER, localIdentityProvider, type LocalIdentityProvider } from '../helpers/identity-provider';
import { useApiHarness, expectProblem } from '../helpers/api';
import { TEST_TOKEN_SECRET, dialectName } from '../helpers/db';
import { createApp } from '../../src/http/app';
import { operatorContext } from '../../src/services/access/operators';
import { createActiveUser } from '../../src/services/access/users';
import { TOKEN_AUDIENCE, TOKEN_ISSUER, TokenService } from '../../src/services/access/tokens';
import { createSandbox, ensureServeSandbox, renewPlatformToken, sandboxFile, savedSandbox } from '../../src/services/sandbox/provision';
import { writePrivateFile } from '../../src/util/paths';

// Issue 20, item 10: every user token, ours or an identity provider's, carries exp and iat at most
// PAYPLANE_TOKEN_MAX_LIFETIME_HOURS (24 h by default) apart; every token the platform issues is within that maximum,
// and the sandbox's saved platform token is renewed by serve so that the sandbox keeps working past it.

const ISSUER = IDP_ISSUER;
const HOUR = 3600;
let idp: LocalIdentityProvider;
let idpKey: CryptoKey;

beforeAll(async () => {
  idp = await localIdentityProvider();
  idpKey = idp.key;
});
const h = useApiHarness(() => ({ config: idp.config }));
beforeAll(async () => {
  const ctx = operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false });
  await createActiveUser(ctx, { layer: 'operator', email: 'alice@example.com', externalIdpId: 'idp|alice' });
});
afterAll(() => idp.close());

const nowSeconds = () => Math.floor(h.clock.now().getTime() / 1000);

interface Times {
  /** seconds from now; null: no such claim */
  iat: number | null;
  exp: number | null;
}

/** A token of our own issuer, signed with the runtime's secret, with the given iat and exp. */
function ownToken({ iat, exp }: Times, secret = TEST_TOKEN_SECRET): Promise<string> {
  const jwt = new SignJWT({ mode: 'test' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(h.sandbox.platformUserId)
    .setIssuer(TOKEN_ISSUER)
    .setAudience(TOKEN_AUDIENCE);
  if (iat !== null) jwt.setIssuedAt(nowSeconds() + iat);
  if (exp !== null) jwt.setExpirationTime(nowSeconds() + exp);
  return jwt.sign(new TextEncoder().encode(secret));
}

/** A token of the identity provider, for its user idp|alice. */
function idpToken({ iat, exp }: Times): Promise<string> {
  const jwt = new SignJWT({ mode: 'test' })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setSubject('idp|alice')
    .setIssuer(ISSUER)
    .setAudience('payplane');
  if (iat !== null) jwt.setIssuedAt(nowSeconds() + iat);
  if (exp !== null) jwt.setExpirationTime(nowSeconds() + exp);
  return jwt.sign(idpKey);
}

/** each token kind against the same rules */
const CASES: { title: string; times: Times; status: number; code?: string }[] = [
  { title: 'valid for the whole maximum', times: { iat: 0, exp: 24 * HOUR }, status: 200 },
  { title: 'valid, short', times: { iat: -60, exp: 60 }, status: 200 },
  { title: 'without exp', times: { iat: 0, exp: null }, status: 401, code: 'TOKEN_EXP_MISSING' },
  { title: 'without iat', times: { iat: null, exp: HOUR }, status: 401, code: 'TOKEN_IAT_MISSING' },
  { title: 'without either', times: { iat: null, exp: null }, status: 401, code: 'TOKEN_EXP_MISSING' },
  { title: 'one second longer than the maximum', times: { iat: 0, exp: 24 * HOUR + 1 }, status: 401, code: 'TOKEN_LIFETIME_TOO_LONG' },
  { title: 'a year long, issued an hour ago', times: { iat: -HOUR, exp: 365 * 24 * HOUR }, status: 401, code: 'TOKEN_LIFETIME_TOO_LONG' },
  { title: 'expired', times: { iat: -2 * HOUR, exp: -HOUR }, status: 401, code: 'TOKEN_EXPIRED' },
  {
    title: 'issued in the future (its life would start later)',
    times: { iat: 2 * HOUR, exp: 3 * HOUR },
    status: 401,
    code: 'TOKEN_ISSUED_IN_FUTURE',
  },
];

describe(`user token lifetime (${dialectName})`, () => {
  for (const kind of ['own', 'oidc'] as const) {
    describe(kind === 'own' ? 'tokens of payplane' : 'tokens of the identity provider', () => {
      for (const c of CASES) {
        test(`${c.title}: ${c.status}${c.code ? ` ${c.code}` : ''}`, async () => {
          const token = await (kind === 'own' ? ownToken(c.times) : idpToken(c.times));
          const res = await h.as(token).get('/v1/admin/tenants').set('Payplane-Mode', 'test');
          if (c.status === 200) expect(res.status).toBe(200);
          else expectProblem(res, c.status, c.code);
        });
      }
    });
  }

  test('a forged token is refused as such whatever its claims (the signature is checked first)', async () => {
    expectProblem(
      await h.as(await ownToken({ iat: 0, exp: null }, 'another-secret-that-is-long-enough-0123456789')).get('/v1/admin/tenants'),
      401,
      'INVALID_TOKEN',
    );
  });

  test('the maximum is a setting: PAYPLANE_TOKEN_MAX_LIFETIME_HOURS', async () => {
    const config = { ...h.rt.config, tokenMaxLifetimeHours: 1 };
    const app = createApp({ ...h.rt, config, tokens: new TokenService(config, h.clock) });
    const call = async (exp: number) =>
      request(app)
        .get('/v1/admin/tenants')
        .set('Authorization', `Bearer ${await ownToken({ iat: 0, exp })}`);
    expect((await call(HOUR)).status).toBe(200);
    expectProblem(await call(2 * HOUR), 401, 'TOKEN_LIFETIME_TOO_LONG');
  });

  test("the platform issues no token beyond the maximum: the service refuses a longer life, the sandbox's token is within it", async () => {
    await expect(h.rt.tokens.issue(h.sandbox.platformUserId, 24 * HOUR + 1, false)).rejects.toMatchObject({
      status: 400,
      code: 'TOKEN_LIFETIME_TOO_LONG',
    });
    await expect(h.rt.tokens.issue(h.sandbox.platformUserId, 366 * 24 * HOUR, false)).rejects.toMatchObject({ status: 400 });
    const issued = await h.rt.tokens.issue(h.sandbox.platformUserId, 24 * HOUR, false);
    expect((await h.as(issued.token).get('/v1/admin/tenants')).status).toBe(200);
    for (const token of [issued.token, h.sandbox.platformToken]) {
      const { iat, exp } = decodeJwt(token);
      expect(typeof iat).toBe('number');
      expect(typeof exp).toBe('number');
      expect(exp! - iat!).toBeLessThanOrEqual(h.rt.tokens.maxLifetimeSeconds);
    }
  });

  test("the sandbox's saved platform token is renewed when it would no longer work (past half its life, expired, too long-lived)", async () => {
    const sandbox = await createSandbox(h.rt, { name: 'Renewed sandbox' });
    const file = sandboxFile(h.rt);
    const save = (platformToken: string) => writePrivateFile(file, JSON.stringify({ ...sandbox, platformToken }, null, 2));
    const works = async (token: string) => (await h.as(token).get('/v1/admin/tenants')).status === 200;

    // fresh: kept as it is
    save(sandbox.platformToken);
    expect((await renewPlatformToken(h.rt, savedSandbox(h.rt.config)!)).platformToken).toBe(sandbox.platformToken);

    // a token of the old 30-day lifetime (saved before the maximum), one past half its life, an expired one
    const old = await ownToken({ iat: -HOUR, exp: 30 * 24 * HOUR });
    const aging = await h.rt.tokens.issue(sandbox.platformUserId, 24 * HOUR, false);
    for (const [label, token, advance] of [
      ['30-day', old, 0],
      ['aging', aging.token, 13 * HOUR],
      ['expired', aging.token, 12 * HOUR],
    ] as const) {
      save(token);
      h.clock.advance(advance * 1000);
      const renewed = await renewPlatformToken(h.rt, savedSandbox(h.rt.config)!);
      expect([label, renewed.platformToken === token]).toEqual([label, false]);
      expect(await works(renewed.platformToken)).toBe(true);
      const onDisk = JSON.parse(fs.readFileSync(file, 'utf8'));
      expect(onDisk.platformToken).toBe(renewed.platformToken);
      expect(new Date(onDisk.platformTokenExpiresAt).getTime()).toBe(
        h.clock.now().getTime() + 24 * HOUR * 1000 - (h.clock.now().getTime() % 1000),
      );
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    }
  });

  test("serve's start renews the sandbox's saved platform token", async () => {
    const sandbox = await createSandbox(h.rt, { name: 'Serve sandbox' });
    writePrivateFile(
      sandboxFile(h.rt),
      JSON.stringify({ ...sandbox, platformToken: await ownToken({ iat: -HOUR, exp: 30 * 24 * HOUR }) }, null, 2),
    );
    const { sandbox: started } = await ensureServeSandbox(h.rt);
    expect(started?.tenantId).toBe(sandbox.tenantId);
    expect((await h.as(started!.platformToken).get('/v1/admin/tenants')).status).toBe(200);
    expect(savedSandbox(h.rt.config)!.platformToken).toBe(started!.platformToken);
  });
});
