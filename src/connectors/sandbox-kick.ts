/**
 * In-process wake-up of the sandbox acquirer's worker: when the connector records an operation due in `delayMs`,
 * the job of this process (src/jobs/sandbox-acquirer.ts) runs at that moment instead of waiting for its next poll.
 * No imports on purpose: the connector and the job both use it without depending on each other.
 */
const listeners = new Set<() => void>();

/** The job subscribes while it runs; the returned function unsubscribes. */
export function onSandboxOperationDue(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Wakes the running workers of this process after `delayMs` (nothing when no worker runs here). */
export function sandboxOperationDue(delayMs: number): void {
  if (listeners.size === 0) return;
  const wake = () => {
    for (const listener of [...listeners]) listener();
  };
  // a few ms of slack so the operation is due by the worker's clock when it looks
  const timer = setTimeout(wake, Math.max(0, delayMs) + 5);
  timer.unref?.();
}
