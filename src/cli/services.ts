import { lazy } from './base-command';

/** The service layer as commands reach it: loaded on first use, so help and version stay fast. */
export const services = {
  apiKeys: () => lazy<typeof import('../services/api-keys/keys')>('../services/api-keys/keys'),
  tenants: () => lazy<typeof import('../services/tenants/tenants')>('../services/tenants/tenants'),
  sandbox: () => lazy<typeof import('../services/sandbox')>('../services/sandbox'),
  tokens: () => lazy<typeof import('../services/access/tokens')>('../services/access/tokens'),
  runtime: () => lazy<typeof import('../runtime')>('../runtime'),
  server: () => lazy<typeof import('../http/server')>('../http/server'),
  scope: () => lazy<typeof import('./scope')>('./scope'),
  dispatcher: () => lazy<typeof import('../services/webhooks/dispatcher')>('../services/webhooks/dispatcher'),
  transport: () => lazy<typeof import('../services/webhooks/transport')>('../services/webhooks/transport'),
  webhookEndpoints: () => lazy<typeof import('../services/webhooks/endpoints')>('../services/webhooks/endpoints'),
  webhookDeliveries: () => lazy<typeof import('../services/webhooks/deliveries')>('../services/webhooks/deliveries'),
  webhookEvents: () => lazy<typeof import('../services/webhooks/events')>('../services/webhooks/events'),
  webhookSamples: () => lazy<typeof import('../services/webhooks/samples')>('../services/webhooks/samples'),
  scoped: () => lazy<typeof import('../db/scoped')>('../db/scoped'),
  jobs: () => lazy<typeof import('../jobs')>('../jobs'),
  doctor: () => lazy<typeof import('../services/doctor')>('../services/doctor'),
  webhookListener: () => lazy<typeof import('../listener/listener')>('../listener/listener'),
  webhookListenerRegistry: () => lazy<typeof import('../listener/registry')>('../listener/registry'),
  webhookCatalog: () => lazy<typeof import('../services/webhooks/catalog')>('../services/webhooks/catalog'),
};
