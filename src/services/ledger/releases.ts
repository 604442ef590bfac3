import { Op } from 'sequelize';
import type { CallerContext } from '../../domain/context';
import { elevate } from '../../domain/authority';
import { inTransaction } from '../../domain/context';
import { scoped } from '../../db/scoped';
import type { LedgerAccount, LedgerReleaseRow, LedgerSourceType } from '../../db/models/ledger';
import { newId } from '../../util/ids';
import type { Runtime } from '../../runtime';
import { recordAudit } from '../audit/entries';
import { forEachDue, type DueOptions } from '../due-work';
import { emitEvent } from '../webhooks/events';
import { ledgerWriter, post } from './post';
import { balancesOf } from './balances';

// The releases of captured funds: scheduled with a capture's posting (postings/capture.ts), moved to the merchant's
// available balance when due (the ledger-release job, src/jobs/ledger-release.ts).

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** What a capture leaves to release later. */
export interface CaptureReleases {
  tenantId: string;
  livemode: boolean;
  merchantId: string;
  paymentId: string;
  currency: string;
  /** credited to pending: released to available after the holding period (0: nothing to release) */
  pendingMinor: number;
  /** the rolling reserve, when it is released by itself after holdDays */
  reserve: { amountMinor: number; holdDays: number } | null;
}

/** Schedules a capture's releases, in its posting's transaction. */
export async function scheduleReleases(ctx: CallerContext, r: CaptureReleases): Promise<void> {
  const now = ctx.clock.now();
  const releases = scoped(ledgerWriter(ctx, r.livemode), ctx.db.models.LedgerRelease);
  const base = {
    tenantId: r.tenantId,
    livemode: r.livemode,
    merchantId: r.merchantId,
    currency: r.currency,
    releasedAt: null,
    postingId: null,
    sourceType: 'payment' as const,
    sourceId: r.paymentId,
  };
  if (r.pendingMinor !== 0) {
    const releaseAt = new Date(now.getTime() + ctx.config.holdingPeriodHours * HOUR_MS);
    await releases.createLater({ ...base, kind: 'pending', amountMinor: r.pendingMinor, releaseAt });
  }
  if (r.reserve) {
    const releaseAt = new Date(now.getTime() + r.reserve.holdDays * DAY_MS);
    await releases.createLater({ ...base, kind: 'reserve', amountMinor: r.reserve.amountMinor, releaseAt });
  }
}

export type ReleaseOptions = DueOptions;

/**
 * Moves every due release (pending → available after the holding period, reserve → available after holdDays):
 * one posting each, claimed by a compare-and-set on releasedAt in the posting's transaction, so two processes
 * never move the same release twice. Emits `balance.available`. With a Runtime it runs over every tenant in both
 * modes; with a caller context, over what that caller sees. Returns how many releases it moved.
 */
export function releaseDue(source: Runtime | CallerContext, options: ReleaseOptions = {}): Promise<number> {
  return forEachDue<LedgerReleaseRow>(
    source,
    {
      model: (ctx) => ctx.db.models.LedgerRelease,
      where: (now) => ({ releasedAt: null, releaseAt: { [Op.lte]: now } }),
      order: [
        ['releaseAt', 'ASC'],
        ['id', 'ASC'],
      ],
    },
    releaseOne,
    options,
  );
}

/** Moves one release; false when another run moved it first. */
async function releaseOne(ctx: CallerContext, row: LedgerReleaseRow, now: Date): Promise<boolean> {
  return inTransaction(ctx, async (tctx) => {
    const w = ledgerWriter(tctx, row.livemode);
    const postingId = newId();
    const claimed = await scoped(w, tctx.db.models.LedgerRelease).updateIf(row, { releasedAt: null }, { releasedAt: now, postingId });
    if (!claimed) return false;
    const amount = row.amountMinor;
    const from: LedgerAccount = row.kind === 'reserve' ? 'merchant_reserve' : 'merchant_pending';
    const sourceType: LedgerSourceType = row.kind === 'reserve' ? 'reserve_release' : 'release';
    const description = row.kind === 'reserve' ? `reserve release of payment ${row.sourceId}` : `release of payment ${row.sourceId}`;
    await post(w, {
      tenantId: row.tenantId,
      livemode: row.livemode,
      sourceType,
      sourceId: row.id,
      description,
      lines: [
        { account: from, ownerId: row.merchantId, currency: row.currency, amountMinor: -amount },
        { account: 'merchant_available', ownerId: row.merchantId, currency: row.currency, amountMinor: amount },
      ],
    });
    await recordAudit(w, {
      action: row.kind === 'reserve' ? 'balance.reserve_released' : 'balance.released',
      targetType: 'balance_release',
      targetId: row.id,
      tenantId: row.tenantId,
      merchantId: row.merchantId,
      livemode: row.livemode,
      before: { releasedAt: null },
      after: { releasedAt: now.toISOString(), amount: { currency: row.currency, valueMinor: amount }, kind: row.kind },
    });
    if (amount > 0) {
      const [balance] = await balancesOf(elevate(w, 'tenant', 'the released merchant balance', { tenantId: row.tenantId }), {
        merchantId: row.merchantId,
        currency: row.currency,
      });
      await emitEvent(w, {
        type: 'balance.available',
        tenantId: row.tenantId,
        merchantId: row.merchantId,
        livemode: row.livemode,
        data: {
          object: 'balance',
          entityType: 'merchant',
          entityId: row.merchantId,
          merchantId: row.merchantId,
          currency: row.currency,
          amount: { currency: row.currency, valueMinor: amount },
          kind: row.kind,
          available: balance?.available ?? { currency: row.currency, valueMinor: 0 },
          pending: balance?.pending ?? { currency: row.currency, valueMinor: 0 },
          sourceType: row.sourceType,
          sourceId: row.sourceId,
        },
      });
    }
    return true;
  });
}
