import type { Operation } from '../../http/registry';

/** Companies and merchants. */
export const organizationOperations: Operation[] = [];
