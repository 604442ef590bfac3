import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import type { AppConfig } from '../config';
import { checkedLookup, hostRefusal, isLoopbackHost, systemResolver } from '../services/webhooks/transport';

/**
 * How the real acquirers' connectors reach their hosts: one keep-alive HTTPS agent per configuration, whose
 * connect-time lookup refuses a private, loopback or reserved address unless PAYPLANE_CONNECTOR_ALLOW_CIDRS lists
 * its range (the check the base URL's update makes, made again on every connection: a name that later resolves
 * elsewhere is refused too), and whose certificates are checked as Node checks them, with the authorities of
 * PAYPLANE_CONNECTOR_CA_FILE added (NODE_EXTRA_CA_CERTS adds one for the whole process).
 */

const agents = new Map<string, https.Agent>();

export function connectorAgentOptions(config: Pick<AppConfig, 'connectorAllowCidrs' | 'connectorCaFile'>): https.AgentOptions {
  const allow = config.connectorAllowCidrs;
  const extra = config.connectorCaFile ? fs.readFileSync(config.connectorCaFile, 'utf8') : undefined;
  return {
    keepAlive: true,
    ...(extra ? { ca: [...tls.rootCertificates, extra] } : {}),
    lookup: checkedLookup(
      systemResolver,
      (hostname, list) =>
        hostRefusal(
          hostname,
          list.map((a) => a.address),
          allow,
        ) ?? list,
    ),
  };
}

/** The shared agent of a configuration (its allowed ranges and extra authorities). */
export function connectorAgent(config: Pick<AppConfig, 'connectorAllowCidrs' | 'connectorCaFile'>): https.Agent {
  const key = `${config.connectorAllowCidrs.join(',')}|${config.connectorCaFile ?? ''}`;
  let agent = agents.get(key);
  if (!agent) {
    agent = new https.Agent(connectorAgentOptions(config));
    agents.set(key, agent);
  }
  return agent;
}

/**
 * Why a connector base URL may not be called, or undefined when it may: https only, no credentials in it, and a
 * literal address allowed as the agent's lookup allows a name's (a literal address is connected to without a lookup).
 */
export function baseUrlRefusal(value: string, allowCidrs: string[]): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'https:') return 'must be an https URL';
  if (url.username || url.password) return 'must not carry credentials';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // a name is checked at connect time (every address it resolves to); localhost never leaves the machine
  if (net.isIP(host) || isLoopbackHost(host)) return hostRefusal(net.isIP(host) ? host : '127.0.0.1', [], allowCidrs);
  return undefined;
}
