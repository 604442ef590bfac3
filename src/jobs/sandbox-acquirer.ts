import { runDueSandboxOperations, startSandboxWorker } from '../services/sandbox/acquirer';
import type { BackgroundJob } from './types';

/** The sandbox acquirer's answers, delivered as they fall due (a worker woken by new operations) inside `serve`. */
export const sandboxAcquirerJob: BackgroundJob = {
  name: 'sandbox-acquirer',
  start: (rt) => startSandboxWorker(rt),
  runNow: async (rt) => ({ delivered: await runDueSandboxOperations(rt) }),
};
