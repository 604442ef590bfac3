import type { BackgroundJob } from './types';
import { scheduledJob } from './periodic';
import { recoverStalledCalls } from '../services/payments/recovery';

/** Every minute inside `serve` (PAYPLANE_PAYMENT_RECOVERY_MS): provider calls of attempts and refunds that never happened are made. */
export const paymentRecoveryJob: BackgroundJob = scheduledJob('payment-recovery', async (rt) => {
  const recovered = await recoverStalledCalls(rt);
  if (recovered > 0) rt.logger.warn({ recovered }, 'stalled provider calls sent again');
  return { recovered };
});
