import type { Operation } from '../../http/registry';

/** Users, roles, invitations. */
export const accessOperations: Operation[] = [];
