import type { CallerContext } from '../../../domain/context';
import { InternalError } from '../../../domain/errors';
import type { Money } from '../../../domain/money';
import type { FeeBreakdown } from '../../fees/engine';
import { post, type PostingLine } from '../post';
import { assertFeeOf, feeLines } from './shared';

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
  const currency = p.amount.currency;
  assertFeeOf(p.fee, currency, 'withdrawal');
  const total = withdrawalTotal(p);
  const what = `withdrawal ${p.withdrawalId}`;
  let lines: PostingLine[];
  if (move === 'hold' || move === 'release') {
    const sign = move === 'hold' ? 1 : -1;
    lines = [
      { account: 'merchant_available', ownerId: p.merchantId, currency, amountMinor: -sign * total, description: `${move} of ${what}` },
      { account: 'merchant_payable', ownerId: p.merchantId, currency, amountMinor: sign * total, description: `${move} of ${what}` },
    ];
  } else {
    if (!p.channelId) throw new InternalError('a completed withdrawal needs its channel', 'LEDGER_POSTING_INVALID');
    lines = [
      { account: 'merchant_payable', ownerId: p.merchantId, currency, amountMinor: -total, description: `payout of ${what}` },
      { account: 'payout_clearing', ownerId: p.channelId, currency, amountMinor: p.amount.valueMinor, description: `payout of ${what}` },
      // without a provider integration (paid out by hand) the provider's share leaves with the payout, to the bank
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
  if (total === 0) return;
  await post(ctx, { tenantId: p.tenantId, livemode: p.livemode, sourceType: 'withdrawal', sourceId: p.withdrawalId, lines });
}
