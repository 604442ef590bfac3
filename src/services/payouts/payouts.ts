import { inTransaction, type CallerContext, type Level } from '../../domain/context';
import { ConflictError } from '../../domain/errors';
import type { PayoutRow, PayoutStatus } from '../../db/models/payouts';
import { scoped, type ListParams, type Page } from '../../db/scoped';
import type { Money } from '../../domain/money';
import type { FeeBreakdown } from '../fees/engine';
import { auditedRecord, lockedRecord } from '../audit/changes';
import { statusMachine, transition, type TransitionOptions } from '../status';
import type { EmitInput } from '../webhooks/events';
import { postPayout, type PayoutPosting } from '../ledger/postings/payout';
import { iso, mapPage } from '../present';
import { viewOf } from '../../api/views';

/**
 * Payouts: what a merchant's payout schedule sends out of its available balance, one per schedule period
 * and currency (src/services/payouts/run.ts makes them). States: pending (recorded: amount + fee held, available →
 * payable) → in_transit (the payout provider took it) → paid (payable paid out, the fee to its earners); pending →
 * failed (the provider refused it: back to available); pending → canceled (an operator, before it was sent: back to
 * available). Every move is a compare-and-set on the status in the row's lock, audited, with its event and its
 * ledger posting in the same transaction.
 */

/** The full record (platform view); callers get it through `payoutFor`, which hides what their level may not see. */
export function toPayout(row: PayoutRow) {
  const money = (valueMinor: number): Money => ({ currency: row.currency, valueMinor });
  return {
    id: row.id,
    tenantId: row.tenantId,
    merchantId: row.merchantId,
    livemode: row.livemode,
    currency: row.currency,
    amount: money(row.amountMinor),
    fee: money(row.feeMinor),
    feeBreakdown: row.feeBreakdown,
    status: row.status,
    withdrawalMethodId: row.withdrawalMethodId,
    payoutChannelId: row.payoutChannelId,
    destination: { type: row.destinationType, details: row.destinationMasked },
    period: row.periodKey,
    arrivalDate: iso(row.arrivalDate),
    failureReason: row.failureReason,
    providerReference: row.providerReference,
    createdAt: iso(row.createdAt)!,
    updatedAt: iso(row.updatedAt)!,
    paidAt: iso(row.paidAt),
    failedAt: iso(row.failedAt),
    canceledAt: iso(row.canceledAt),
    canceledBy: row.canceledBy,
  };
}

export type Payout = ReturnType<typeof toPayout>;

/** The record as a caller of `level` sees it, by PayoutSchema's marks (no fee split or channel for merchants). */
export function payoutFor(level: Level, row: PayoutRow): Payout {
  return viewOf('payout', toPayout(row), level);
}

export const PAYOUT = auditedRecord<PayoutRow>({
  model: (ctx) => ctx.db.models.Payout,
  targetType: 'payout',
  owner: (row) => ({ tenantId: row.tenantId, merchantId: row.merchantId, livemode: row.livemode }),
  render: toPayout,
});

/** The payout.* event announcing the record as it is now. */
export function payoutEvent(type: string, row: PayoutRow): EmitInput {
  return { type, data: { object: 'payout', ...toPayout(row) }, tenantId: row.tenantId, merchantId: row.merchantId, livemode: row.livemode };
}

/** The ledger posting of a payout (its amount, fee and the channel it leaves through). */
export function payoutPosting(row: PayoutRow): PayoutPosting {
  const breakdown = row.feeMinor > 0 ? (row.feeBreakdown as unknown as FeeBreakdown & { partnerId?: string | null }) : null;
  return {
    tenantId: row.tenantId,
    livemode: row.livemode,
    merchantId: row.merchantId,
    payoutId: row.id,
    amount: { currency: row.currency, valueMinor: row.amountMinor },
    fee: breakdown,
    channelId: row.payoutChannelId,
    partnerId: breakdown?.partnerId ?? null,
  };
}

type PayoutMove = 'send' | 'pay' | 'fail' | 'cancel';

const PAYOUT_MACHINE = statusMachine<PayoutRow, PayoutMove, PayoutStatus>({
  record: PAYOUT,
  moves: {
    send: { from: ['pending'], to: 'in_transit', action: 'payout.in_transit' },
    pay: { from: ['in_transit'], to: 'paid', action: 'payout.paid', event: 'payout.succeeded' },
    fail: { from: ['pending', 'in_transit'], to: 'failed', action: 'payout.failed', event: 'payout.failed' },
    cancel: { from: ['pending'], to: 'canceled', action: 'payout.canceled' },
  },
  event: payoutEvent,
  refused: (row, move, spec) =>
    new ConflictError('INVALID_STATE_TRANSITION', `Payout ${row.id} is ${row.status}: ${move} needs a ${spec.from.join(' or ')} payout.`),
});

/**
 * One move of a payout locked in the caller's transaction, with its ledger posting: fail and cancel reverse the hold
 * (payout_reversal), pay pays it out (payout_paid, with the channel's provider integration earning the provider fee).
 */
export async function movePayout(
  tx: CallerContext,
  row: PayoutRow,
  move: PayoutMove,
  options: TransitionOptions<PayoutRow> = {},
): Promise<PayoutRow> {
  const moved = await transition(tx, PAYOUT_MACHINE, row, move, options);
  if (move === 'fail' || move === 'cancel') await postPayout(tx, 'payout_reversal', payoutPosting(moved));
  if (move === 'pay') {
    const channel = await scoped(tx, tx.db.models.Channel).find(moved.payoutChannelId);
    await postPayout(tx, 'payout_paid', { ...payoutPosting(moved), providerIntegrationId: channel?.providerIntegrationId ?? null });
  }
  return moved;
}

export interface PayoutFilters {
  status?: PayoutStatus;
  merchantId?: string;
  currency?: string;
}

export async function listPayouts(ctx: CallerContext, filters: PayoutFilters, page: ListParams): Promise<Page<Payout>> {
  const where: Record<string, unknown> = {};
  if (filters.status) where.status = filters.status;
  if (filters.merchantId) where.merchantId = filters.merchantId;
  if (filters.currency) where.currency = filters.currency;
  return mapPage(await scoped(ctx, ctx.db.models.Payout).list(where, page), (row) => payoutFor(ctx.level, row));
}

export async function getPayout(ctx: CallerContext, id: string): Promise<Payout> {
  return payoutFor(ctx.level, await scoped(ctx, ctx.db.models.Payout).get(id));
}

/**
 * Cancels a pending payout that is not being sent: canceled, amount + fee back to available (payout_reversal),
 * audited. 409 INVALID_STATE_TRANSITION from any other status, and PAYOUT_BEING_SENT while the provider has it.
 */
export async function cancelPayout(ctx: CallerContext, id: string): Promise<Payout> {
  const row = await inTransaction(ctx, async (tx) => {
    const current = await lockedRecord(tx, PAYOUT, id);
    return movePayout(tx, current, 'cancel', {
      check: (r) => {
        if (r.submittedAt) {
          throw new ConflictError(
            'PAYOUT_BEING_SENT',
            `Payout ${r.id} was handed to the payout provider at ${iso(r.submittedAt)}: it can no longer be canceled.`,
          );
        }
      },
      changes: (_r, c) => ({ canceledAt: c.clock.now(), canceledBy: c.actor.id }),
    });
  });
  return payoutFor(ctx.level, row);
}
