import crypto from 'node:crypto';
import path from 'node:path';
import type { JWTPayload, createRemoteJWKSet } from 'jose';
import type { z as Zod } from 'zod';

/** jose, loaded by the first token signed or verified: most admin commands handle none */
let joseModule: typeof import('jose') | undefined;
const jose = () => (joseModule ??= require('jose') as typeof import('jose'));
import type { AppConfig } from '../../config';
import { AuthenticationError, UnavailableError, ValidationError } from '../../domain/errors';
import type { Clock } from '../../domain/clock';
import { readOrCreateSecretFile } from '../../util/paths';

export const TOKEN_ISSUER = 'payplane';
export const TOKEN_AUDIENCE = 'payplane-api';

export interface VerifiedToken {
  /** 'local': our own token, sub is the user id; 'oidc': sub is the user's externalIdpId */
  kind: 'local' | 'oidc';
  subject: string;
  livemode?: boolean;
}

/** How far ahead of our clock a token's iat may be (an identity provider's clock runs a little ahead). */
const ISSUED_AT_SKEW_SECONDS = 60;

/** What a key set answers for a token it has no single key of (the token's fault, not the key set's fetch). */
const TOKEN_KEY_ERRORS: ReadonlySet<string> = new Set([
  'ERR_JWKS_NO_MATCHING_KEY',
  'ERR_JWKS_MULTIPLE_MATCHING_KEYS',
  'ERR_JOSE_NOT_SUPPORTED',
  'ERR_JOSE_ALG_NOT_ALLOWED',
]);

/** The shortest PAYPLANE_TOKEN_SECRET accepted. */
export const TOKEN_SECRET_MIN_LENGTH = 32;

/** The key generated once into the home when PAYPLANE_TOKEN_SECRET is not set. */
export function tokenSecretFile(config: AppConfig): string {
  return path.join(config.home, 'token-secret');
}

/** Reads PAYPLANE_TOKEN_SECRET, or the key generated once into <home>/token-secret. */
export function loadTokenSecret(config: AppConfig): Uint8Array {
  if (config.tokenSecret) {
    if (config.tokenSecret.length < TOKEN_SECRET_MIN_LENGTH)
      throw new Error(`PAYPLANE_TOKEN_SECRET must be at least ${TOKEN_SECRET_MIN_LENGTH} characters`);
    return new TextEncoder().encode(config.tokenSecret);
  }
  const file = tokenSecretFile(config);
  try {
    return new TextEncoder().encode(readOrCreateSecretFile(file, () => crypto.randomBytes(48).toString('base64url')));
  } catch (error) {
    throw new Error(`cannot read or create ${file}: ${(error as Error).message}; set PAYPLANE_TOKEN_SECRET`, { cause: error });
  }
}

/** Parses a duration such as 90s, 15m, 1h, 7d into seconds. */
export function parseDuration(value: string, field = 'ttl'): number {
  const m = /^(\d+)\s*([smhd])$/.exec(value.trim());
  if (!m) throw ValidationError.field(field, 'must be a duration such as 30m, 1h or 7d');
  const seconds = Number(m[1]) * { s: 1, m: 60, h: 3600, d: 86400 }[m[2] as 's' | 'm' | 'h' | 'd'];
  if (seconds <= 0 || seconds > 366 * 86400) throw ValidationError.field(field, 'must be between 1s and 366d');
  return seconds;
}

export class TokenService {
  private secret: Uint8Array | undefined;
  private jwks: ReturnType<typeof createRemoteJWKSet> | undefined;

  constructor(
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {
    if (config.oidcIssuer && (!config.oidcJwksUrl || !config.oidcAudience)) {
      throw new Error(
        'PAYPLANE_OIDC_ISSUER needs PAYPLANE_OIDC_JWKS_URL and PAYPLANE_OIDC_AUDIENCE (tokens issued to other clients must not pass)',
      );
    }
  }

  private key(): Uint8Array {
    this.secret ??= loadTokenSecret(this.config);
    return this.secret;
  }

  /** The longest life (exp - iat) a user token may have: PAYPLANE_TOKEN_MAX_LIFETIME_HOURS. */
  get maxLifetimeSeconds(): number {
    return this.config.tokenMaxLifetimeHours * 3600;
  }

  /** A token of the user, in one mode, living ttlSeconds (at most maxLifetimeSeconds: a longer life is refused, naming `field`). */
  async issue(userId: string, ttlSeconds: number, livemode: boolean, field = 'ttl'): Promise<{ token: string; expiresAt: Date }> {
    if (!Number.isInteger(ttlSeconds) || ttlSeconds <= 0 || ttlSeconds > this.maxLifetimeSeconds) {
      throw ValidationError.field(
        field,
        `must be between 1s and the maximum token lifetime, ${this.config.tokenMaxLifetimeHours}h (PAYPLANE_TOKEN_MAX_LIFETIME_HOURS)`,
        'TOKEN_LIFETIME_TOO_LONG',
      );
    }
    const now = Math.floor(this.clock.now().getTime() / 1000);
    const token = await new (jose().SignJWT)({ mode: livemode ? 'live' : 'test' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(userId)
      .setIssuer(TOKEN_ISSUER)
      .setAudience(TOKEN_AUDIENCE)
      .setIssuedAt(now)
      .setExpirationTime(now + ttlSeconds)
      .setJti(crypto.randomUUID())
      .sign(this.key());
    return { token, expiresAt: new Date((now + ttlSeconds) * 1000) };
  }

  async verify(token: string): Promise<VerifiedToken> {
    let unverified: JWTPayload;
    try {
      unverified = jose().decodeJwt(token);
    } catch {
      throw new AuthenticationError('The bearer token is not a valid token.', 'INVALID_TOKEN');
    }
    const currentDate = this.clock.now();
    try {
      if (this.config.oidcIssuer && unverified.iss === this.config.oidcIssuer) {
        if (!this.config.oidcJwksUrl) throw new Error('PAYPLANE_OIDC_JWKS_URL is not set');
        this.jwks ??= jose().createRemoteJWKSet(new URL(this.config.oidcJwksUrl));
        const jwks = this.jwks;
        // the identity provider's keys not fetched (unreachable, timed out, not a key set): our failure, not the
        // caller's (503, and the failed-authentication throttle counts nothing); a key the token names that the
        // fetched set lacks is the token's
        const keys: typeof jwks = (async (header: Parameters<typeof jwks>[0], input: Parameters<typeof jwks>[1]) => {
          try {
            return await jwks(header, input);
          } catch (error) {
            if (TOKEN_KEY_ERRORS.has((error as { code?: string }).code ?? '')) throw error;
            throw new UnavailableError(
              "The identity provider's signing keys (PAYPLANE_OIDC_JWKS_URL) cannot be fetched now; retry later.",
              'IDENTITY_PROVIDER_UNAVAILABLE',
            );
          }
        }) as typeof jwks;
        const { payload } = await jose().jwtVerify(token, keys, {
          issuer: this.config.oidcIssuer,
          audience: this.config.oidcAudience,
          algorithms: ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'],
          currentDate,
        });
        this.checkLifetime(payload, currentDate);
        const claims = checkClaims(tokenClaimSchemas().oidc, payload);
        return { kind: 'oidc', subject: claims.sub, livemode: modeOf(claims.mode ?? claims.payplane_mode) };
      }
      const { payload } = await jose().jwtVerify(token, this.key(), {
        issuer: TOKEN_ISSUER,
        audience: TOKEN_AUDIENCE,
        algorithms: ['HS256'],
        currentDate,
      });
      this.checkLifetime(payload, currentDate);
      const claims = checkClaims(tokenClaimSchemas().local, payload);
      return { kind: 'local', subject: claims.sub, livemode: modeOf(claims.mode) };
    } catch (error) {
      if (error instanceof AuthenticationError || error instanceof UnavailableError) throw error;
      if ((error as { code?: string }).code === 'ERR_JWT_EXPIRED')
        throw new AuthenticationError('The bearer token has expired.', 'TOKEN_EXPIRED');
      throw new AuthenticationError('The bearer token could not be verified.', 'INVALID_TOKEN');
    }
  }

  /**
   * Every user token (its signature verified: jose checked exp and iat are numbers when present, and exp not past)
   * says when it expires and when it was issued, and lives at most maxLifetimeSeconds: exp - iat within it, and iat
   * not in the future (beyond a minute of clock skew), so that no token outlives the maximum from now.
   */
  private checkLifetime(payload: JWTPayload, currentDate: Date): void {
    const { iat, exp } = payload;
    const missing = (claim: 'exp' | 'iat') =>
      new AuthenticationError(
        `The bearer token has no ${claim} claim: a user token must carry iat and exp, at most ${this.config.tokenMaxLifetimeHours}h apart.`,
        claim === 'exp' ? 'TOKEN_EXP_MISSING' : 'TOKEN_IAT_MISSING',
      );
    if (typeof exp !== 'number') throw missing('exp');
    if (typeof iat !== 'number') throw missing('iat');
    if (exp - iat > this.maxLifetimeSeconds) {
      throw new AuthenticationError(
        `The bearer token lives ${exp - iat} s (exp - iat), longer than the maximum of ${this.config.tokenMaxLifetimeHours}h; ask for a shorter-lived token.`,
        'TOKEN_LIFETIME_TOO_LONG',
      );
    }
    if (iat > currentDate.getTime() / 1000 + ISSUED_AT_SKEW_SECONDS) {
      throw new AuthenticationError('The bearer token was issued in the future (iat).', 'TOKEN_ISSUED_IN_FUTURE');
    }
  }
}

function modeOf(mode: 'live' | 'test' | undefined): boolean | undefined {
  return mode === undefined ? undefined : mode === 'live';
}

/**
 * The claims a user token may carry, each validated once its signature is (jose has checked iss, aud, exp and nbf
 * against the clock): an unknown value of any claim is 401 INVALID_TOKEN_CLAIMS, never read as a default. Our own
 * tokens carry exactly what issue() writes, and nothing else; an identity provider's carry its own claims besides
 * (email, scope, …), which payplane does not read, but every claim payplane reads or that jose checked must be of
 * its kind, and a mode (`mode`, or `payplane_mode`) must be test or live, the two the same when both are given.
 */
let claimSchemas: { local: Zod.ZodType<LocalClaims>; oidc: Zod.ZodType<OidcClaims> } | undefined;

interface LocalClaims {
  iss: string;
  aud: string | string[];
  sub: string;
  iat: number;
  exp: number;
  jti?: string;
  mode?: 'live' | 'test';
}

interface OidcClaims extends LocalClaims {
  nbf?: number;
  payplane_mode?: 'live' | 'test';
}

export function tokenClaimSchemas(): { local: Zod.ZodType<LocalClaims>; oidc: Zod.ZodType<OidcClaims> } {
  if (!claimSchemas) {
    const { z } = require('zod') as typeof import('zod');
    const numericDate = z.number().int().nonnegative();
    const mode = z.enum(['live', 'test']);
    const audience = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]);
    const local = z.strictObject({
      iss: z.literal(TOKEN_ISSUER),
      aud: z.union([z.literal(TOKEN_AUDIENCE), z.tuple([z.literal(TOKEN_AUDIENCE)])]),
      sub: z.string().min(1).max(255),
      iat: numericDate,
      exp: numericDate,
      jti: z.string().min(1).max(255).optional(),
      mode: mode.optional(),
    });
    const oidc = z
      .looseObject({
        iss: z.string().min(1),
        aud: audience,
        sub: z.string().min(1).max(255),
        iat: numericDate,
        exp: numericDate,
        nbf: numericDate.optional(),
        jti: z.string().min(1).max(255).optional(),
        mode: mode.optional(),
        payplane_mode: mode.optional(),
      })
      .refine((c) => c.mode === undefined || c.payplane_mode === undefined || c.mode === c.payplane_mode, {
        message: 'mode and payplane_mode differ',
        path: ['payplane_mode'],
      });
    claimSchemas = { local, oidc };
  }
  return claimSchemas;
}

function checkClaims<T>(schema: Zod.ZodType<T>, payload: JWTPayload): T {
  const parsed = schema.safeParse(payload);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const claim = issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : issue.path.join('.');
    return issue.code === 'unrecognized_keys' ? `unknown claim ${claim}` : `${claim || 'claims'}: ${issue.message}`;
  });
  throw new AuthenticationError(`The bearer token's claims are not valid (${problems.join('; ')}).`, 'INVALID_TOKEN_CLAIMS');
}
