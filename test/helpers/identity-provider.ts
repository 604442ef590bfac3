import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import type { AppConfig } from '../../src/config';

/** The issuer a local identity provider's tokens name. */
export const IDP_ISSUER = 'https://idp.example.test';

export interface LocalIdentityProvider {
  /** the private key its tokens are signed with (kid k1, RS256) */
  key: CryptoKey;
  /** the runtime settings that make the platform trust it (issuer, key set URL, audience payplane) */
  config: Pick<AppConfig, 'oidcIssuer' | 'oidcJwksUrl' | 'oidcAudience'>;
  close(): Promise<void>;
}

/** An identity provider of the test's own: an RS256 key pair, its public key served as a JWKS on a loopback port. */
export async function localIdentityProvider(): Promise<LocalIdentityProvider> {
  const pair = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const server = http.createServer((_req, res) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    key: pair.privateKey,
    config: { oidcIssuer: IDP_ISSUER, oidcJwksUrl: `http://127.0.0.1:${port}/jwks`, oidcAudience: 'payplane' },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
