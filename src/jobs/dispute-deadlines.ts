import type { BackgroundJob } from './types';
import { scheduledJob } from './periodic';
import { expireDueDisputes, resendStalledAcceptances, resendStalledSubmissions } from '../services/disputes/disputes';

/**
 * dispute-deadlines: every minute (PAYPLANE_DISPUTE_DEADLINES_MS), by the injected clock, a needs_response dispute
 * past its evidenceDueBy becomes lost (dispute.lost), once. Safe with several processes: one run per tick across them
 * (job_runs), and each dispute moves by a compare-and-set on its status. It also sends again the evidence of
 * submissions the acquirer never took (resendStalledSubmissions), and the acceptances it never answered
 * (resendStalledAcceptances).
 */
export const disputeDeadlinesJob: BackgroundJob = scheduledJob('dispute-deadlines', async (rt) => {
  const lost = await expireDueDisputes(rt);
  if (lost > 0) rt.logger.info({ lost }, 'disputes lost at their evidence deadline');
  // submissions whose sending to the acquirer died with its process
  const resent = await resendStalledSubmissions(rt);
  if (resent > 0) rt.logger.info({ resent }, 'dispute evidence sent again to the acquirer');
  // acceptances whose sending died with its process, or found the acquirer unreachable
  const acceptancesResent = await resendStalledAcceptances(rt);
  if (acceptancesResent > 0) rt.logger.info({ acceptancesResent }, 'dispute acceptances sent again to the acquirer');
  return { lost, resent, acceptancesResent };
});
