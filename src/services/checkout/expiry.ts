import { Op } from 'sequelize';
import type { Runtime } from '../../runtime';
import { systemContext } from '../../domain/authority';
import { inTransaction, withTransaction, type CallerContext } from '../../domain/context';
import type { CheckoutSessionRow } from '../../db/models';
import { isRaced, loadRow, moveSession, PAYMENT_IN_FLIGHT, toSession, type CheckoutSession } from './record';

// Expiring sessions: by the merchant (expireSession) or once their time ran out (expireDueSessions, the expiry job's
// work). Both are the machine's expire move.

/** Expires an open session now: 409 when complete or already expired, or while a payment is in flight. */
export async function expireSession(ctx: CallerContext, id: string): Promise<CheckoutSession> {
  return inTransaction(ctx, async (tx) => {
    const row = await loadRow(tx, id, true);
    return toSession(await moveSession(tx, row, 'expire'));
  });
}

/**
 * Moves one open session read without a lock to expired with a compare-and-set (open, no payment in flight), audited
 * and announced (checkout.session.expired) in the caller's transaction. Null when another process (or a payment) got
 * there first.
 */
export async function expireRow(tx: CallerContext, row: CheckoutSessionRow): Promise<CheckoutSessionRow | null> {
  try {
    return await moveSession(tx, row, 'expire');
  } catch (error) {
    if (isRaced(error)) return null;
    throw error;
  }
}

const BATCH = 200;

/**
 * Expires every open session past its expiresAt (none with a payment in flight: they expire on a later run once the
 * payment failed); returns how many this call expired. Each session moves in its own transaction: several processes
 * may run this, each session expires once.
 */
export async function expireDueSessions(rt: Runtime, now: Date): Promise<number> {
  let expired = 0;
  let after: { expiresAt: Date; id: string } | null = null;
  for (;;) {
    const where: Record<string | symbol, unknown> = {
      status: 'open',
      deletedAt: null,
      expiresAt: { [Op.lte]: now },
      [Op.and]: [
        { [Op.or]: [{ paymentStatus: null }, { paymentStatus: { [Op.notIn]: [...PAYMENT_IN_FLIGHT] } }] },
        ...(after
          ? [{ [Op.or]: [{ expiresAt: { [Op.gt]: after.expiresAt } }, { expiresAt: after.expiresAt, id: { [Op.gt]: after.id } }] }]
          : []),
      ],
    };
    const rows = (
      await rt.db.models.CheckoutSession.findAll({
        where,
        order: [
          ['expiresAt', 'ASC'],
          ['id', 'ASC'],
        ],
        limit: BATCH,
      })
    ).map((r) => r.get({ plain: true }) as CheckoutSessionRow);
    for (const row of rows) {
      const done = await rt.db.transaction((transaction) => expireRow(withTransaction(systemContext(rt, row.livemode), transaction), row));
      if (done) expired++;
    }
    if (rows.length < BATCH) return expired;
    const last = rows[rows.length - 1];
    after = { expiresAt: last.expiresAt, id: last.id };
  }
}
