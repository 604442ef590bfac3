import { HttpConnector } from './http';
import type { Connector } from './types';

export type { Connector } from './types';

/**
 * Provider code -> connector. Every catalog provider is served by the HTTP connector at its connectorBaseUrl until an
 * in-process implementation registers for its code (the sandbox card acquirer and sandbox payout provider do, with
 * the payment path): registerConnector('sandbox-card', …).
 */
const http = new HttpConnector();
const connectors = new Map<string, Connector>();

export function registerConnector(code: string, connector: Connector): void {
  connectors.set(code, connector);
}

export function connectorFor(providerCode: string): Connector {
  return connectors.get(providerCode) ?? http;
}
