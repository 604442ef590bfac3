import type { ApiKeyRow } from '../../db/models';
import { randomBase62, safeEqual, sha256Hex } from '../../util/secrets';

/** Length of the non-secret lookup prefix shared by the public key and the secret key. */
const PREFIX_LENGTH = 16;
const SECRET_LENGTH = 40;

export interface GeneratedKey {
  prefix: string;
  publicKey: string;
  secretKey: string;
  secretHash: string;
}

/** A new key pair: pk_<env>_<prefix> and sk_<env>_<prefix><secret>; only the secret's hash is kept. */
export function generateKeyPair(livemode: boolean): GeneratedKey {
  const env = livemode ? 'live' : 'test';
  const prefix = randomBase62(PREFIX_LENGTH);
  const secretKey = `sk_${env}_${prefix}${randomBase62(SECRET_LENGTH)}`;
  return { prefix, publicKey: `pk_${env}_${prefix}`, secretKey, secretHash: sha256Hex(secretKey) };
}

export function parseSecretKey(secret: string): { livemode: boolean; prefix: string } | null {
  const m = /^sk_(test|live)_([A-Za-z0-9]{16})[A-Za-z0-9]{40}$/.exec(secret);
  return m ? { livemode: m[1] === 'live', prefix: m[2] } : null;
}

export function verifySecret(secret: string, storedHash: string): boolean {
  return safeEqual(sha256Hex(secret), storedHash);
}

/** Status as the specification names it: expiry is derived from expiresAt and the clock, never stored. */
export function apiKeyStatus(key: Pick<ApiKeyRow, 'status' | 'expiresAt'>, now: Date): 'active' | 'revoked' | 'expired' {
  if (key.status === 'revoked') return 'revoked';
  if (key.expiresAt && new Date(key.expiresAt).getTime() <= now.getTime()) return 'expired';
  return 'active';
}
