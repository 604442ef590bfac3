import { inTransaction, type CallerContext } from '../../../domain/context';
import { scoped } from '../../../db/scoped';
import type { LedgerEntryRow } from '../../../db/models';
import type { Money } from '../../../domain/money';
import type { FeeBreakdown } from '../../fees/engine';
import { post, ledgerWriter } from '../post';
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

/**
 * Reverses a succeeded refund the acquirer failed afterwards (Adyen's REFUND_FAILED after its REFUND): every line of
 * the refund's posting the other way (refund_reversal: the amount and the refund fee back to the merchant's available
 * balance). Posts once per refund, and nothing when the refund was never booked.
 */
export async function postRefundReversal(ctx: CallerContext, p: { livemode: boolean; refundId: string; paymentId: string }): Promise<void> {
  await inTransaction(ctx, async (tctx) => {
    if (await alreadyPosted(tctx, p.livemode, 'refund_reversal', p.refundId)) return;
    const booked = (await scoped(ledgerWriter(tctx, p.livemode), tctx.db.models.LedgerEntry).findAll({
      sourceType: 'refund',
      sourceId: p.refundId,
    })) as unknown as LedgerEntryRow[];
    if (booked.length === 0) return;
    const what = `refund ${p.refundId} of payment ${p.paymentId} failed at the provider`;
    await post(tctx, {
      tenantId: booked[0]!.tenantId,
      livemode: p.livemode,
      sourceType: 'refund_reversal',
      sourceId: p.refundId,
      lines: booked.map((e) => ({
        account: e.account,
        ownerId: e.ownerId,
        currency: e.currency,
        amountMinor: -e.amountMinor,
        description: what,
      })),
    });
  });
}
