import type { BackgroundJob } from './types';
import { cronJob } from './periodic';
import { recoverStalledCalls } from '../services/payments/recovery';

/** Every minute (node-cron), inside `serve`: provider calls of attempts and refunds that never happened are made. */
export const paymentRecoveryJob: BackgroundJob = cronJob('payment-recovery', '* * * * *', async (rt) => {
  const recovered = await recoverStalledCalls(rt);
  if (recovered > 0) rt.logger.warn({ recovered }, 'stalled provider calls sent again');
  return { recovered };
});
