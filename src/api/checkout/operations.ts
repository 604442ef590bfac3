import type { Operation } from '../../http/registry';

/** checkout operations (skeleton, filled by the area's builder). */
export const checkoutOperations: Operation[] = [];
