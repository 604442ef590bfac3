import type { Connector } from '../types';
import { checkStripeCredentials } from './credentials';

/**
 * The Stripe connector as the registry holds it: the `stripe` library (and this connector) is loaded on the first call,
 * not when the registry is (the CLI's start-up never needs it).
 */
type StripeModule = typeof import('./index');

let loaded: Connector | undefined;
const load = (): Connector => (loaded ??= (require('./index') as StripeModule).stripeConnector);

export const lazyStripeConnector: Connector = {
  kind: 'stripe',
  authorize: (env, terminal, request) => load().authorize(env, terminal, request),
  capture: (env, terminal, request) => load().capture(env, terminal, request),
  void: (env, terminal, request) => load().void(env, terminal, request),
  refund: (env, terminal, request) => load().refund(env, terminal, request),
  payout: (env, terminal, request) => load().payout(env, terminal, request),
  disputeEvidence: (env, terminal, request) => load().disputeEvidence(env, terminal, request),
  disputeAccept: (env, terminal, request) => load().disputeAccept(env, terminal, request),
  lookup: (env, terminal, request) => load().lookup!(env, terminal, request),
  completeAction: (env, terminal, request) => load().completeAction!(env, terminal, request),
  parseNotification: (env, terminal, request) => load().parseNotification!(env, terminal, request),
  checkCredentials: checkStripeCredentials,
};
