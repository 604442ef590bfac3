import { loadConfig, type AppConfig } from '../../src/config';
import type { ConnectorEnv, ConnectorTerminal } from '../../src/connectors/types';
import type { Database } from '../../src/db/database';
import { ManualClock } from '../../src/domain/clock';
import { AdyenFake } from '../fakes/adyen';
import { testTls } from './receiver';

/**
 * A connector-level set-up of the Adyen connector against the fake: the configuration that lets it reach the fake
 * (its loopback address allowed, its certificate trusted, a short timeout), a terminal with the fake's credentials.
 * No database: the Adyen connector keeps nothing.
 */
export interface AdyenConnectorWorld {
  fake: AdyenFake;
  env: ConnectorEnv;
  config: AppConfig;
  clock: ManualClock;
  terminal: ConnectorTerminal;
}

export async function adyenConnectorWorld(options: { timeoutMs?: number } = {}): Promise<AdyenConnectorWorld> {
  const fake = await new AdyenFake().start();
  const config = loadConfig(
    {},
    { connectorAllowCidrs: ['127.0.0.0/8'], connectorCaFile: testTls().caFile, connectorTimeoutMs: options.timeoutMs ?? 1500 },
  );
  const clock = new ManualClock(new Date('2026-11-29T12:00:00Z'));
  const env: ConnectorEnv = { db: undefined as unknown as Database, clock, config };
  const terminal: ConnectorTerminal = {
    terminalId: '00000000-0000-4000-8000-00000000ad01',
    providerIntegrationId: '00000000-0000-4000-8000-000000009e11',
    connectorBaseUrl: fake.baseUrl,
    credentials: fake.credentials(),
    mcc: '5734',
    descriptor: 'PAYPLANE TEST',
    livemode: false,
  };
  return { fake, env, config, clock, terminal };
}
