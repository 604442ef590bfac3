import type { BackgroundJob } from './types';
import { intervalFromEnv, periodicJob } from './periodic';
import { activateDueMethods } from '../services/withdrawal-methods/methods';

/**
 * withdrawal-method-cooling: every minute, moves merchants' withdrawal methods whose cooling period has ended
 * (activatesAt passed) from cooling to active, each audited. Safe with several processes: each method moves by a
 * compare-and-set. A withdrawal that finds such a method before this runs activates it itself.
 */
export const withdrawalMethodCoolingJob: BackgroundJob = periodicJob('withdrawal-method-cooling', intervalFromEnv('PAYPLANE_WITHDRAWAL_COOLING_MS', 60_000), async (rt) => {
  const activated = await activateDueMethods(rt);
  if (activated > 0) rt.logger.info({ activated }, 'withdrawal methods activated after cooling');
  return { activated };
});
