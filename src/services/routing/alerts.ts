import type { CallerContext } from '../../domain/context';
import { InternalError } from '../../domain/errors';
import { bindFor } from '../../db/rows';
import { newId } from '../../util/ids';
import { emitEvent } from '../webhooks/events';
import type { PaymentAttemptRow, PaymentRow } from '../../db/models';
import type { RoutingDecision } from './decide';

/**
 * Routing alerts (operations.md, "Routing alerts"): routing.alert, a tenant-level event, when
 *  - a payment finds no eligible terminal (reason no_eligible_terminal), or
 *  - a terminal's declines in the last 15 minutes pass half of at least 20 of its answered attempts (terminal_declines),
 * at most once per cause per 15 minutes. The cause is kept per merchant for no_eligible_terminal (a tenant whose
 * terminals do not cover one merchant's currency hears of each merchant so affected, not of every payment) and per
 * terminal for terminal_declines (each failing terminal is its own problem). Both are decided in the transaction that
 * records the payment's outcome, and the claim of the cause (routing_alerts) is written in it with the event: both
 * commit, or neither.
 */

export const ROUTING_ALERT_WINDOW_MS = 15 * 60_000;
/** a terminal is judged on at least this many answered attempts in the window */
export const DECLINE_ALERT_MIN_ATTEMPTS = 20;

/** Attempt statuses that are an answer of the terminal's provider (an attempt still open is not counted). */
const ANSWERED = ['succeeded', 'declined', 'failed'] as const;

/**
 * A terminal's answered attempts and declines of a mode since a moment (binds: terminalId, livemode, since, then the
 * answered statuses): on the index payment_attempts_terminal_recent, which holds every column it reads.
 */
export const DECLINE_COUNT_SQL = `SELECT COUNT(*) AS attempts, SUM(CASE WHEN status = 'declined' THEN 1 ELSE 0 END) AS declines FROM payment_attempts
     WHERE "terminalId" = ? AND livemode = ? AND "createdAt" > ? AND status IN (${ANSWERED.map(() => '?').join(', ')})`;

/**
 * Claims the cause for the window: one atomic statement inserts the row, or moves its lastRaisedAt when the last alert
 * is older than the window, and returns it; otherwise it changes nothing and returns no row. Two transactions at once:
 * on Postgres the second waits for the first's row and then finds it recent; SQLite runs one writer at a time.
 */
export async function claimCause(tx: CallerContext, tenantId: string, livemode: boolean, cause: string): Promise<boolean> {
  if (!tx.transaction) throw new InternalError('a routing alert is claimed inside the transaction of its event');
  const { db } = tx;
  const model = db.models.RoutingAlert as never;
  const now = tx.clock.now();
  const at = (date: Date) => bindFor(db, model, 'lastRaisedAt', date);
  const rows = await db.sql.all<{ id: string }>(
    `INSERT INTO routing_alerts (id, "tenantId", livemode, cause, "lastRaisedAt", "createdAt", "updatedAt")
     VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT ("tenantId", livemode, cause) DO UPDATE SET "lastRaisedAt" = excluded."lastRaisedAt", "updatedAt" = excluded."updatedAt"
     WHERE routing_alerts."lastRaisedAt" <= ?
     RETURNING id`,
    [
      newId(),
      tenantId,
      bindFor(db, model, 'livemode', livemode),
      cause,
      at(now),
      at(now),
      at(now),
      at(new Date(now.getTime() - ROUTING_ALERT_WINDOW_MS)),
    ],
    { transaction: tx.transaction },
  );
  return rows.length > 0;
}

/**
 * A payment that found no eligible terminal (it is failed with no_eligible_terminal in this transaction): routing.alert
 * with what the payment asked and why each candidate was excluded, unless the merchant's cause was raised within the
 * window. Returns whether it was raised.
 */
export async function alertNoEligibleTerminal(tx: CallerContext, payment: PaymentRow, decision: RoutingDecision): Promise<boolean> {
  if (!(await claimCause(tx, payment.tenantId, payment.livemode, `no_eligible_terminal:${payment.merchantId}`))) return false;
  const excluded: Record<string, number> = {};
  for (const c of decision.candidates) {
    for (const reason of c.reasons) {
      const kind = reason.split(':')[0];
      excluded[kind] = (excluded[kind] ?? 0) + 1;
    }
  }
  await emitEvent(tx, {
    type: 'routing.alert',
    tenantId: payment.tenantId,
    merchantId: payment.merchantId,
    livemode: payment.livemode,
    data: {
      object: 'alert',
      kind: 'routing',
      severity: 'high',
      reason: 'no_eligible_terminal',
      terminalId: null,
      merchantId: payment.merchantId,
      paymentId: payment.id,
      currency: payment.currency,
      amount: { currency: payment.currency, valueMinor: payment.amountMinor },
      paymentMethod: payment.paymentMethodType,
      brand: payment.cardBrand,
      counts: { candidates: decision.candidates.length, excluded },
      candidates: decision.candidates.map((c) => ({ terminalId: c.terminalId, reasons: c.reasons })),
      ruleId: decision.ruleId,
      strategy: decision.strategy,
      windowMinutes: ROUTING_ALERT_WINDOW_MS / 60_000,
      createdAt: tx.clock.now().toISOString(),
    },
  });
  return true;
}

/**
 * An attempt of a terminal was declined (its answer is written in this transaction): one count of the terminal's
 * answered attempts and declines of the window in the attempt's mode (index payment_attempts_terminal_recent); over
 * the threshold, routing.alert unless the terminal's cause was raised within the window. Returns whether it was raised.
 */
export async function alertOnDecline(
  tx: CallerContext,
  attempt: Pick<PaymentAttemptRow, 'tenantId' | 'livemode' | 'terminalId'>,
): Promise<boolean> {
  const { db } = tx;
  const model = db.models.PaymentAttempt as never;
  const since = new Date(tx.clock.now().getTime() - ROUTING_ALERT_WINDOW_MS);
  const [row] = await db.sql.all<{ attempts: number | string; declines: number | string | null }>(
    DECLINE_COUNT_SQL,
    [attempt.terminalId, bindFor(db, model, 'livemode', attempt.livemode), bindFor(db, model, 'createdAt', since), ...ANSWERED],
    { transaction: tx.transaction },
  );
  const attempts = Number(row?.attempts ?? 0);
  const declines = Number(row?.declines ?? 0);
  if (attempts < DECLINE_ALERT_MIN_ATTEMPTS || declines * 2 <= attempts) return false;
  if (!(await claimCause(tx, attempt.tenantId, attempt.livemode, `terminal_declines:${attempt.terminalId}`))) return false;
  await emitEvent(tx, {
    type: 'routing.alert',
    tenantId: attempt.tenantId,
    merchantId: null,
    livemode: attempt.livemode,
    data: {
      object: 'alert',
      kind: 'routing',
      severity: 'warning',
      reason: 'terminal_declines',
      terminalId: attempt.terminalId,
      attempts,
      declines,
      counts: { attempts, declines },
      declineRate: Math.round((declines / attempts) * 1000) / 1000,
      windowMinutes: ROUTING_ALERT_WINDOW_MS / 60_000,
      createdAt: tx.clock.now().toISOString(),
    },
  });
  return true;
}
