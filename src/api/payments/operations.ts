import type { Operation } from '../../http/registry';

/** payments operations (skeleton, filled by the area's builder). */
export const paymentOperations: Operation[] = [];
