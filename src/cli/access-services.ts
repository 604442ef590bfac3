import { lazy } from './base-command';

/** The access area's services as commands reach them: loaded on first use. */
export const accessServices = {
  users: () => lazy<typeof import('../services/users')>('../services/users'),
  roles: () => lazy<typeof import('../services/roles')>('../services/roles'),
  invitations: () => lazy<typeof import('../services/invitations')>('../services/invitations'),
  scope: () => lazy<typeof import('./access-scope')>('./access-scope'),
};
