import type { Runtime } from '../../runtime';
import { pollUntil } from '../../util/poll';
import { runDueSandboxOperations } from '../../jobs/sandbox-acquirer';

/**
 * Outside `serve` nobody else answers for the in-process sandbox acquirer: runs its due answers until `done` says the
 * awaited state is reached, or the time is up (a running `serve` may deliver them too: claims keep each answer to one
 * worker). Returns whether `done` was reached.
 */
export async function runSandboxUntil(rt: Runtime, done: () => Promise<boolean>, timeoutMs = 10_000): Promise<boolean> {
  const { reached } = await pollUntil(done, (reached) => reached, { timeoutMs, intervalMs: 50, work: () => runDueSandboxOperations(rt) });
  return reached;
}
