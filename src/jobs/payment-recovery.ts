import type { BackgroundJob } from './types';
import { scheduledJob } from './periodic';
import { recoverStalledCalls } from '../services/payments/recovery';

/**
 * Every minute inside `serve` (PAYPLANE_PAYMENT_RECOVERY_MS): attempts and refunds whose answer was lost are looked up
 * at their acquirer (never sent again), late approvals voided, captures and cancels finished.
 */
export const paymentRecoveryJob: BackgroundJob = scheduledJob('payment-recovery', async (rt) => {
  const recovered = await recoverStalledCalls(rt);
  if (recovered > 0) rt.logger.warn({ recovered }, 'stalled provider calls settled');
  return { recovered };
});
