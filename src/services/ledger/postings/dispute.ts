import { inTransaction, type CallerContext } from '../../../domain/context';
import type { Money } from '../../../domain/money';
import type { LedgerSourceType } from '../../../db/models/ledger';
import type { FeeBreakdown } from '../../fees/engine';
import { post } from '../post';
import { alreadyPosted, assertFeeOf, feeLines, raiseIfNegative } from './shared';

export interface DisputePosting {
  tenantId: string;
  livemode: boolean;
  merchantId: string;
  paymentId: string;
  disputeId: string;
  /** the acquirer that took the money back (its clearing account gets the amount, as for a refund) */
  providerIntegrationId: string;
  partnerId: string | null;
  amount: Money;
  /** the dispute fee charged to the merchant (fee engine, transactionType dispute) */
  fee: FeeBreakdown | null;
}

/**
 * The postings of a dispute. `open` (sourceType dispute): merchant available −(amount + fee), provider clearing
 * +amount (the acquirer took it back, as for a refund), each fee to its owner's revenue account; raises
 * `balance.negative` when it leaves the available balance below zero. `won` (dispute_reversal): the amount back,
 * provider clearing −amount, merchant available +amount (the fee stays). A lost dispute posts nothing more. Each posts
 * once per dispute.
 */
export async function postDispute(ctx: CallerContext, move: 'open' | 'won', p: DisputePosting): Promise<void> {
  const currency = p.amount.currency;
  const fee = move === 'open' ? p.fee : null;
  assertFeeOf(fee, currency, 'dispute');
  const feeTotal = fee?.merchantFee ?? 0;
  if (p.amount.valueMinor === 0 && feeTotal === 0) return;
  const sourceType: LedgerSourceType = move === 'open' ? 'dispute' : 'dispute_reversal';
  await inTransaction(ctx, async (tctx) => {
    if (await alreadyPosted(tctx, p.livemode, sourceType, p.disputeId)) return;
    const what = `dispute ${p.disputeId} of payment ${p.paymentId}`;
    const sign = move === 'open' ? 1 : -1;
    await post(tctx, {
      tenantId: p.tenantId,
      livemode: p.livemode,
      sourceType,
      sourceId: p.disputeId,
      lines: [
        {
          account: 'merchant_available',
          ownerId: p.merchantId,
          currency,
          amountMinor: -sign * p.amount.valueMinor - feeTotal,
          description: move === 'open' ? what : `won ${what}`,
        },
        {
          account: 'provider_clearing',
          ownerId: p.providerIntegrationId,
          currency,
          amountMinor: sign * p.amount.valueMinor,
          description: move === 'open' ? what : `won ${what}`,
        },
        ...(fee ? feeLines(fee, p, `the fee of ${what}`) : []),
      ],
    });
    if (move === 'open') await raiseIfNegative(tctx, p, currency, { reason: 'dispute', disputeId: p.disputeId, paymentId: p.paymentId });
  });
}
