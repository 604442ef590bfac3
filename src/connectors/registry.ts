import { HttpConnector } from './http';
import { SandboxCardConnector } from './sandbox-card';
import { SandboxPayoutConnector } from './sandbox-payout';
import type { Connector } from './types';

export type { Connector } from './types';

/**
 * Provider code -> connector. The sandbox card acquirer and the sandbox payout provider run in-process; every other
 * catalog provider is served by the HTTP connector at its connectorBaseUrl (registerConnector replaces one, e.g. in tests).
 */
const http = new HttpConnector();
const connectors = new Map<string, Connector>([
  ['sandbox-card', new SandboxCardConnector()],
  // the same acquirer, declared in the catalog as allowing one lifetime full refund per payment
  ['sandbox-card-single-refund', new SandboxCardConnector()],
  ['sandbox-payout', new SandboxPayoutConnector()],
  ['stripe', (require('./stripe/lazy') as typeof import('./stripe/lazy')).lazyStripeConnector], // loads the stripe library on its first call
  ['adyen', (require('./adyen/lazy') as typeof import('./adyen/lazy')).lazyAdyen],
]);

export function registerConnector(code: string, connector: Connector): void {
  connectors.set(code, connector);
}

export function connectorFor(providerCode: string): Connector {
  return connectors.get(providerCode) ?? http;
}
