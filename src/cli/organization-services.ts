import { lazy } from './base-command';

/** The organization area's services as its commands reach them: loaded on first use (help stays fast). */
export const organization = {
  companies: () => lazy<typeof import('../services/organization/companies')>('../services/organization/companies'),
  merchants: () => lazy<typeof import('../services/organization/merchants')>('../services/organization/merchants'),
  context: () => lazy<typeof import('./organization-context')>('./organization-context'),
  output: () => lazy<typeof import('./organization-output')>('./organization-output'),
};
