import type { Runtime } from '../../runtime';
import type { CallerContext } from '../../domain/context';
import type { Refund } from '../payments/records';
import { getRefund } from '../payments/refunds';
import { getProvider } from '../processing/providers';
import { pollUntil } from '../../util/poll';
import { runDueSandboxOperations } from './acquirer';

/**
 * Outside `serve` nobody else answers for the in-process sandbox acquirer: runs its due answers until `done` says the
 * awaited state is reached, or the time is up (a running `serve` may deliver them too: claims keep each answer to one
 * worker). Returns whether `done` was reached.
 */
export async function runSandboxUntil(rt: Runtime, done: () => Promise<boolean>, timeoutMs = 10_000): Promise<boolean> {
  const { reached } = await pollUntil(done, (reached) => reached, { timeoutMs, intervalMs: 50, work: () => runDueSandboxOperations(rt) });
  return reached;
}

/** Whether a payment's provider is one of the in-process sandbox connectors (whose answers a process may run itself). */
export async function isSandboxProvider(ctx: CallerContext, providerIntegrationId: string | null | undefined): Promise<boolean> {
  if (!providerIntegrationId) return false;
  const provider = await getProvider(ctx, providerIntegrationId);
  return provider.code.startsWith('sandbox-');
}

/**
 * A pending refund of a payment through a sandbox connector, followed while the in-process acquirer's answers run until
 * it leaves pending or `timeoutMs` is up; read again then. Any other refund is returned as it is.
 */
export async function awaitSandboxRefund(
  rt: Runtime,
  ctx: CallerContext,
  refund: Refund,
  providerIntegrationId: string | null | undefined,
  timeoutMs: number,
): Promise<Refund> {
  if (refund.status !== 'pending' || !(await isSandboxProvider(ctx, providerIntegrationId))) return refund;
  await runSandboxUntil(rt, async () => (await getRefund(ctx, refund.id)).status !== 'pending', timeoutMs);
  return getRefund(ctx, refund.id);
}
