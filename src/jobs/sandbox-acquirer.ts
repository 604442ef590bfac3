import type { BackgroundJob } from './types';

/** sandbox-acquirer (skeleton, filled by its area's builder). */
export const sandboxAcquirerJob: BackgroundJob = {
  name: 'sandbox-acquirer',
  start: () => ({ stop: async () => undefined }),
};
