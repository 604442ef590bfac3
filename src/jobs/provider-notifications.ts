import type { BackgroundJob } from './types';
import { scheduledJob } from './periodic';
import { runDueNotifications } from '../services/notifications/redelivery';

/**
 * provider-notifications: every minute (PAYPLANE_PROVIDER_NOTIFICATIONS_MS), the acquirers' notification items not
 * applied yet (reordered: a dispute decided before it was opened, an outcome before its reference is known) are tried
 * again once due (backoff 1 s … 10 min), given up after a day. Safe with several processes (a claim per item).
 */
export const providerNotificationsJob: BackgroundJob = scheduledJob('provider-notifications', async (rt) => {
  const run = await runDueNotifications(rt);
  if (run.applied + run.failed > 0) rt.logger.info(run, 'acquirer notifications tried again');
  return run;
});
