import { operatorContext } from '../../src/services/access/operators';
import type { CallerContext } from '../../src/domain/context';
import { post } from '../../src/services/ledger/post';
import { SANDBOX_CARD_PROVIDER_ID } from '../../src/services/processing/providers';
import { newId } from '../../src/util/ids';
import type { ApiHarness } from './api';

export interface Funding {
  tenantId: string;
  merchantId: string;
  valueMinor: number;
  /** EUR unless told */
  currency?: string;
  /** the merchant balance credited: available (the default), or merchant_reserve for a rolling reserve held */
  account?: 'merchant_available' | 'merchant_reserve';
  livemode?: boolean;
  /** the posting's source id (a new id unless told) and description ('test funding') */
  sourceId?: string;
  description?: string;
}

/**
 * Credits a merchant's balance with one adjustment posting, the sandbox card provider's clearing account on the other
 * side, as if captured payments had been released: for tests that need funds, not the payment path. `ctx` posts it
 * (its clock dates it).
 */
export async function fundByAdjustment(ctx: CallerContext, funding: Funding): Promise<void> {
  const { tenantId, merchantId, valueMinor, currency = 'EUR', account = 'merchant_available', livemode = false } = funding;
  await post(ctx, {
    tenantId,
    livemode,
    sourceType: 'adjustment',
    sourceId: funding.sourceId ?? `test-funding-${newId()}`,
    description: funding.description ?? 'test funding',
    lines: [
      { account: 'provider_clearing', ownerId: SANDBOX_CARD_PROVIDER_ID, currency, amountMinor: -valueMinor },
      { account, ownerId: merchantId, currency, amountMinor: valueMinor },
    ],
  });
}

/** fundByAdjustment for the harness's sandbox merchant (or `merchantId` of its tenant), posted by the platform. */
export async function fundMerchant(
  h: ApiHarness,
  valueMinor: number,
  options: Omit<Partial<Funding>, 'tenantId' | 'valueMinor'> = {},
): Promise<void> {
  const ctx = operatorContext(h.rt, { level: 'platform', tenantId: null, livemode: false });
  await fundByAdjustment(ctx, { merchantId: h.sandbox.merchantId, ...options, tenantId: h.sandbox.tenantId, valueMinor });
}
