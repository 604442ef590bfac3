import { operatorContext } from '../../src/services/access/operators';
import { post } from '../../src/services/ledger/post';
import { SANDBOX_CARD_PROVIDER_ID } from '../../src/services/processing/providers';
import type { ApiHarness } from './api';

let funding = 0;

/** Credits the merchant's balance of `account` (available by default; merchant_reserve stands for a rolling reserve held). */
export async function credit(h: ApiHarness, valueMinor: number, options: { currency?: string; merchantId?: string; account?: 'merchant_available' | 'merchant_reserve' } = {}): Promise<void> {
  const currency = options.currency ?? 'EUR';
  const ctx = operatorContext(h.rt, { level: 'platform', tenantId: null, livemode: false });
  await post(ctx, {
    tenantId: h.sandbox.tenantId, livemode: false, sourceType: 'adjustment', sourceId: `payout-test-funding-${++funding}`, description: 'test funding',
    lines: [
      { account: 'provider_clearing', ownerId: SANDBOX_CARD_PROVIDER_ID, currency, amountMinor: -valueMinor },
      { account: options.account ?? 'merchant_available', ownerId: options.merchantId ?? h.sandbox.merchantId, currency, amountMinor: valueMinor },
    ],
  });
}
