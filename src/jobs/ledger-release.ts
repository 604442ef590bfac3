import type { BackgroundJob } from './types';

/** ledger-release (skeleton, filled by its area's builder). */
export const ledgerReleaseJob: BackgroundJob = {
  name: 'ledger-release',
  start: () => ({ stop: async () => undefined }),
};
