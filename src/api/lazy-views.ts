/**
 * src/api/views (every resource's read schema, and so the API's schemas), loaded on first use: the audit trail and the
 * events render records through it, and an admin command that writes neither does not load it.
 */
let views: typeof import('./views') | undefined;
export const apiViews = (): typeof import('./views') => (views ??= require('./views') as typeof import('./views'));
