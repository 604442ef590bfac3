import os from 'node:os';
import { bindFor, columnsOf, decodeRows } from '../../db/rows';
import type { Runtime } from '../../runtime';
import type { ProviderNotificationRow } from '../../db/models';
import { newId } from '../../util/ids';
import { applyNotification, NOTIFICATION_LEASE_MS, type NotificationApplied } from './inbox';

/**
 * The acquirer's notification items not applied yet (a reordered notification: a dispute decided before it was
 * opened, a refund's outcome before its refund is known), tried again when due. Several processes may run it: a claim
 * (a lease in lockedBy/lockedUntil, taken in one statement with SKIP LOCKED on Postgres; SQLite serializes writers)
 * gives each due item to one of them, and an item is marked applied in the transaction that applies it.
 */

export interface NotificationRunOptions {
  workerId?: string;
  /** items claimed per round */
  batchSize?: number;
  /** how long a claim holds (ms of the runtime clock) */
  leaseMs?: number;
}

export type NotificationRun = Record<NotificationApplied, number>;

const DEFAULT_BATCH = 50;

/** Claims the due items and tries each once: what became of them. */
export async function runDueNotifications(rt: Runtime, options: NotificationRunOptions = {}): Promise<NotificationRun> {
  const workerId = options.workerId ?? `${os.hostname()}:${process.pid}:${newId().slice(-12)}`;
  const run: NotificationRun = { applied: 0, ignored: 0, deferred: 0, failed: 0 };
  const claimed = await claimDue(rt, workerId, options.batchSize ?? DEFAULT_BATCH, options.leaseMs ?? NOTIFICATION_LEASE_MS);
  for (const row of claimed) {
    try {
      run[await applyNotification(rt, row, workerId)]++;
    } catch (error) {
      // its lease runs out and it is claimed again
      rt.logger.error({ err: error, notificationId: row.id }, 'acquirer notification could not be tried');
      run.deferred++;
    }
  }
  return run;
}

async function claimDue(rt: Runtime, workerId: string, limit: number, leaseMs: number): Promise<ProviderNotificationRow[]> {
  const { db, clock } = rt;
  const now = clock.now();
  const model = db.models.ProviderNotification as never;
  const at = (date: Date) => bindFor(db, model, 'nextAttemptAt', date);
  const lock = db.dialect === 'postgres' ? 'FOR UPDATE SKIP LOCKED' : '';
  const sql = `UPDATE provider_notifications SET "lockedUntil" = ?, "lockedBy" = ?
    WHERE id IN (SELECT id FROM provider_notifications
      WHERE status = 'received' AND "nextAttemptAt" <= ? AND ("lockedUntil" IS NULL OR "lockedUntil" <= ?)
      ORDER BY "nextAttemptAt" LIMIT ${Math.trunc(limit)} ${lock})
    RETURNING ${columnsOf(db, model)}`;
  const rows = await db.writeAlone((alone) =>
    db.sql.all<Record<string, unknown>>(sql, [at(new Date(now.getTime() + leaseMs)), workerId, at(now), at(now)], alone),
  );
  return decodeRows<ProviderNotificationRow>(db, model, rows).sort((a, b) => +new Date(a.nextAttemptAt!) - +new Date(b.nextAttemptAt!));
}
