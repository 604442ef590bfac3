import { lazyConnector } from '../lazy';

/**
 * The Adyen connector as the registry holds it: `@adyen/api-library` is loaded on the first call (../lazy.ts). No
 * `lookup`: Adyen offers none, its notification is the one source of a lost answer.
 */
export const lazyAdyen = lazyConnector('adyen', () => new (require('./connector') as typeof import('./connector')).AdyenConnector(), {
  has: ['completeAction', 'parseNotification', 'checkCredentials'],
});
