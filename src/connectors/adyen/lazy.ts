import type { Connector } from '../types';
import type { AdyenConnector } from './connector';

/**
 * The Adyen connector as the registry holds it: the same methods, the `@adyen/api-library` loaded on the first call
 * (the CLI's start-up loads the registry, never the library). No `lookup`, as the connector has none.
 */
let instance: AdyenConnector | undefined;

function adyen(): AdyenConnector {
  if (!instance) instance = new (require('./connector') as typeof import('./connector')).AdyenConnector();
  return instance;
}

export const lazyAdyen: Connector = {
  kind: 'adyen',
  authorize: (env, terminal, request) => adyen().authorize(env, terminal, request),
  capture: (env, terminal, request) => adyen().capture(env, terminal, request),
  void: (env, terminal, request) => adyen().void(env, terminal, request),
  refund: (env, terminal, request) => adyen().refund(env, terminal, request),
  payout: (env, terminal, request) => adyen().payout(env, terminal, request),
  disputeEvidence: (env, terminal, request) => adyen().disputeEvidence(env, terminal, request),
  disputeAccept: (env, terminal, request) => adyen().disputeAccept(env, terminal, request),
  completeAction: (env, terminal, request) => adyen().completeAction(env, terminal, request),
  parseNotification: (env, terminal, request) => adyen().parseNotification(env, terminal, request),
  checkCredentials: (credentials, livemode) => adyen().checkCredentials(credentials, livemode),
};
