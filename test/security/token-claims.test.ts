import { SignJWT, type JWTPayload } from 'jose';
import { IDP_ISSUER, localIdentityProvider, type LocalIdentityProvider } from '../helpers/identity-provider';
import { useApiHarness, expectProblem } from '../helpers/api';
import { dialectName, TEST_TOKEN_SECRET } from '../helpers/db';
import { operatorContext } from '../../src/services/access/operators';
import { createActiveUser } from '../../src/services/access/users';
import { TOKEN_AUDIENCE, TOKEN_ISSUER } from '../../src/services/access/tokens';

/**
 * Every claim of a user token is validated once its signature is (a zod schema of the claims,
 * src/services/access/tokens.ts): a token signed with the right key but with an unknown mode, a claim of the wrong
 * kind, or (for our own tokens) a claim we never issue is 401 INVALID_TOKEN_CLAIMS, never read as a default (live).
 */
const ISSUER = IDP_ISSUER;
let idp: LocalIdentityProvider;
let idpKey: CryptoKey;

beforeAll(async () => {
  idp = await localIdentityProvider();
  idpKey = idp.key;
});
const h = useApiHarness(() => ({ config: idp.config }));
beforeAll(async () => {
  const ctx = operatorContext(h.rt, { level: 'platform', tenantId: null, livemode: false });
  await createActiveUser(ctx, { layer: 'platform', email: 'idp-admin@example.com', externalIdpId: 'idp|admin' });
});
afterAll(() => idp.close());

const now = () => Math.floor(h.clock.now().getTime() / 1000);

/** Our own token with the claims issue() writes, then `claims` over them (undefined removes one). */
function ownToken(claims: Record<string, unknown> = {}): Promise<string> {
  const payload: JWTPayload = {
    iss: TOKEN_ISSUER,
    aud: TOKEN_AUDIENCE,
    sub: h.sandbox.platformUserId,
    iat: now(),
    exp: now() + 600,
    jti: crypto.randomUUID(),
    mode: 'test',
    ...claims,
  };
  for (const [k, v] of Object.entries(payload)) if (v === undefined) delete payload[k];
  return new SignJWT(payload).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(TEST_TOKEN_SECRET));
}

/** The identity provider's token, with claims of its own besides. */
function idpToken(claims: Record<string, unknown> = {}): Promise<string> {
  const payload: JWTPayload = {
    iss: ISSUER,
    aud: 'payplane',
    sub: 'idp|admin',
    iat: now(),
    exp: now() + 600,
    email: 'idp-admin@example.com',
    scope: 'openid',
    ...claims,
  };
  for (const [k, v] of Object.entries(payload)) if (v === undefined) delete payload[k];
  return new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).sign(idpKey);
}

/** The mode a platform caller acts in, as its answer shows it: a webhook endpoint it creates carries the mode. */
async function modeOf(token: string): Promise<'live' | 'test'> {
  const res = await h.as(token).post('/v1/admin/webhook-endpoints', { url: 'https://hooks.example.com/claims', events: ['*'] });
  expect(res.status).toBe(201);
  return res.body.data.livemode ? 'live' : 'test';
}

const BAD_MODES: unknown[] = ['LIVE', 'Test', 'production', 'sandbox', '', ' live', true, false, 1, 0, null, ['live'], { live: true }];

describe(`user token claims (${dialectName})`, () => {
  test('good tokens act in their mode; a token without a mode takes Payplane-Mode', async () => {
    expect(await modeOf(await ownToken({ mode: 'test' }))).toBe('test');
    expect(await modeOf(await ownToken({ mode: 'live' }))).toBe('live');
    expect(await modeOf(await idpToken({ mode: 'test' }))).toBe('test');
    expect(await modeOf(await idpToken({ payplane_mode: 'live' }))).toBe('live');
    const headerMode = await h
      .as(await ownToken({ mode: undefined }))
      .get('/v1/admin/webhook-endpoints')
      .set('Payplane-Mode', 'test');
    expect(headerMode.status).toBe(200);
    expect(headerMode.body.data.every((e: { livemode: boolean }) => !e.livemode)).toBe(true);
  });

  test("an unknown mode is 401 (never the live default), on our tokens and the identity provider's", async () => {
    for (const mode of BAD_MODES) {
      for (const [kind, token] of [
        ['own mode', await ownToken({ mode })],
        ['idp mode', await idpToken({ mode })],
        ['idp payplane_mode', await idpToken({ payplane_mode: mode })],
      ] as const) {
        const res = await h.as(token).get('/v1/admin/webhook-endpoints');
        if (res.status !== 401)
          throw new Error(`${kind} ${JSON.stringify(mode)} was answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
        expectProblem(res, 401, 'INVALID_TOKEN_CLAIMS');
      }
    }
    // both spellings given, and different
    expectProblem(
      await h.as(await idpToken({ mode: 'test', payplane_mode: 'live' })).get('/v1/admin/webhook-endpoints'),
      401,
      'INVALID_TOKEN_CLAIMS',
    );
  });

  test('every other claim is checked too: its kind, and on our own tokens no claim we never issue', async () => {
    const own: Array<[string, Record<string, unknown>]> = [
      ['sub a number', { sub: 42 }],
      ['sub empty', { sub: '' }],
      ['iat not whole', { iat: now() + 0.5 }],
      ['iat a string', { iat: String(now()) }],
      ['exp a string', { exp: String(now() + 600) }],
      ['jti a number', { jti: 7 }],
      ['jti empty', { jti: '' }],
      ['aud with another audience besides ours', { aud: [TOKEN_AUDIENCE, 'someone-else'] }],
      ['a claim we never issue (role)', { role: 'owner' }],
      ['a claim we never issue (tenantId)', { tenantId: h.sandbox.tenantId }],
      ['a claim we never issue (payplane_mode)', { payplane_mode: 'test' }],
      ['nbf (we never issue it)', { nbf: now() - 10 }],
    ];
    for (const [title, claims] of own) {
      const res = await h.as(await ownToken(claims)).get('/v1/admin/webhook-endpoints');
      if (res.status !== 401) throw new Error(`own token, ${title}: answered ${res.status}`);
      expect([title, res.body.code]).toEqual([title, expect.stringMatching(/^INVALID_TOKEN(_CLAIMS)?$/)]);
    }
    const idp: Array<[string, Record<string, unknown>]> = [
      ['sub a number', { sub: 42 }],
      ['iat not whole', { iat: now() + 0.5 }],
      ['nbf a string', { nbf: String(now()) }],
      ['jti an object', { jti: { a: 1 } }],
    ];
    for (const [title, claims] of idp) {
      const res = await h
        .as(await idpToken(claims))
        .get('/v1/admin/webhook-endpoints')
        .set('Payplane-Mode', 'test');
      if (res.status !== 401) throw new Error(`idp token, ${title}: answered ${res.status}`);
      expect([title, res.body.code]).toEqual([title, expect.stringMatching(/^INVALID_TOKEN(_CLAIMS)?$/)]);
    }
    // the identity provider's own claims (email, scope, …) are its own: not refused
    expect(
      (await h.as(await idpToken({ mode: 'test', groups: ['a'], email_verified: true })).get('/v1/admin/webhook-endpoints')).status,
    ).toBe(200);
  });
});
