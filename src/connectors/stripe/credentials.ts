import type { CredentialProblem } from '../types';

/** A Stripe terminal's credentials, checked without loading the stripe library (a terminal's create or update). */

/** The mode a Stripe key belongs to (sk_/rk_ test or live), or null when it is no Stripe secret key. */
export function keyMode(key: string): 'test' | 'live' | null {
  const match = /^(?:sk|rk)_(test|live)_/.exec(key);
  return match ? (match[1] as 'test' | 'live') : null;
}

/** A terminal's credentials: a secret (or restricted) key of the terminal's mode and a webhook signing secret. */
export function checkStripeCredentials(credentials: Record<string, string>, livemode: boolean): CredentialProblem | null {
  const key = credentials.secretKey ?? '';
  const mode = keyMode(key);
  const wanted = livemode ? 'live' : 'test';
  if (mode === null) {
    return {
      code: 'INVALID_CREDENTIALS',
      field: 'secretKey',
      message: `secretKey must be a Stripe secret key (sk_${wanted}_… or a restricted key rk_${wanted}_…).`,
    };
  }
  if (mode !== wanted) {
    return {
      code: 'CREDENTIALS_MODE_MISMATCH',
      field: 'secretKey',
      message: `secretKey is a ${mode} key; a ${livemode ? 'live' : 'sandbox'} terminal takes sk_${wanted}_… (or rk_${wanted}_…).`,
    };
  }
  const secret = credentials.webhookSigningSecret ?? '';
  if (!/^whsec_\S+$/.test(secret)) {
    return {
      code: 'INVALID_CREDENTIALS',
      field: 'webhookSigningSecret',
      message: 'webhookSigningSecret must be a Stripe webhook signing secret (whsec_…).',
    };
  }
  return null;
}
