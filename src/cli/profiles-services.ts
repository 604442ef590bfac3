import { lazy } from './base-command';

/** The integration profiles' services as commands reach them: loaded on first use, so help and version stay fast. */
export const profileServices = {
  profiles: () => lazy<typeof import('../services/profiles')>('../services/profiles'),
  scope: () => lazy<typeof import('./scope')>('./scope'),
};
