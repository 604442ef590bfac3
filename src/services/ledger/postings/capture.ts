import { inTransaction, type CallerContext } from '../../../domain/context';
import type { LedgerAccount } from '../../../db/models/ledger';
import type { FeeBreakdown } from '../../fees/engine';
import { post } from '../post';
import { scheduleReleases } from '../releases';
import { alreadyPosted, assertBreakdown, feeLines } from './shared';

export interface CapturePosting {
  tenantId: string;
  livemode: boolean;
  merchantId: string;
  paymentId: string;
  providerIntegrationId: string;
  partnerId: string | null;
  /** amount = the captured amount */
  breakdown: FeeBreakdown;
  availableImmediately: boolean;
}

/**
 * Books a capture: provider clearing −amount; merchant pending (available when availableImmediately)
 * +(net − reserve); merchant reserve +reserve; each fee to its owner's revenue account. Schedules the release
 * of pending to available after the holding period, and of the reserve after holdDays when autoRelease.
 * Posts once per payment: a second call for the same payment books nothing.
 */
export async function postCapture(ctx: CallerContext, p: CapturePosting): Promise<void> {
  const b = p.breakdown;
  assertBreakdown(b);
  if (b.amount === 0) return;
  await inTransaction(ctx, async (tctx) => {
    if (await alreadyPosted(tctx, p.livemode, 'payment', p.paymentId)) return;
    const currency = b.currency;
    const toMerchant = b.net - b.reserve;
    const merchantAccount: LedgerAccount = p.availableImmediately ? 'merchant_available' : 'merchant_pending';
    const what = `payment ${p.paymentId}`;
    await post(tctx, {
      tenantId: p.tenantId,
      livemode: p.livemode,
      sourceType: 'payment',
      sourceId: p.paymentId,
      lines: [
        {
          account: 'provider_clearing',
          ownerId: p.providerIntegrationId,
          currency,
          amountMinor: -b.amount,
          description: `capture of ${what}`,
        },
        { account: merchantAccount, ownerId: p.merchantId, currency, amountMinor: toMerchant, description: `net of ${what}` },
        { account: 'merchant_reserve', ownerId: p.merchantId, currency, amountMinor: b.reserve, description: `rolling reserve of ${what}` },
        ...feeLines(b, p, what),
      ],
    });
    await scheduleReleases(tctx, {
      tenantId: p.tenantId,
      livemode: p.livemode,
      merchantId: p.merchantId,
      paymentId: p.paymentId,
      currency,
      pendingMinor: p.availableImmediately ? 0 : toMerchant,
      reserve: b.reserve > 0 && b.reserveFrom?.autoRelease ? { amountMinor: b.reserve, holdDays: b.reserveFrom.holdDays } : null,
    });
  });
}
