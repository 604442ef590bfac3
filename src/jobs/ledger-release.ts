import type { BackgroundJob } from './types';
import { releaseDue } from '../services/ledger/releases';
import { scheduledJob } from './periodic';

/**
 * ledger-release: every minute (PAYPLANE_LEDGER_RELEASE_MS), moves pending funds past their holding period and
 * reserves past holdDays to the merchants' available balances (emitting balance.available). Safe with several
 * processes: each release is claimed by a compare-and-set in its posting's transaction.
 */
export const ledgerReleaseJob: BackgroundJob = scheduledJob('ledger-release', async (rt) => {
  const moved = await releaseDue(rt);
  if (moved > 0) rt.logger.info({ moved }, 'ledger releases moved to available');
  return { released: moved };
});
