import { inTransaction, type CallerContext } from '../../../domain/context';
import type { Money } from '../../../domain/money';
import type { FeeBreakdown } from '../../fees/engine';
import { post } from '../post';
import { alreadyPosted, assertFeeOf, feeLines, raiseIfNegative } from './shared';

export interface RefundPosting {
  tenantId: string;
  livemode: boolean;
  merchantId: string;
  paymentId: string;
  refundId: string;
  providerIntegrationId: string;
  partnerId: string | null;
  amount: Money;
  /** refund fees charged to the merchant, when a schedule has refund rules */
  fee: FeeBreakdown | null;
}

/**
 * Books a succeeded refund: merchant available −(amount + refund fee), provider clearing +amount, each refund
 * fee to its owner. Emits `balance.negative` (tenant level) when the merchant's available balance is left below
 * zero. Posts once per refund.
 */
export async function postRefund(ctx: CallerContext, p: RefundPosting): Promise<void> {
  const currency = p.amount.currency;
  const fee = p.fee;
  assertFeeOf(fee, currency, 'refund');
  const feeTotal = fee?.merchantFee ?? 0;
  if (p.amount.valueMinor === 0 && feeTotal === 0) return;
  await inTransaction(ctx, async (tctx) => {
    if (await alreadyPosted(tctx, p.livemode, 'refund', p.refundId)) return;
    const what = `refund ${p.refundId} of payment ${p.paymentId}`;
    await post(tctx, {
      tenantId: p.tenantId,
      livemode: p.livemode,
      sourceType: 'refund',
      sourceId: p.refundId,
      lines: [
        {
          account: 'merchant_available',
          ownerId: p.merchantId,
          currency,
          amountMinor: -(p.amount.valueMinor + feeTotal),
          description: what,
        },
        { account: 'provider_clearing', ownerId: p.providerIntegrationId, currency, amountMinor: p.amount.valueMinor, description: what },
        ...(fee ? feeLines(fee, p, what) : []),
      ],
    });
    await raiseIfNegative(tctx, p, currency, { reason: 'refund', refundId: p.refundId, paymentId: p.paymentId });
  });
}
