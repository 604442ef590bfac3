import crypto from 'node:crypto';

/** A new signing secret: whsec_ followed by base64 of 32 random bytes (Standard Webhooks). */
export function generateWebhookSecret(): string {
  return `whsec_${crypto.randomBytes(32).toString('base64')}`;
}

/** v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}"> under the secret's base64-decoded key. */
export function sign(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  const mac = crypto.createHmac('sha256', key).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The webhook-signature header: one value per valid secret (two during a rotation's grace period). */
export function signatureHeader(secrets: string[], messageId: string, timestampSeconds: number, body: string): string {
  return secrets.map((secret) => sign(secret, messageId, timestampSeconds, body)).join(' ');
}
