import cron from 'node-cron';
import type { BackgroundJob } from './types';
import { recoverStalledCalls } from '../services/payments/recovery';

/** Every minute (node-cron), inside `serve`: provider calls of attempts and refunds that never happened are made. */
export const paymentRecoveryJob: BackgroundJob = {
  name: 'payment-recovery',
  start: (rt) => {
    let running: Promise<unknown> = Promise.resolve();
    const task = cron.schedule(
      '* * * * *',
      () => {
        running = recoverStalledCalls(rt)
          .then((n) => {
            if (n > 0) rt.logger.warn({ recovered: n }, 'stalled provider calls sent again');
          })
          .catch((error) => rt.logger.error({ err: error }, 'payment recovery round failed'));
        return running;
      },
      { name: 'payment-recovery', noOverlap: true },
    );
    return {
      stop: async () => {
        await task.stop();
        await task.destroy();
        await running;
      },
    };
  },
};
