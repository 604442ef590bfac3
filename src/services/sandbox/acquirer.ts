import type { Transaction } from 'sequelize';
import { updateRows } from '../../db/rows';
import { claimDue, workerName } from '../../db/claims';
import type { Runtime } from '../../runtime';
import type { SandboxOperationRow } from '../../db/models/sandbox';
import type { ProviderOutcome } from '../../connectors/types';
import { onSandboxOperationDue } from '../../connectors/sandbox-kick';
import { handleProviderOutcome } from '../payments/outcomes';
import { handleDisputeNotification } from '../disputes/notifications';
import { scheduleSandboxDispute } from '../../connectors/sandbox-card';

/**
 * The sandbox acquirer's callback side: delivers its due operations (authorization and refund answers) to the
 * payment path. Several processes may run it: a claim (a lease in lockedBy/lockedUntil, taken in one statement,
 * with SKIP LOCKED on Postgres) gives each due operation to one worker; an operation is marked done in the
 * transaction that applies its outcome, so a crash or an error before that commit delivers it again later (the
 * handler is idempotent).
 */

export interface SandboxWorkerOptions {
  workerId?: string;
  /** operations claimed per round */
  batchSize?: number;
  /** how long a claim holds (ms of the runtime clock) */
  leaseMs?: number;
}

const DEFAULT_BATCH = 50;
const DEFAULT_LEASE_MS = 60_000;
/** delay before the next delivery of an operation whose handler failed: 1 s, 2 s, 4 s … at most 1 min */
export function retryDelayMs(attempts: number): number {
  return Math.min(60_000, 1000 * 2 ** Math.max(0, attempts - 1));
}

/** Claims the due operations, delivers each, and returns how many were delivered successfully. */
export async function runDueSandboxOperations(rt: Runtime, options: SandboxWorkerOptions = {}): Promise<number> {
  const workerId = options.workerId ?? workerName();
  const claimed = await claim(rt, workerId, options.batchSize ?? DEFAULT_BATCH, options.leaseMs ?? DEFAULT_LEASE_MS);
  let delivered = 0;
  for (const op of claimed) {
    if (await deliver(rt, workerId, op)) delivered++;
  }
  return delivered;
}

function claim(rt: Runtime, workerId: string, limit: number, leaseMs: number): Promise<SandboxOperationRow[]> {
  return claimDue<SandboxOperationRow>(rt.db, rt.clock.now(), {
    table: 'sandbox_acquirer_operations',
    model: rt.db.models.SandboxOperation as never,
    dueColumn: 'dueAt',
    open: '"doneAt" IS NULL',
    limit,
    leaseMs,
    workerId,
  });
}

function outcomeOf(op: SandboxOperationRow): ProviderOutcome {
  return {
    providerIntegrationId: op.providerIntegrationId,
    operation: op.kind as 'authorize' | 'refund',
    reference: op.reference,
    providerReference: op.providerReference,
    tenantId: op.tenantId,
    livemode: op.livemode,
    result: op.outcome!,
  };
}

async function deliver(rt: Runtime, workerId: string, op: SandboxOperationRow): Promise<boolean> {
  const { db } = rt;
  const model = db.models.SandboxOperation as never;
  const attempts = op.attempts + 1;
  // only while this worker still holds the claim: one that lost it leaves the record to the worker that took it over
  const mine = { id: op.id, lockedBy: workerId, doneAt: null };
  const done = (): Partial<SandboxOperationRow> => {
    const now = rt.clock.now();
    return { attempts, lastError: null, status: 'done', doneAt: now, lockedBy: null, lockedUntil: null, updatedAt: now };
  };
  // marked done in the transaction that applies the outcome (one transaction, not two; and no outcome applied whose
  // operation stays due)
  let marked: number | undefined;
  let failure: unknown;
  try {
    const settle = async (transaction: Transaction) => {
      marked = await updateRows(db, model, done(), mine, transaction);
    };
    if (op.kind === 'dispute' || op.kind === 'dispute_decision' || op.kind === 'dispute_deadline') {
      // the acquirer's dispute notifications: a dispute opened on a captured payment, or decided after the evidence
      if (!op.notification) throw new Error('the operation has no notification');
      await handleDisputeNotification(
        rt,
        { providerIntegrationId: op.providerIntegrationId, tenantId: op.tenantId, livemode: op.livemode, notice: op.notification },
        settle,
      );
    } else {
      if (!op.outcome) throw new Error('the operation has no outcome');
      await handleProviderOutcome(rt, outcomeOf(op), settle);
      // a dispute card's payment captured with its authorization is disputed next (after the acquirer's delay)
      if (op.kind === 'authorize' && op.captureRequested && op.outcome.status === 'succeeded') {
        await scheduleSandboxDispute({ db: rt.db, clock: rt.clock, config: rt.config }, op);
      }
    }
  } catch (error) {
    failure = error;
  }
  if (failure) {
    const now = rt.clock.now();
    // due again later, unless the outcome's transaction committed (what failed came after it): then it is done
    const retried = await db.writeAlone((alone) =>
      updateRows(
        db,
        model,
        {
          attempts,
          lastError: String((failure as Error)?.message ?? failure).slice(0, 1000),
          lockedBy: null,
          lockedUntil: null,
          dueAt: new Date(now.getTime() + retryDelayMs(attempts)),
          updatedAt: now,
        },
        mine,
        alone,
      ),
    );
    if (retried === 0 && marked !== undefined) {
      rt.logger.error(
        { err: failure, operationId: op.id, kind: op.kind, reference: op.reference },
        'sandbox acquirer outcome applied; what followed it failed',
      );
      return true;
    }
    rt.logger.warn(
      { err: failure, operationId: op.id, kind: op.kind, reference: op.reference, attempts },
      'sandbox acquirer outcome not applied; retrying later',
    );
    return false;
  }
  // nothing applied in a transaction (an unknown reference): marked done on its own
  marked ??= await db.writeAlone((alone) => updateRows(db, model, done(), mine, alone));
  if (marked !== 1) rt.logger.warn({ operationId: op.id }, 'sandbox acquirer operation claim lost before it was marked done');
  return true;
}

/**
 * Delivers one operation whose claim `workerId` took itself (lockedBy), out of the due order: `events trigger`'s
 * payment of a past day, answered by the process whose clock reads that day.
 */
export function deliverClaimed(rt: Runtime, workerId: string, op: SandboxOperationRow): Promise<boolean> {
  return deliver(rt, workerId, op);
}

/** Delivers due operations: polls every pollMs, and at once when the connector of this process records one. */
export function startSandboxWorker(rt: Runtime, options: SandboxWorkerOptions & { pollMs?: number } = {}): { stop(): Promise<void> } {
  const pollMs = options.pollMs ?? rt.config.sandboxPollMs;
  const workerId = options.workerId ?? workerName();
  let running = true;
  let wake: (() => void) | undefined;
  let kicked = false;
  const unsubscribe = onSandboxOperationDue(() => {
    kicked = true;
    wake?.();
  });
  const loop = (async () => {
    while (running) {
      kicked = false;
      let delivered = 0;
      try {
        delivered = await runDueSandboxOperations(rt, { ...options, workerId });
      } catch (error) {
        rt.logger.error({ err: error }, 'sandbox acquirer round failed');
      }
      if (delivered === 0 && !kicked && running) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, pollMs);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
      }
    }
  })();
  return {
    stop: async () => {
      running = false;
      unsubscribe();
      wake?.();
      await loop;
    },
  };
}
