import type { Operation } from '../../http/registry';

/** Partners, partner assignments, channels, merchant and channel limits. */
export const partnerOperations: Operation[] = [];
