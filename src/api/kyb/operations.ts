import type { Operation } from '../../http/registry';

/** KYB submissions, documents and review. */
export const kybOperations: Operation[] = [];
