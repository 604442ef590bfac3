import type { Operation } from '../../http/registry';

/** routing operations (skeleton, filled by the area's builder). */
export const routingOperations: Operation[] = [];
