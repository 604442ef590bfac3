import { randomBase62, safeEqual, sha256Hex } from '../../util/secrets';

// A session's client secret: the customer's (or an agent's) key to its one session, shown once at creation.

const SECRET_RE = /^cs_(test|live)_([0-9a-f]{32})_secret_([A-Za-z0-9]{32})$/;

/** cs_<mode>_<session id>_secret_<32 random base62>: names its session, so it is found without a scan. */
export function generateClientSecret(livemode: boolean, sessionId: string): { secret: string; hash: string } {
  const secret = `cs_${livemode ? 'live' : 'test'}_${sessionId.replace(/-/g, '')}_secret_${randomBase62(32)}`;
  return { secret, hash: sha256Hex(secret) };
}

export function parseClientSecret(secret: string): { livemode: boolean; sessionId: string } | null {
  const m = SECRET_RE.exec(secret);
  if (!m) return null;
  const h = m[2];
  return {
    livemode: m[1] === 'live',
    sessionId: `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`,
  };
}

/** constant-time comparison of the secret's hash with the stored one */
export function verifyClientSecret(secret: string, storedHash: string): boolean {
  return safeEqual(sha256Hex(secret), storedHash);
}
