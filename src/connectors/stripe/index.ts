export { StripeConnector } from './connector';
export { checkStripeCredentials, keyMode } from './credentials';
export { parseStripeNotification } from './notifications';

import { StripeConnector } from './connector';

/** The one Stripe connector of the process (its clients are cached per key and base URL). */
export const stripeConnector = new StripeConnector();
