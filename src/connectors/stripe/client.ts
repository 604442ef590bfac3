import crypto from 'node:crypto';
import Stripe from 'stripe';
import type { AppConfig } from '../../config';
import { baseUrlRefusal, connectorAgent } from '../transport';
import { ConnectorError, type ConnectorTerminal } from '../types';
import { keyMode } from './credentials';

export const DEFAULT_BASE_URL = 'https://api.stripe.com';

/**
 * One Stripe client per (secret key, base URL, transport settings), kept in memory for the process: the library's
 * own retries are off (a lost answer is settled from Stripe's record, by our reference, never by a blind resend),
 * every call carries our idempotency key, the connection goes through the connectors' agent (private addresses
 * refused unless allowed, extra authorities trusted). The key is never logged; the cache is keyed by its hash.
 */
const clients = new Map<string, Stripe>();

export function secretKeyOf(terminal: ConnectorTerminal): string {
  const key = terminal.credentials.secretKey;
  if (!key) throw new ConnectorError(`terminal ${terminal.terminalId} has no Stripe secretKey`, false);
  return key;
}

export function stripeClient(
  config: Pick<AppConfig, 'connectorAllowCidrs' | 'connectorCaFile' | 'connectorTimeoutMs'>,
  terminal: ConnectorTerminal,
): Stripe {
  const key = secretKeyOf(terminal);
  const mode = keyMode(key);
  if (mode === null) throw new ConnectorError(`terminal ${terminal.terminalId}: its secretKey is not a Stripe secret key`, false);
  if ((mode === 'live') !== terminal.livemode) {
    throw new ConnectorError(
      `terminal ${terminal.terminalId} is ${terminal.livemode ? 'live' : 'a sandbox terminal'}: its Stripe key is a ${mode} key`,
      false,
    );
  }
  const base = terminal.connectorBaseUrl || DEFAULT_BASE_URL;
  const refusal = baseUrlRefusal(base, config.connectorAllowCidrs);
  if (refusal) throw new ConnectorError(`the Stripe base URL of terminal ${terminal.terminalId} ${refusal}`, false);
  const url = new URL(base);
  // the library calls <origin>/v1/…: a base URL with a path of its own (a proxy's prefix) would be silently dropped
  if (url.pathname !== '/' && url.pathname !== '') {
    throw new ConnectorError(
      `the Stripe base URL of terminal ${terminal.terminalId} has a path (${url.pathname}): Stripe is called at its origin only`,
      false,
    );
  }
  const cacheKey = crypto
    .createHash('sha256')
    .update([key, url.origin, config.connectorTimeoutMs, config.connectorCaFile ?? '', config.connectorAllowCidrs.join(',')].join('\n'))
    .digest('hex');
  let client = clients.get(cacheKey);
  if (!client) {
    client = new Stripe(key, {
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port ? Number(url.port) : 443,
      protocol: 'https',
      httpAgent: connectorAgent(config),
      timeout: config.connectorTimeoutMs,
      maxNetworkRetries: 0,
      telemetry: false,
      appInfo: { name: 'payplane' },
    });
    clients.set(cacheKey, client);
  }
  return client;
}
