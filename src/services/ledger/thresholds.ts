import { inTransaction, type CallerContext } from '../../domain/context';
import { elevate } from '../../domain/authority';
import { scoped, type ListParams, type Page } from '../../db/scoped';
import type { BalanceThresholdRow, ThresholdBalanceType, ThresholdDirection } from '../../db/models/ledger';
import type { LedgerAccount } from '../../db/models/ledger';
import type { Money } from '../../domain/money';
import { auditRecord, auditedDelete, auditedRecord, lockedRecord } from '../audit/changes';
import { targetMerchant } from '../organization/merchant-target';
import { filterWhere, mapPage, presentRow, type Presented } from '../present';
import { emitEvent } from '../webhooks/events';
import { ACCOUNT_OF, balancesOf, type Balance } from './balances';

/**
 * Balance thresholds: a merchant's threshold on its available or pending balance in one currency
 * and mode, `above` or `below` an amount. A ledger posting that brings the balance to the threshold or beyond it in its
 * direction (above: balance ≥ amount; below: balance ≤ amount) raises balance.threshold_reached, once: the threshold's
 * `crossed` state records that the balance is beyond it, and only a posting that brings the balance back (above:
 * below the amount; below: above it) arms it again. A threshold created while the balance is already beyond it starts
 * crossed (no event: no posting crossed it).
 *
 * The check runs in the posting's transaction (ledger.post calls checkThresholds), so the state change and the event
 * (the outbox) commit with the entries or not at all. Its cost when the merchant has no threshold in the posting's
 * currency and mode: the lookup, a read of balance_thresholds that the configuration cache answers between
 * transactions (the table is a configuration table: src/db/config-tables.ts), so no statement at all while no
 * configuration changed. With thresholds: one read of the balances (entries summed, as GET /v1/balances), and a
 * compare-and-set update, an audit entry and an event only for a threshold whose state changes.
 */

const FIELDS = [
  'id',
  'tenantId',
  'merchantId',
  'livemode',
  'currency',
  'balanceType',
  'direction',
  'crossed',
  'crossedAt',
  'createdAt',
  'updatedAt',
  'deletedAt',
] as const satisfies readonly (keyof BalanceThresholdRow)[];

export type BalanceThreshold = Presented<Pick<BalanceThresholdRow, (typeof FIELDS)[number]>> & { amount: Money };

export function toBalanceThreshold(row: BalanceThresholdRow): BalanceThreshold {
  return { ...presentRow(row, FIELDS), amount: { currency: row.currency, valueMinor: row.amountMinor } };
}

const THRESHOLD = auditedRecord<BalanceThresholdRow>({
  model: (ctx) => ctx.db.models.BalanceThreshold,
  targetType: 'balance_threshold',
  owner: (row) => ({ tenantId: row.tenantId, merchantId: row.merchantId, livemode: row.livemode }),
  render: toBalanceThreshold,
});

/** The merchant accounts of the balance types a threshold may watch. */
const WATCHED: ReadonlySet<LedgerAccount> = new Set(
  (['available', 'pending'] as const satisfies readonly ThresholdBalanceType[]).map((type) => ACCOUNT_OF[type]),
);

/** Whether `balance` (minor units) is at or beyond the threshold in its direction. */
export function isBeyond(threshold: Pick<BalanceThresholdRow, 'direction' | 'amountMinor'>, balance: number): boolean {
  return threshold.direction === 'above' ? balance >= threshold.amountMinor : balance <= threshold.amountMinor;
}

export interface CreateBalanceThresholdInput {
  /** required for tenant callers; a merchant caller's own otherwise */
  merchantId?: string;
  balanceType: ThresholdBalanceType;
  direction: ThresholdDirection;
  amount: Money;
}

/** The merchant's balance of `type` in `currency`, in the caller's mode (0 without entries). */
async function balanceOf(ctx: CallerContext, merchant: { tenantId: string; id: string }, currency: string): Promise<Balance | undefined> {
  const reader = elevate(ctx, 'tenant', 'the balance a threshold is set on', { tenantId: merchant.tenantId });
  const [balance] = await balancesOf(reader, { merchantId: merchant.id, currency });
  return balance;
}

export async function createBalanceThreshold(ctx: CallerContext, input: CreateBalanceThresholdInput): Promise<BalanceThreshold> {
  return inTransaction(ctx, async (tx) => {
    const merchant = await targetMerchant(tx, input.merchantId, 'body.merchantId');
    const currency = input.amount.currency;
    const balance = await balanceOf(tx, merchant, currency);
    const crossed = isBeyond(
      { direction: input.direction, amountMinor: input.amount.valueMinor },
      balance?.[input.balanceType].valueMinor ?? 0,
    );
    const row = await scoped(tx, tx.db.models.BalanceThreshold).create({
      tenantId: merchant.tenantId,
      merchantId: merchant.id,
      currency,
      balanceType: input.balanceType,
      direction: input.direction,
      amountMinor: input.amount.valueMinor,
      crossed,
      crossedAt: null,
      createdBy: tx.actor.id,
    });
    const threshold = toBalanceThreshold(row);
    await auditRecord(tx, THRESHOLD, row, 'balance_threshold.created', { after: threshold });
    return threshold;
  });
}

export interface BalanceThresholdFilters {
  merchantId?: string;
  currency?: string;
  balanceType?: ThresholdBalanceType;
  direction?: ThresholdDirection;
}

export async function listBalanceThresholds(
  ctx: CallerContext,
  filters: BalanceThresholdFilters,
  page: ListParams,
): Promise<Page<BalanceThreshold>> {
  const where = filterWhere(filters, ['merchantId', 'currency', 'balanceType', 'direction']);
  return mapPage(await scoped(ctx, ctx.db.models.BalanceThreshold).list(where, page), toBalanceThreshold);
}

export async function getBalanceThreshold(ctx: CallerContext, id: string): Promise<BalanceThreshold> {
  return toBalanceThreshold(await scoped(ctx, ctx.db.models.BalanceThreshold).get(id));
}

/** Soft delete: the record with deletedAt set; afterwards it is 404 and no posting looks at it. */
export async function deleteBalanceThreshold(ctx: CallerContext, id: string): Promise<BalanceThreshold> {
  return inTransaction(ctx, async (tx) => {
    const row = await lockedRecord(tx, THRESHOLD, id);
    return toBalanceThreshold(
      await auditedDelete(tx, THRESHOLD, row, { action: 'balance_threshold.deleted', expect: { deletedAt: null } }),
    );
  });
}

/** A merchant line of a posting, as the ledger hands it over. */
export interface PostedLine {
  account: LedgerAccount;
  ownerId: string;
  currency: string;
  amountMinor: number;
}

/**
 * After a posting's entries (in its transaction, `writer` the ledger's platform context in the posting's mode): for
 * each merchant and currency whose available or pending balance the posting moved, the thresholds on them; when there
 * are any, the balances after the posting, and each threshold whose state that changes is updated (compare-and-set
 * on `crossed`, so two postings never raise the same crossing twice) and audited; a crossing raises
 * balance.threshold_reached to the merchant's endpoints.
 */
export async function checkThresholds(
  writer: CallerContext,
  posting: { tenantId: string; livemode: boolean; sourceType: string; sourceId: string },
  lines: PostedLine[],
): Promise<void> {
  const moved = new Map<string, { merchantId: string; currency: string }>();
  for (const line of lines) {
    if (line.amountMinor !== 0 && WATCHED.has(line.account))
      moved.set(`${line.ownerId}.${line.currency}`, { merchantId: line.ownerId, currency: line.currency });
  }
  if (moved.size === 0) return;
  const table = scoped(writer, writer.db.models.BalanceThreshold);
  for (const { merchantId, currency } of moved.values()) {
    // answered by the configuration cache while no configuration changed: no statement for a merchant without thresholds
    const thresholds = await table.findAll({ merchantId, currency });
    if (thresholds.length === 0) continue;
    // locked, oldest first, before the balances are read: of two postings for this merchant at once (Postgres), the
    // second waits here for the first to commit and then reads the balances with the first's entries, so neither
    // misses a crossing the two make together (SQLite has one writer: postings are one after the other anyway)
    const locked: BalanceThresholdRow[] = [];
    for (const threshold of thresholds.reverse()) {
      const row = await table.findOne({ id: threshold.id }, { lock: true });
      if (row) locked.push(row);
    }
    const balance = await balanceOf(writer, { tenantId: posting.tenantId, id: merchantId }, currency);
    const now = writer.clock.now();
    for (const threshold of locked) {
      const value = balance?.[threshold.balanceType].valueMinor ?? 0;
      const beyond = isBeyond(threshold, value);
      if (beyond === threshold.crossed) continue;
      const changes: Partial<BalanceThresholdRow> = beyond ? { crossed: true, crossedAt: now } : { crossed: false };
      const updated = await table.updateIf(threshold, { crossed: threshold.crossed, deletedAt: null }, changes);
      if (!updated) continue;
      const before = toBalanceThreshold(threshold);
      const after = toBalanceThreshold(updated);
      await auditRecord(writer, THRESHOLD, threshold, beyond ? 'balance_threshold.reached' : 'balance_threshold.rearmed', {
        before,
        after: { ...after, balance: { currency, valueMinor: value }, sourceType: posting.sourceType, sourceId: posting.sourceId },
      });
      if (!beyond) continue;
      const zero = { currency, valueMinor: 0 };
      await emitEvent(writer, {
        type: 'balance.threshold_reached',
        tenantId: threshold.tenantId,
        merchantId,
        livemode: threshold.livemode,
        data: {
          object: 'balance',
          merchantId,
          currency,
          balanceType: threshold.balanceType,
          direction: threshold.direction,
          threshold: after,
          balance: { currency, valueMinor: value },
          available: balance?.available ?? zero,
          pending: balance?.pending ?? zero,
          sourceType: posting.sourceType,
          sourceId: posting.sourceId,
        },
      });
    }
  }
}
