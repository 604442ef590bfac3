import { claimDue, workerName } from '../../db/claims';
import type { Runtime } from '../../runtime';
import type { ProviderNotificationRow } from '../../db/models';
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
  const workerId = options.workerId ?? workerName();
  const run: NotificationRun = { applied: 0, ignored: 0, deferred: 0, failed: 0 };
  const claimed = await claimDueItems(rt, workerId, options.batchSize ?? DEFAULT_BATCH, options.leaseMs ?? NOTIFICATION_LEASE_MS);
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

function claimDueItems(rt: Runtime, workerId: string, limit: number, leaseMs: number): Promise<ProviderNotificationRow[]> {
  return claimDue<ProviderNotificationRow>(rt.db, rt.clock.now(), {
    table: 'provider_notifications',
    model: rt.db.models.ProviderNotification as never,
    dueColumn: 'nextAttemptAt',
    open: "status = 'received'",
    limit,
    leaseMs,
    workerId,
  });
}
