import { lazy } from './base-command';

/** The access area's services as commands reach them: loaded on first use. */
export const accessServices = {
  users: () => lazy<typeof import('../services/access/users')>('../services/access/users'),
  roles: () => lazy<typeof import('../services/access/roles')>('../services/access/roles'),
  invitations: () => lazy<typeof import('../services/access/invitations')>('../services/access/invitations'),
  scope: () => lazy<typeof import('./access-scope')>('./access-scope'),
};
