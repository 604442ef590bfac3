import { Op } from 'sequelize';
import type { Runtime } from '../runtime';
import { systemContext } from '../domain/authority';
import { withTransaction } from '../domain/context';
import type { CheckoutSessionRow } from '../db/models';
import { expireRow, PAYMENT_IN_FLIGHT } from '../services/checkout/sessions';
import type { BackgroundJob } from './types';
import { scheduledJob } from './periodic';

/**
 * Expires open checkout sessions past their expiresAt (none with a payment in flight: they expire on a later run
 * once the payment failed). Each session moves with a compare-and-set in its own transaction, which also writes
 * the audit entry and checkout.session.expired: several processes may run this, each session expires once.
 */

const BATCH = 200;

/** Expires every due open session; returns how many this call expired. */
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
      await rt.db.models.CheckoutSession.findAll({ where, order: [['expiresAt', 'ASC'], ['id', 'ASC']], limit: BATCH })
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

/** Every minute inside `serve` (PAYPLANE_CHECKOUT_EXPIRY_MS). */
export const checkoutExpiryJob: BackgroundJob = scheduledJob('checkout-expiry', async (rt) => {
  const expired = await expireDueSessions(rt, rt.clock.now());
  if (expired > 0) rt.logger.info({ expired }, 'checkout sessions expired');
  return { expired };
});
