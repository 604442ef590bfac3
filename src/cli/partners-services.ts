import { lazy } from './base-command';

/** The partners area's services as commands reach them: loaded on first use, so help and version stay fast. */
export const partnerServices = {
  partners: () => lazy<typeof import('../services/partners')>('../services/partners'),
  channels: () => lazy<typeof import('../services/channels')>('../services/channels'),
  limits: () => lazy<typeof import('../services/limits/manage')>('../services/limits/manage'),
  scope: () => lazy<typeof import('./scope')>('./scope'),
};
