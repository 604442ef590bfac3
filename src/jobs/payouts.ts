import type { BackgroundJob } from './types';
import { scheduledJob } from './periodic';
import { runPayouts } from '../services/payouts/run';

/**
 * payouts: every minute (PAYPLANE_PAYOUTS_MS), pays out the available balances of merchants whose daily or weekly
 * payout schedule has a period due, sends pending payouts to the payout provider and marks arrived ones paid
 * (src/services/payouts/run.ts). Safe with several processes: a payout is made once per period and currency (a
 * unique key), each send is claimed, each move is a compare-and-set.
 */
export const payoutsJob: BackgroundJob = scheduledJob('payouts', async (rt) => {
  const result = await runPayouts(rt);
  if (result.created.length + result.paid.length + result.failed.length > 0) {
    rt.logger.info({ created: result.created.length, paid: result.paid.length, failed: result.failed.length }, 'scheduled payouts');
  }
  return result;
});
