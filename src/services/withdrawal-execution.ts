import type { CallerContext } from '../domain/context';
import { claimExecution, completeWithdrawal, failWithdrawal, revealDestination, type Withdrawal } from './withdrawals';
import { getMerchant } from './organization/merchants';

// A withdrawal's execution by an operator, in its steps: take the execution (start it, or continue one the same
// operator started), pay it out by hand with the full destination, and record how it went (the payout provider's
// path is executeViaProvider, src/services/withdrawals.ts). The terminal's `withdrawals execute` asks and shows; these say what happens, in which order.

/** How an execution ended, as the operator reports it. */
export type ExecutionOutcome =
  { outcome: 'complete'; providerReference: string; comment?: string } | { outcome: 'fail'; comment: string; providerReference?: string };

/** Records the outcome on an executing withdrawal: completed (paid out) or failed (funds back to available). */
export function recordOutcome(ctx: CallerContext, id: string, outcome: ExecutionOutcome): Promise<Withdrawal> {
  return outcome.outcome === 'complete'
    ? completeWithdrawal(ctx, id, { providerReference: outcome.providerReference, comment: outcome.comment })
    : failWithdrawal(ctx, id, { comment: outcome.comment, providerReference: outcome.providerReference });
}

/**
 * An execution whose outcome is already known (the operator paid it out and says how it went): the execution is taken
 * for this actor, then closed with the outcome. Check the outcome before: a refused input should change nothing.
 */
export async function executeWithOutcome(ctx: CallerContext, id: string, outcome: ExecutionOutcome): Promise<Withdrawal> {
  await claimExecution(ctx, id);
  return recordOutcome(ctx, id, outcome);
}

/** What the executing operator needs to pay a withdrawal out by hand. */
export interface PayoutOrder {
  /** the withdrawal, executing by this actor */
  withdrawal: Withdrawal;
  /** the FULL destination (its reveal is audited) */
  destination: { type: string; details: Record<string, string> };
  merchantName: string;
}

/**
 * Starts (or continues) an execution by hand: the execution is taken for this actor, then the destination revealed to
 * them, with the merchant's name. The withdrawal stays executing until recordOutcome closes it.
 */
export async function startManualExecution(ctx: CallerContext, id: string): Promise<PayoutOrder> {
  const withdrawal = await claimExecution(ctx, id);
  const [destination, merchant] = await Promise.all([revealDestination(ctx, id), getMerchant(ctx, withdrawal.entityId)]);
  return { withdrawal, destination, merchantName: merchant.name };
}
