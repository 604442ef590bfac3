import type { ApiHarness } from './api';
import { testTls } from './receiver';
import type { AppConfig } from '../../src/config';

/**
 * Set-up shared by the tests that reach the real acquirers' local fakes (test/fakes/stripe.ts, test/fakes/adyen.ts)
 * through the API: the provider integration's connectorBaseUrl pointed at a fake (PATCH by the platform), terminals of
 * that provider on the sandbox tenant with the fake's credentials, the sandbox card terminal disabled.
 */

export const STRIPE_PROVIDER = '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e10';
export const ADYEN_PROVIDER = '7d3f6a52-1c4e-4b8a-9e2f-5a6b7c8d9e11';

/** The runtime configuration that lets connectors reach a fake on 127.0.0.1 over the test TLS certificate. */
export function acquirerConfig(connectorTimeoutMs = 1_500): Partial<AppConfig> {
  return { connectorAllowCidrs: ['127.0.0.0/8'], connectorCaFile: testTls().caFile, connectorTimeoutMs };
}

/** Points a provider integration at a fake (its connectorBaseUrl). */
export async function pointProvider(h: ApiHarness, providerIntegrationId: string, baseUrl: string): Promise<void> {
  const res = await h
    .as(h.sandbox.platformToken)
    .patch(`/v1/admin/provider-integrations/${providerIntegrationId}`, { connectorBaseUrl: baseUrl });
  if (res.status !== 200) throw new Error(`connectorBaseUrl: ${res.status} ${JSON.stringify(res.body)}`);
}

/** A payin card terminal of the sandbox tenant on a provider, EUR and USD, visa and mastercard unless `more` says otherwise. */
export async function createAcquirerTerminal(
  h: ApiHarness,
  providerIntegrationId: string,
  credentials: Record<string, string>,
  more: Record<string, unknown> = {},
): Promise<string> {
  const res = await h.as(h.sandbox.tenantKey.secretKey).post('/v1/admin/terminals', {
    providerIntegrationId,
    name: `Terminal ${providerIntegrationId.slice(-4)}`,
    credentials,
    supportedCurrencies: ['EUR', 'USD'],
    supportedBrands: ['visa', 'mastercard'],
    supportedPaymentMethodTypes: ['card'],
    ...more,
  });
  if (res.status !== 201) throw new Error(`terminal: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.id as string;
}

/** Disables the sandbox card terminal (payments no longer route to it by default). */
export async function disableSandboxTerminal(h: ApiHarness): Promise<void> {
  const res = await h.as(h.sandbox.tenantKey.secretKey).post(`/v1/admin/terminals/${h.sandbox.terminalId}/disable`);
  if (res.status !== 200) throw new Error(`disable: ${res.status} ${JSON.stringify(res.body)}`);
}

/** A routing rule of the sandbox tenant trying `terminals` in this order (a draft activated), its id. */
export async function priorityRule(h: ApiHarness, terminals: string[], more: Record<string, unknown> = {}): Promise<string> {
  const tenant = h.as(h.sandbox.tenantKey.secretKey);
  const created = await tenant.post('/v1/admin/routing-rules', {
    name: 'Acquirers in order',
    priority: 10,
    outcome: { type: 'priority', terminals },
    ...more,
  });
  if (created.status !== 201) throw new Error(`routing rule: ${created.status} ${JSON.stringify(created.body)}`);
  const activated = await tenant.post(`/v1/admin/routing-rules/${created.body.data.id}/activate`);
  if (activated.status !== 200) throw new Error(`activate: ${activated.status} ${JSON.stringify(activated.body)}`);
  return created.body.data.id as string;
}

/** A payment's attempts, in their order (records: their codes are internal). */
export async function attemptsOf(h: ApiHarness, paymentId: string): Promise<Array<Record<string, any>>> {
  const rows = await h.rt.db.models.PaymentAttempt.findAll({ where: { paymentId } as never, order: [['sequence', 'ASC']] });
  return rows.map((r) => r.get({ plain: true }) as Record<string, any>);
}
