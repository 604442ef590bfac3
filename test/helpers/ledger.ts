import type { Runtime } from '../../src/runtime';
import { operatorContext } from '../../src/services/access/operators';
import type { LedgerEntryRow } from '../../src/db/models';
import { balancesOf, type Balance } from '../../src/services/ledger/balances';
import { inTransaction, type CallerContext } from '../../src/domain/context';
import type { Money } from '../../src/domain/money';
import type { FeeBreakdown } from '../../src/services/fees/engine';
import { resolveFees } from '../../src/services/fees/schedules';
import { postCapture } from '../../src/services/ledger/postings/capture';
import { newId } from '../../src/util/ids';

const BALANCE_FIELD: Record<string, keyof Pick<Balance, 'pending' | 'available' | 'reserved' | 'payable'>> = {
  merchant_pending: 'pending',
  merchant_available: 'available',
  merchant_reserve: 'reserved',
  merchant_payable: 'payable',
};

export interface LedgerSummary {
  entries: number;
  postings: number;
  /** balances compared, per tenant, mode, merchant and currency */
  balances: number;
}

/**
 * The ledger invariant, checked from the raw rows (independently of the ledger's own SUM queries):
 * - every posting's entries sum to zero per currency, hence all entries sum to zero per currency;
 * - every balance the API reports (balancesOf, what GET /v1/balances answers) equals the sum of its entries,
 *   and every merchant account with entries has a reported balance.
 */
export async function expectLedgerInvariant(rt: Runtime): Promise<LedgerSummary> {
  const rows = (await rt.db.models.LedgerEntry.findAll({ raw: true })) as unknown as LedgerEntryRow[];
  const byCurrency = new Map<string, bigint>();
  const byPosting = new Map<string, bigint>();
  const expected = new Map<string, bigint>();
  const tenants = new Map<string, { tenantId: string; livemode: boolean }>();
  for (const row of rows) {
    const amount = BigInt(row.amountMinor);
    expect(Number.isSafeInteger(Number(row.amountMinor))).toBe(true);
    byCurrency.set(row.currency, (byCurrency.get(row.currency) ?? 0n) + amount);
    const postingKey = `${row.postingId}|${row.currency}`;
    byPosting.set(postingKey, (byPosting.get(postingKey) ?? 0n) + amount);
    const field = BALANCE_FIELD[row.account];
    if (field) {
      expect(row.merchantId).toBe(row.ownerId);
      const live = Boolean(row.livemode);
      tenants.set(`${row.tenantId}|${live}`, { tenantId: row.tenantId, livemode: live });
      const key = `${row.tenantId}|${live}|${row.merchantId}|${row.currency}|${field}`;
      expected.set(key, (expected.get(key) ?? 0n) + amount);
    } else {
      expect(row.merchantId).toBeNull();
    }
  }
  const unbalancedCurrencies = [...byCurrency].filter(([, sum]) => sum !== 0n).map(([c, sum]) => `${c}: ${sum}`);
  expect(unbalancedCurrencies).toEqual([]);
  const unbalancedPostings = [...byPosting].filter(([, sum]) => sum !== 0n).map(([k, sum]) => `${k}: ${sum}`);
  expect(unbalancedPostings).toEqual([]);

  let compared = 0;
  const reported = new Map<string, bigint>();
  for (const { tenantId, livemode } of tenants.values()) {
    const ctx = operatorContext(rt, { level: 'tenant', tenantId, livemode });
    for (const balance of await balancesOf(ctx)) {
      compared++;
      for (const field of ['pending', 'available', 'reserved', 'payable'] as const) {
        expect(balance[field].currency).toBe(balance.currency);
        reported.set(`${tenantId}|${livemode}|${balance.merchantId}|${balance.currency}|${field}`, BigInt(balance[field].valueMinor));
      }
    }
  }
  for (const [key, sum] of expected) expect([key, reported.get(key)]).toEqual([key, sum]);
  for (const [key, value] of reported) expect([key, value]).toEqual([key, expected.get(key) ?? 0n]);
  return { entries: rows.length, postings: new Set(rows.map((r) => r.postingId)).size, balances: compared };
}

/** A capture booked straight on the ledger, with no payment record behind it. */
export interface DirectCapture {
  tenantId: string;
  /** test mode unless told */
  livemode?: boolean;
  merchantId: string;
  providerIntegrationId: string;
  partnerId?: string | null;
  /** a new id unless told */
  paymentId?: string;
  breakdown: FeeBreakdown;
  /** to available at once instead of pending */
  immediate?: boolean;
}

/** Books `capture` (postCapture) in a transaction of `ctx`; returns its payment id. */
export async function postDirectCapture(ctx: CallerContext, capture: DirectCapture): Promise<string> {
  const paymentId = capture.paymentId ?? newId();
  await inTransaction(ctx, (t) =>
    postCapture(t, {
      tenantId: capture.tenantId,
      livemode: capture.livemode ?? false,
      merchantId: capture.merchantId,
      paymentId,
      providerIntegrationId: capture.providerIntegrationId,
      partnerId: capture.partnerId ?? null,
      breakdown: capture.breakdown,
      availableImmediately: capture.immediate ?? false,
    }),
  );
  return paymentId;
}

/** The fees a successful card payment of `amount` by `merchantId` pays at `at`, as the schedules `ctx` sees say. */
export function cardPaymentFees(ctx: CallerContext, merchantId: string, amount: Money, at: Date): Promise<FeeBreakdown> {
  return resolveFees(ctx, { type: 'payment', outcome: 'successful', amount, method: 'card', merchantId, at });
}
