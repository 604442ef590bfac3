import type { Runtime } from '../runtime';
import type { BackgroundJob } from './types';
import { checkoutExpiryJob } from './checkout-expiry';
import { ledgerReleaseJob } from './ledger-release';
import { sandboxAcquirerJob } from './sandbox-acquirer';
import { paymentRecoveryJob } from './payment-recovery';
import { withdrawalMethodCoolingJob } from './withdrawal-method-cooling';
import { disputeDeadlinesJob } from './dispute-deadlines';
import { settlementsJob } from './settlements';
import { payoutsJob } from './payouts';
import { providerNotificationsJob } from './provider-notifications';

export type { BackgroundJob } from './types';

/** Every background job `serve` runs besides the webhook dispatcher. */
export const backgroundJobs: BackgroundJob[] = [
  checkoutExpiryJob,
  ledgerReleaseJob,
  sandboxAcquirerJob,
  paymentRecoveryJob,
  withdrawalMethodCoolingJob,
  disputeDeadlinesJob,
  settlementsJob,
  payoutsJob,
  providerNotificationsJob,
];

/** The job of that name (`payplane jobs run <name>`), or undefined. */
export function jobNamed(name: string, jobs: BackgroundJob[] = backgroundJobs): BackgroundJob | undefined {
  return jobs.find((job) => job.name === name);
}

/** Starts every job; stop() stops them all. */
export function startJobs(rt: Runtime, jobs: BackgroundJob[] = backgroundJobs): { stop(): Promise<void> } {
  const running = jobs.map((job) => job.start(rt));
  return { stop: async () => void (await Promise.all(running.map((r) => r.stop()))) };
}
