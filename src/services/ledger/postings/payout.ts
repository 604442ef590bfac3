import { inTransaction, type CallerContext } from '../../../domain/context';
import type { Money } from '../../../domain/money';
import type { FeeBreakdown } from '../../fees/engine';
import { post } from '../post';
import { alreadyPosted, assertFeeOf, heldLines, paidOutLines } from './shared';
import { withdrawalTotal } from './withdrawal';

export interface PayoutPosting {
  tenantId: string;
  livemode: boolean;
  merchantId: string;
  payoutId: string;
  /** what reaches the destination */
  amount: Money;
  /** the payout fee (fee engine, transactionType payout), held with the amount */
  fee: FeeBreakdown | null;
  /** paid: the payout channel the money left through and its provider integration (earns the provider's share) */
  channelId?: string;
  providerIntegrationId?: string | null;
  partnerId?: string | null;
}

/**
 * The postings of a payout's life, one each per payout (a second call books nothing). `payout` (created): available
 * −(amount + fee), payable +(amount + fee). `payout_paid`: payable −(amount + fee), payout_clearing of the channel
 * +amount, each fee to its owner's revenue account. `payout_reversal` (failed or canceled): payable → available.
 */
export async function postPayout(
  ctx: CallerContext,
  sourceType: 'payout' | 'payout_paid' | 'payout_reversal',
  p: PayoutPosting,
): Promise<void> {
  assertFeeOf(p.fee, p.amount.currency, 'payout');
  const total = withdrawalTotal(p);
  if (total === 0) return;
  const what = `payout ${p.payoutId}`;
  const lines =
    sourceType === 'payout_paid'
      ? paidOutLines(p, total, what, `${what} paid`, 'a paid payout needs its channel')
      : sourceType === 'payout'
        ? heldLines(p, total, 1, `hold of ${what}`)
        : heldLines(p, total, -1, `reversal of ${what}`);
  await inTransaction(ctx, async (tctx) => {
    if (await alreadyPosted(tctx, p.livemode, sourceType, p.payoutId)) return;
    await post(tctx, { tenantId: p.tenantId, livemode: p.livemode, sourceType, sourceId: p.payoutId, lines });
  });
}
