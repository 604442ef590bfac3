import { lazyConnector } from '../lazy';
import { checkStripeCredentials } from './credentials';

/** The Stripe connector as the registry holds it: the `stripe` library is loaded on the first call (../lazy.ts). */
export const lazyStripeConnector = lazyConnector('stripe', () => (require('./index') as typeof import('./index')).stripeConnector, {
  has: ['lookup', 'completeAction', 'parseNotification'],
  checkCredentials: checkStripeCredentials,
});
