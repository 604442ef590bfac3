import type { BackgroundJob } from './types';
import type { Runtime } from '../runtime';
import { releaseDue } from '../services/ledger';

/** How often due releases are moved (PAYPLANE_LEDGER_RELEASE_MS, default one minute). */
function intervalMs(): number {
  const value = Number(process.env.PAYPLANE_LEDGER_RELEASE_MS ?? 60_000);
  return Number.isFinite(value) && value >= 100 ? value : 60_000;
}

/**
 * ledger-release: every minute, moves pending funds past their holding period and reserves past holdDays to the
 * merchants' available balances (emitting balance.available). Safe with several processes: each release is
 * claimed by a compare-and-set in its posting's transaction.
 */
export const ledgerReleaseJob: BackgroundJob = {
  name: 'ledger-release',
  start: (rt: Runtime) => {
    let running: Promise<void> | null = null;
    let stopped = false;
    const tick = () => {
      if (running || stopped) return;
      running = releaseDue(rt)
        .then((moved) => {
          if (moved > 0) rt.logger.info({ moved }, 'ledger releases moved to available');
        })
        .catch((error) => rt.logger.error({ err: error }, 'ledger release run failed'))
        .finally(() => {
          running = null;
        });
    };
    const timer = setInterval(tick, intervalMs());
    timer.unref();
    tick();
    return {
      stop: async () => {
        stopped = true;
        clearInterval(timer);
        if (running) await running;
      },
    };
  },
};
