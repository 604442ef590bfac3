import type { BackgroundJob } from './types';
import { scheduledJob } from './periodic';
import { activateDueMethods } from '../services/withdrawal-methods/methods';

/**
 * withdrawal-method-cooling: every minute (PAYPLANE_WITHDRAWAL_COOLING_MS), moves merchants' withdrawal methods whose cooling period has ended
 * (activatesAt passed) from cooling to active, each audited. Safe with several processes: each method moves by a
 * compare-and-set. A withdrawal that finds such a method before this runs activates it itself.
 */
export const withdrawalMethodCoolingJob: BackgroundJob = scheduledJob('withdrawal-method-cooling', async (rt) => {
  const activated = await activateDueMethods(rt);
  if (activated > 0) rt.logger.info({ activated }, 'withdrawal methods activated after cooling');
  return { activated };
});
