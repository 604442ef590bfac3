import type { CallerContext } from '../../domain/context';

export interface CompleteSessionInput {
  paymentMethod: { type: 'card'; card: { number: string; expMonth: number; expYear: number; cvc?: string; holderName?: string } };
  customerInfo?: Record<string, unknown>;
  selectedFulfillment?: Record<string, unknown>;
}

/**
 * Pays an open checkout session: validates the card, checks limits, routes, creates the payment and calls the
 * provider. Opens its own transactions (the operation is declared with ownTransactions); the caller re-reads the
 * session afterwards. (Implemented with the payment path.)
 */
// eslint-disable-next-line @typescript-eslint/no-unused-vars
export async function completeCheckoutSession(ctx: CallerContext, sessionId: string, input: CompleteSessionInput): Promise<void> {
  throw new Error('not implemented yet');
}
