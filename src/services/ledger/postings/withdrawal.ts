import type { CallerContext } from '../../../domain/context';
import type { Money } from '../../../domain/money';
import type { FeeBreakdown } from '../../fees/engine';
import { post } from '../post';
import { assertFeeOf, heldLines, paidOutLines } from './shared';

export interface WithdrawalPosting {
  tenantId: string;
  livemode: boolean;
  merchantId: string;
  withdrawalId: string;
  /** what leaves: the amount paid out */
  amount: Money;
  /** the withdrawal fee charged to the merchant on top of the amount */
  fee: FeeBreakdown | null;
}

/** amount + fee: what a withdrawal holds from the merchant's available balance. */
export function withdrawalTotal(p: Pick<WithdrawalPosting, 'amount' | 'fee'>): number {
  return p.amount.valueMinor + (p.fee?.merchantFee ?? 0);
}

/**
 * The postings of a withdrawal's life. `hold` (requested): available −(amount + fee), payable +(amount + fee).
 * `release` (rejected, canceled or failed): the reverse, so the merchant may try again. `complete` (paid out):
 * payable −(amount + fee), payout_clearing of the channel +amount, each fee to its owner's revenue account.
 * The withdrawal's state machine guarantees each happens once (its moves are compare-and-set).
 */
export async function postWithdrawal(
  ctx: CallerContext,
  move: 'hold' | 'release' | 'complete',
  p: WithdrawalPosting & {
    /** complete: the channel the money left through; its provider integration earns provider fees (paid out through the channel when it has none) */
    channelId?: string;
    providerIntegrationId?: string | null;
    partnerId?: string | null;
  },
): Promise<void> {
  assertFeeOf(p.fee, p.amount.currency, 'withdrawal');
  const total = withdrawalTotal(p);
  const what = `withdrawal ${p.withdrawalId}`;
  const lines =
    move === 'complete'
      ? paidOutLines(p, total, what, `payout of ${what}`, 'a completed withdrawal needs its channel')
      : heldLines(p, total, move === 'hold' ? 1 : -1, `${move} of ${what}`);
  if (total === 0) return;
  await post(ctx, { tenantId: p.tenantId, livemode: p.livemode, sourceType: 'withdrawal', sourceId: p.withdrawalId, lines });
}
