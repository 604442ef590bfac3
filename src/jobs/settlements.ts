import type { BackgroundJob } from './types';
import { finalizeDue } from '../services/settlements/statements';
import { scheduledJob } from './periodic';

/**
 * settlements: every minute (PAYPLANE_SETTLEMENTS_MS), finalizes the settlement statements of past UTC days (read from
 * the injected clock): totals, balances and line count stored, settlement.finalized raised. Safe with several
 * processes: each statement is claimed by a compare-and-set on its status in the transaction that stores it.
 */
export const settlementsJob: BackgroundJob = scheduledJob('settlements', async (rt) => {
  const finalized = await finalizeDue(rt);
  if (finalized > 0) rt.logger.info({ finalized }, 'settlement statements finalized');
  return { finalized };
});
