import type { Operation } from '../../http/registry';

/** balances operations (skeleton, filled by the area's builder). */
export const balanceOperations: Operation[] = [];
