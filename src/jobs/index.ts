import type { Runtime } from '../runtime';
import type { BackgroundJob } from './types';
import { checkoutExpiryJob } from './checkout-expiry';
import { ledgerReleaseJob } from './ledger-release';
import { sandboxAcquirerJob } from './sandbox-acquirer';
import { paymentRecoveryJob } from './payment-recovery';
import { withdrawalMethodCoolingJob } from './withdrawal-method-cooling';
import { disputeDeadlinesJob } from './dispute-deadlines';
import { settlementsJob } from './settlements';

export type { BackgroundJob } from './types';

/** Every background job `serve` runs besides the webhook dispatcher. */
export const backgroundJobs: BackgroundJob[] = [
  checkoutExpiryJob, ledgerReleaseJob, sandboxAcquirerJob, paymentRecoveryJob, withdrawalMethodCoolingJob, disputeDeadlinesJob, settlementsJob,
];

/** Starts every job; stop() stops them all. */
export function startJobs(rt: Runtime, jobs: BackgroundJob[] = backgroundJobs): { stop(): Promise<void> } {
  const running = jobs.map((job) => job.start(rt));
  return { stop: async () => void (await Promise.all(running.map((r) => r.stop()))) };
}
