import { inTransaction, type CallerContext } from '../../../domain/context';
import { InternalError } from '../../../domain/errors';
import type { Money } from '../../../domain/money';
import type { FeeBreakdown } from '../../fees/engine';
import { post, type PostingLine } from '../post';
import { alreadyPosted, assertFeeOf, feeLines } from './shared';
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
  const currency = p.amount.currency;
  assertFeeOf(p.fee, currency, 'payout');
  const total = withdrawalTotal(p);
  if (total === 0) return;
  const what = `payout ${p.payoutId}`;
  let lines: PostingLine[];
  if (sourceType === 'payout' || sourceType === 'payout_reversal') {
    const sign = sourceType === 'payout' ? 1 : -1;
    const move = sourceType === 'payout' ? 'hold' : 'reversal';
    lines = [
      { account: 'merchant_available', ownerId: p.merchantId, currency, amountMinor: -sign * total, description: `${move} of ${what}` },
      { account: 'merchant_payable', ownerId: p.merchantId, currency, amountMinor: sign * total, description: `${move} of ${what}` },
    ];
  } else {
    if (!p.channelId) throw new InternalError('a paid payout needs its channel', 'LEDGER_POSTING_INVALID');
    lines = [
      { account: 'merchant_payable', ownerId: p.merchantId, currency, amountMinor: -total, description: `${what} paid` },
      { account: 'payout_clearing', ownerId: p.channelId, currency, amountMinor: p.amount.valueMinor, description: `${what} paid` },
      ...(p.fee
        ? feeLines(
            p.fee,
            {
              tenantId: p.tenantId,
              providerIntegrationId: p.providerIntegrationId ?? p.channelId,
              partnerId: p.partnerId ?? null,
              provider: p.providerIntegrationId ? undefined : { account: 'payout_clearing', ownerId: p.channelId },
            },
            what,
          )
        : []),
    ];
  }
  await inTransaction(ctx, async (tctx) => {
    if (await alreadyPosted(tctx, p.livemode, sourceType, p.payoutId)) return;
    await post(tctx, { tenantId: p.tenantId, livemode: p.livemode, sourceType, sourceId: p.payoutId, lines });
  });
}
