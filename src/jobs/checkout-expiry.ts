import { expireDueSessions } from '../services/checkout/expiry';
import type { BackgroundJob } from './types';
import { scheduledJob } from './periodic';

/** Expires the checkout sessions past their expiresAt, every minute inside `serve` (PAYPLANE_CHECKOUT_EXPIRY_MS). */
export const checkoutExpiryJob: BackgroundJob = scheduledJob('checkout-expiry', async (rt) => {
  const expired = await expireDueSessions(rt, rt.clock.now());
  if (expired > 0) rt.logger.info({ expired }, 'checkout sessions expired');
  return { expired };
});
