import type { Runtime } from '../../runtime';
import type { ProviderOutcome } from '../../connectors/types';

/**
 * Applies a provider's asynchronous answer (the sandbox acquirer's callback) to the payment, attempt or refund it
 * names. Idempotent: an outcome applied twice changes nothing the second time; an outcome for an unknown reference
 * is ignored. (Implemented with the payment path.)
 */
// eslint-disable-next-line @typescript-eslint/no-unused-vars
export async function handleProviderOutcome(rt: Runtime, outcome: ProviderOutcome): Promise<void> {
  throw new Error('not implemented yet');
}
