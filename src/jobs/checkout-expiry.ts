import type { BackgroundJob } from './types';

/** checkout-expiry (skeleton, filled by its area's builder). */
export const checkoutExpiryJob: BackgroundJob = {
  name: 'checkout-expiry',
  start: () => ({ stop: async () => undefined }),
};
