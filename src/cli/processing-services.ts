import { lazy } from './base-command';

/** The processing area's services as commands reach them: loaded on first use, so help and version stay fast. */
export const processingServices = {
  terminals: () => lazy<typeof import('../services/processing/terminals')>('../services/processing/terminals'),
  providers: () => lazy<typeof import('../services/processing/providers')>('../services/processing/providers'),
  scope: () => lazy<typeof import('./scope')>('./scope'),
};
