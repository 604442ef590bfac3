import { Op } from 'sequelize';
import { inTransaction, withTransaction, type Actor, type CallerContext } from '../../domain/context';
import { processingContext } from '../../domain/authority';
import { newId } from '../../util/ids';
import {
  CallNotStarted,
  NO_LOOKUP,
  settled,
  throughProvider,
  type ProviderAnswer,
  type ProviderOperation,
  type ProviderRequest,
} from '../provider-call';
import type { ConnectorResult } from '../../connectors';
import { auditRecord } from '../audit/changes';
import { BusinessRuleError, ConflictError, PermissionError, UnavailableError, ValidationError } from '../../domain/errors';
import type { PaymentRow, PaymentStatus, PendingPaymentOperation } from '../../db/models';
import { isUuid, scoped, type ListParams, type Page } from '../../db/scoped';
import { getProvider, supportsFeature } from '../processing/providers';
import { mapPage } from '../present';
import { bookCapture } from './engine';
import { paymentFor, riskOf, type Payment } from './records';
import { movePayment, PAYMENT, PAYMENT_MACHINE } from './machines';
import { refuseUnless } from '../status';
import { formatMinor, type Money } from '../../domain/money';

/**
 * The payment path's tenant-level context for a payment, inside the caller's transaction and with the caller (or
 * `actor`) as actor.
 */
export function contextForPayment(
  ctx: CallerContext,
  row: Pick<PaymentRow, 'tenantId' | 'livemode'>,
  actor: Actor = ctx.actor,
): CallerContext {
  return withTransaction(processingContext(ctx, row.tenantId, row.livemode, actor), ctx.transaction);
}

export interface PaymentFilters {
  status?: PaymentStatus;
  merchantId?: string;
  checkoutSessionId?: string;
}

export async function listPayments(ctx: CallerContext, filters: PaymentFilters, page: ListParams): Promise<Page<Payment>> {
  const where: Record<string, unknown> = {};
  for (const key of ['status', 'merchantId', 'checkoutSessionId'] as const) if (filters[key]) where[key] = filters[key];
  return mapPage(await scoped(ctx, ctx.db.models.Payment).list(where, page), (row) => paymentFor(ctx.level, row));
}

export async function getPayment(ctx: CallerContext, id: string): Promise<Payment> {
  return paymentFor(ctx.level, await scoped(ctx, ctx.db.models.Payment).get(id));
}

/** How long a recorded capture or void holds its payment before the recovery job may finish it (over the connectors' timeouts). */
export const PAYMENT_OPERATION_LEASE_MS = 120_000;

/**
 * How long a capture or cancel the provider accepted for later (it answered `pending`: Adyen's `received`) holds its
 * payment while its notification is awaited; past it, the recovery job looks it up (or, with no look-up offered, keeps
 * waiting another such period: logged once a period).
 */
export const ACCEPTED_OPERATION_WAIT_MS = 24 * 60 * 60_000;

/**
 * How many times the recovery job tries a capture or cancel whose call could not even start (its terminal's credentials
 * unreadable, its connector refusing before any request) before it abandons it: the operation cleared, the payment as
 * it was, the reason kept (lastOperationError, an audit entry payment.operation_abandoned).
 */
export const OPERATION_MAX_TRIES = 5;

interface PaymentIntent {
  paymentId: string;
  operation: PendingPaymentOperation;
  /** sent by the recovery job: a call that cannot start counts a try (abandoned after OPERATION_MAX_TRIES), not cleared at once */
  recovering?: boolean;
}

/** The reference a capture or void is sent with: its own id (each capture asked is a new one at the acquirer), or the payment's before that. */
function operationReference(row: Pick<PaymentRow, 'id'>, operation: PendingPaymentOperation): string {
  return operation.reference ?? row.id;
}

/** Records a capture or void on the locked payment: the claim that keeps a second one away (409), and what recovery finishes. */
async function recordOperation(
  tx: CallerContext,
  row: PaymentRow,
  kind: PendingPaymentOperation['kind'],
  amountMinor?: number,
): Promise<PaymentIntent> {
  refuseWhilePending(row);
  const id = newId();
  const operation: PendingPaymentOperation = {
    id,
    // sent as the acquirer's reference and idempotency key: a capture refused and asked again (another amount) is a new
    // request there, never answered from the acquirer's record of the first
    reference: id,
    kind,
    ...(amountMinor === undefined ? {} : { amountMinor }),
    actor: { type: tx.actor.type, id: tx.actor.id, ...(tx.actor.name ? { name: tx.actor.name } : {}) },
    requestedAt: tx.clock.now().toISOString(),
  };
  const claimed = await scoped(tx, tx.db.models.Payment).updateIf(
    row,
    { pendingOperation: null },
    { pendingOperation: operation, pendingOperationUntil: new Date(tx.clock.now().getTime() + PAYMENT_OPERATION_LEASE_MS) },
  );
  if (!claimed) refuseWhilePending({ ...row, pendingOperation: operation });
  return { paymentId: row.id, operation };
}

function refuseWhilePending(row: Pick<PaymentRow, 'id' | 'pendingOperation'>): void {
  if (!row.pendingOperation) return;
  throw new ConflictError(
    'PAYMENT_OPERATION_IN_PROGRESS',
    `A ${row.pendingOperation.kind === 'void' ? 'cancel' : 'capture'} of payment ${row.id} is in progress at the provider: read the payment again in a moment.`,
  );
}

/** What a recorded capture or void asks of the payment's provider (sent with no transaction open). */
async function operationRequest(ctx: CallerContext, intent: PaymentIntent): Promise<ProviderRequest> {
  const row = await scoped(ctx, ctx.db.models.Payment).get(intent.paymentId);
  const via = contextForPayment(ctx, row);
  const providerReference = row.providerReference!;
  const reference = operationReference(row, intent.operation);
  if (intent.operation.kind === 'void')
    return { via, terminalId: row.terminalId!, operation: 'void', request: { reference, providerReference } };
  const amount = { currency: row.currency, valueMinor: intent.operation.amountMinor ?? row.authorizedMinor };
  return { via, terminalId: row.terminalId!, operation: 'capture', request: { reference, providerReference, amount } };
}

/** The outcome of a capture or void: the payment as it is now, or the refusal to answer with (the payment unchanged). */
interface OperationOutcome {
  /** the payment as the answer left it (none: unchanged, as the refusal says) */
  row?: PaymentRow;
  refusal?: Error;
  /** the recovery job's last try abandoned it */
  abandoned?: boolean;
}

/**
 * Applies the provider's answer to a recorded capture or void: the payment is locked again and must still carry this
 * operation (else recovery or an earlier answer applied it: the payment is returned as it is). Accepted: booked and
 * moved (captured / voided) with its events. Accepted for later (`pending`: an acquirer that confirms captures and
 * cancels by notification): the operation stays recorded, marked accepted, its lease extended to
 * ACCEPTED_OPERATION_WAIT_MS, and the caller is answered 200 with the payment as it is (still requires_capture; its
 * providerStatus capture_pending or void_pending): the notification settles it (applyOperationOutcome). Refused: the
 * operation is cleared and the payment stays as it was (requires_capture), with the refusal to answer. Never sent (the
 * connector refused before the provider was reached): cleared with a 503 when a caller asked; counted as a try when
 * the recovery job sent it (abandoned after OPERATION_MAX_TRIES). No answer (a timeout, a 5xx: the outcome is
 * unknown): the operation stays recorded for recovery to send again, and the caller is answered 503.
 */
async function applyOperation(tx: CallerContext, intent: PaymentIntent, answer: ProviderAnswer): Promise<OperationOutcome> {
  const payments = scoped(tx, tx.db.models.Payment);
  const row = await payments.get(intent.paymentId, { lock: true });
  const { operation } = intent;
  if (row.pendingOperation?.id !== operation.id) return { row };
  if (answer.unreachable?.retryable) {
    // a timeout or a 5xx: the provider may have done it. The outcome is unknown, so the operation stays recorded (a
    // second capture or cancel meanwhile is 409, never another amount under the same reference) and recovery sends it
    // again with the same reference once its lease runs out, until the provider answers.
    return {
      refusal: new UnavailableError(
        `The provider did not answer (${answer.unreachable.message}): the ${operation.kind === 'void' ? 'cancel' : 'capture'} stays recorded and is sent again until the provider answers; read the payment again later.`,
        'PROVIDER_UNAVAILABLE',
      ),
    };
  }
  if (answer.unreachable) {
    const refusal = new UnavailableError(
      `The provider could not be reached: ${answer.unreachable.message}. Try again.`,
      'PROVIDER_UNAVAILABLE',
    );
    // the recovery job's try that could not start: counted (abandoned after the last one)
    if (intent.recovering) return { ...(await operationNotStarted(tx, row, answer.unreachable.message)), refusal };
    // never sent (the connector refused before the provider was reached): nothing happened, the payment stays as it was
    await payments.update(row, { pendingOperation: null, pendingOperationUntil: null });
    return { refusal };
  }
  const { result } = answer;
  if (result.status === 'pending') return { row: await operationAccepted(tx, row, row.pendingOperation) };
  return settleOperation(tx, row, row.pendingOperation, result);
}

/** A capture or void the provider accepted for later: kept recorded, marked accepted, its lease the notification's wait. */
async function operationAccepted(tx: CallerContext, row: PaymentRow, operation: PendingPaymentOperation): Promise<PaymentRow> {
  const now = tx.clock.now();
  return scoped(tx, tx.db.models.Payment).update(row, {
    pendingOperation: { ...operation, acceptedAt: operation.acceptedAt ?? now.toISOString() },
    pendingOperationUntil: new Date(now.getTime() + ACCEPTED_OPERATION_WAIT_MS),
    providerStatus: operation.kind === 'void' ? 'void_pending' : 'capture_pending',
  });
}

/**
 * The provider's final answer to the payment's recorded capture or void (locked in the caller's transaction):
 * succeeded, booked and moved; otherwise cleared, the payment as it was, with the refusal.
 */
async function settleOperation(
  tx: CallerContext,
  row: PaymentRow,
  operation: PendingPaymentOperation,
  result: ConnectorResult,
): Promise<OperationOutcome> {
  const clear = { pendingOperation: null, pendingOperationUntil: null };
  if (result.status !== 'succeeded') {
    const what = operation.kind === 'void' ? 'void the authorization' : 'capture';
    const code = operation.kind === 'void' ? 'VOID_DECLINED' : 'CAPTURE_DECLINED';
    const cleared = await scoped(tx, tx.db.models.Payment).update(row, clear);
    const refusal = new BusinessRuleError(code, `The provider refused to ${what}${result.message ? `: ${result.message}` : ''}.`);
    return { row: cleared, refusal };
  }
  // the outcome is recorded in the name of whoever asked for it (also when recovery or a notification applies it); an
  // earlier operation's failure is no longer the payment's story
  const pctx = contextForPayment(tx, row, operation.actor);
  const done = { ...clear, lastOperationError: null };
  if (operation.kind === 'void') {
    const changes = { ...done, action: null, cardVault: null, providerStatus: result.rawStatus ?? 'voided' };
    return { row: await movePayment(pctx, row, 'cancel', changes) };
  }
  const booked = await bookCapture(pctx, row, operation.amountMinor ?? row.authorizedMinor);
  return { row: await movePayment(pctx, row, 'capture', { ...booked, ...done, providerStatus: result.rawStatus ?? 'captured' }) };
}

/**
 * A capture or void that ended without a caller to answer (refused in a notification or a look-up, abandoned after its
 * tries): why, kept on the payment (lastOperationError, shown to tenants) and in an audit entry (`action`).
 */
async function operationEnded(
  tx: CallerContext,
  row: PaymentRow,
  operation: PendingPaymentOperation,
  action: 'payment.operation_refused' | 'payment.operation_abandoned',
  reason: string,
): Promise<PaymentRow> {
  const lastOperationError = `The ${operation.kind === 'void' ? 'cancel' : 'capture'} requested at ${operation.requestedAt} ${reason}`;
  // an operation the provider had accepted for later no longer shows as pending there
  const providerStatus = operation.acceptedAt ? `${operation.kind}_refused` : row.providerStatus;
  const ended = await scoped(tx, tx.db.models.Payment).update(row, {
    pendingOperation: null,
    pendingOperationUntil: null,
    lastOperationError,
    providerStatus,
  });
  await auditRecord(contextForPayment(tx, row, operation.actor), PAYMENT, ended, action, {
    before: { pendingOperation: { id: operation.id, kind: operation.kind, amountMinor: operation.amountMinor ?? null } },
    after: { status: ended.status, lastOperationError },
  });
  return ended;
}

/**
 * A try of the recovery job whose call could not even start (`reason`): counted on the operation (tries, lastError);
 * the last one abandons it (payment.operation_abandoned). Returns the payment, and whether it was abandoned.
 */
async function operationNotStarted(tx: CallerContext, row: PaymentRow, reason: string): Promise<{ row: PaymentRow; abandoned: boolean }> {
  const operation = row.pendingOperation!;
  const tries = (operation.tries ?? 0) + 1;
  if (tries >= OPERATION_MAX_TRIES) {
    return {
      row: await operationEnded(tx, row, operation, 'payment.operation_abandoned', `was abandoned after ${tries} tries: ${reason}`),
      abandoned: true,
    };
  }
  const updated = await scoped(tx, tx.db.models.Payment).update(row, { pendingOperation: { ...operation, tries, lastError: reason } });
  return { row: updated, abandoned: false };
}

/** An acquirer's asynchronous answer to a capture or void (its notification): what the payment path applies. */
export interface OperationNotice {
  operation: 'capture' | 'void';
  /** our reference as sent (the operation's id, or the payment's for operations recorded before): empty when not carried */
  reference: string;
  /** the acquirer's reference of the payment's authorization */
  providerReference: string;
  providerIntegrationId: string;
  result: ConnectorResult;
}

/**
 * Applies an acquirer's notification of a capture or void to the payment it names (by our reference, the payment's id
 * for operations recorded before operation references, else by its authorization's reference within the provider
 * integration), only while that operation is still recorded on the payment (same check as a synchronous answer):
 * succeeded, booked and moved as a synchronous answer; declined or failed, cleared (the payment unchanged) with the
 * reason kept and audited (payment.operation_refused); pending, nothing. Idempotent: applied twice, the second finds
 * no operation recorded. `settle` runs in the applying transaction (the caller's record of the delivery). Returns
 * what was done, or null when no payment is known by the notice.
 */
export async function applyOperationOutcome(
  pctx: CallerContext,
  notice: OperationNotice,
  settle?: (tx: CallerContext) => Promise<void>,
): Promise<'applied' | 'refused' | 'ignored' | null> {
  const payments = scoped(pctx, pctx.db.models.Payment);
  const byId = isUuid(notice.reference) ? await payments.find(notice.reference) : null;
  const found =
    byId && byId.providerIntegrationId === notice.providerIntegrationId
      ? byId
      : await payments.findOne({ providerIntegrationId: notice.providerIntegrationId, providerReference: notice.providerReference });
  if (!found) return null;
  return inTransaction(pctx, async (tx) => {
    const row = await scoped(tx, tx.db.models.Payment).get(found.id, { lock: true });
    const operation = row.pendingOperation;
    const reference = operation ? operationReference(row, operation) : null;
    const current = operation && operation.kind === notice.operation && (!notice.reference || notice.reference === reference);
    let done: 'applied' | 'refused' | 'ignored' = 'ignored';
    if (current && notice.result.status !== 'pending') {
      if (notice.result.status === 'succeeded') {
        await settleOperation(tx, row, operation, notice.result);
        done = 'applied';
      } else {
        const why = [notice.result.declineCode, notice.result.rawCode].filter(Boolean).join(' / ');
        await operationEnded(
          tx,
          row,
          operation,
          'payment.operation_refused',
          `was refused by the provider${why ? ` (${why})` : ''}${notice.result.message ? `: ${notice.result.message}` : ''}`,
        );
        done = 'refused';
      }
    }
    if (settle) await settle(tx);
    return done;
  });
}

/** A recorded capture or void through the provider: the call outside any transaction, the answer applied after. */
function paymentOperation(
  record: ProviderOperation<PaymentIntent, OperationOutcome>['record'],
): ProviderOperation<PaymentIntent, OperationOutcome> {
  return { name: 'payment operation', record, request: operationRequest, apply: applyOperation };
}

function answered(ctx: CallerContext, outcome: OperationOutcome): Payment {
  if (outcome.refusal || !outcome.row) throw outcome.refusal ?? new Error('a payment operation ended with no payment and no refusal');
  return paymentFor(ctx.level, outcome.row);
}

/** The payment of `id`, locked for the caller's transaction (404 outside the caller's scope). */
function lockedPayment(tx: CallerContext, id: string): Promise<PaymentRow> {
  return scoped(tx, tx.db.models.Payment).get(id, { lock: true });
}

/**
 * Captures a requires_capture payment: the whole authorized amount, or less where the provider supports partial
 * capture. The capture is recorded on the payment (a second capture or a cancel meanwhile is 409), sent to the
 * provider with no transaction open, and booked (fees, ledger) with the provider's answer; a refusal leaves the
 * payment requires_capture.
 */
export async function capturePayment(ctx: CallerContext, id: string, input: { amount?: Money }): Promise<Payment> {
  // in the intent's transaction: load and lock, decide (the input is validated against the payment), record the intent
  const outcome = await throughProvider(
    ctx,
    paymentOperation(async (tx) => {
      const row = await lockedPayment(tx, id);
      const amount = await decideCapture(tx, row, input);
      return recordOperation(tx, row, 'capture', amount);
    }),
  );
  // the provider called with no transaction open, its answer applied (applyOperation)
  return answered(ctx, outcome);
}

/** Whether the payment may be captured, of what amount: the machine's move, the risk hold, the amount and the provider's features. */
async function decideCapture(tx: CallerContext, row: PaymentRow, input: { amount?: Money }): Promise<number> {
  refuseUnless(PAYMENT_MACHINE, row, 'capture');
  if (riskOf(row) === 'review' && tx.level === 'merchant') {
    throw new PermissionError(`Payment ${row.id} is held for risk review: the tenant captures or cancels it.`, 'RISK_REVIEW_PENDING');
  }
  const authorized = row.authorizedMinor;
  const amount = input.amount?.valueMinor ?? authorized;
  if (input.amount && input.amount.currency !== row.currency)
    throw ValidationError.field('body.amount.currency', `must be the payment's currency ${row.currency}`);
  if (amount <= 0) throw ValidationError.field('body.amount.valueMinor', 'must be positive');
  if (amount > authorized)
    throw new BusinessRuleError(
      'CAPTURE_EXCEEDS_AUTHORIZED',
      `Capture of ${formatMinor({ currency: row.currency, valueMinor: amount })} exceeds the authorized ${formatMinor({ currency: row.currency, valueMinor: authorized })}.`,
    );
  const pctx = contextForPayment(tx, row);
  if (amount < authorized && !supportsFeature(await getProvider(pctx, row.providerIntegrationId!), 'partial_capture')) {
    throw new BusinessRuleError(
      'PARTIAL_CAPTURE_NOT_SUPPORTED',
      "The payment's provider does not support partial capture: capture the whole authorized amount.",
    );
  }
  return amount;
}

/**
 * Cancels (voids) a payment that is processing, requires_action or requires_capture: an authorization is voided at
 * the provider (recorded first, sent with no transaction open, applied with the answer); no refund is created and
 * nothing is booked. 409 once captured or final, or while a capture or cancel is in progress.
 */
export async function cancelPayment(ctx: CallerContext, id: string): Promise<Payment> {
  const outcome = await throughProvider(
    ctx,
    paymentOperation(async (tx) => {
      // load and lock, decide
      const row = await lockedPayment(tx, id);
      refuseUnless(PAYMENT_MACHINE, row, 'cancel');
      refuseWhilePending(row);
      // an authorization is voided at the provider: the intent recorded, the provider called, its answer applied
      // (applyOperation); an attempt still waiting for its answer (or for a 3DS challenge) is left behind: an approval
      // that arrives after the cancel is voided then (engine.applyAttemptResult)
      if (row.status === 'requires_capture' && row.providerReference && row.terminalId) return recordOperation(tx, row, 'void');
      // nothing authorized: canceled at once, no provider asked
      const changes = { action: null, cardVault: null, providerStatus: 'voided' };
      return settled({ row: await movePayment(contextForPayment(tx, row), row, 'cancel', changes) });
    }),
  );
  return answered(ctx, outcome);
}

/** What the recovery job did with a recorded capture or void (finishStalledOperation). */
export type OperationRecovery = 'finished' | 'waiting' | 'retrying' | 'abandoned';

/**
 * Finishes a capture or void whose lease ran out: the lease is taken over (one process wins), then
 * - accepted for later by the provider and its notification still missing: looked up at the acquirer by our reference
 *   (found final: applied as the notification would be); no look-up offered, or still pending there: it keeps waiting
 *   another ACCEPTED_OPERATION_WAIT_MS ('waiting': the job logs it, so once a period);
 * - else (its process died between recording it and applying the answer, or the answer was lost): the provider is
 *   called again with the same reference (providers take a reference once) and the answer applied; a call that could
 *   not even start counts a try, and the last of OPERATION_MAX_TRIES abandons it ('abandoned', the reason kept).
 * Returns what was done, or null when the lease was not (or no longer) to take.
 */
export async function finishStalledOperation(pctx: CallerContext, paymentId: string): Promise<OperationRecovery | null> {
  const now = pctx.clock.now();
  const intent = await inTransaction(pctx, async (tx) => {
    const payments = scoped(tx, tx.db.models.Payment);
    const row = await payments.find(paymentId, { lock: true });
    if (!row?.pendingOperation || !row.pendingOperationUntil || new Date(row.pendingOperationUntil).getTime() > now.getTime()) return null;
    const taken = await payments.updateIf(
      row,
      { pendingOperationUntil: { [Op.lte]: now } },
      { pendingOperationUntil: new Date(now.getTime() + PAYMENT_OPERATION_LEASE_MS) },
    );
    return taken ? { paymentId, operation: row.pendingOperation, recovering: true } : null;
  });
  if (!intent) return null;
  if (intent.operation.acceptedAt) return lookUpAcceptedOperation(pctx, intent);
  let outcome: OperationOutcome;
  try {
    outcome = await throughProvider(pctx, paymentOperation({ recorded: intent }));
  } catch (error) {
    // anything else (the answer not applied …): the outcome is unknown, sent again with the same reference later
    if (!(error instanceof CallNotStarted)) throw error;
    // the call could not even start (the terminal's credentials unreadable …): a try counted
    const reason = error.message;
    const counted = await inTransaction(pctx, async (tx) => {
      const row = await scoped(tx, tx.db.models.Payment).get(paymentId, { lock: true });
      return row.pendingOperation?.id === intent.operation.id ? operationNotStarted(tx, row, reason) : null;
    });
    if (counted?.abandoned) return 'abandoned';
    throw error;
  }
  if (outcome.abandoned) return 'abandoned';
  // no answer (a timeout), or a try that could not start: sent again once the lease runs out
  if (!outcome.row) return 'retrying';
  const still = outcome.row.pendingOperation?.id === intent.operation.id ? outcome.row.pendingOperation : null;
  if (!still) return 'finished';
  return still.acceptedAt ? 'waiting' : 'retrying';
}

/** An accepted capture or void whose notification is overdue: looked up, applied when found final, else waited for again. */
async function lookUpAcceptedOperation(pctx: CallerContext, intent: PaymentIntent): Promise<OperationRecovery> {
  return throughProvider<PaymentIntent, OperationRecovery>(pctx, {
    name: 'look-up of a payment operation',
    record: { recorded: intent },
    request: async (ctx, { paymentId, operation }) => {
      const row = await scoped(ctx, ctx.db.models.Payment).get(paymentId);
      return {
        via: contextForPayment(ctx, row),
        terminalId: row.terminalId!,
        operation: 'lookup',
        request: {
          operation: operation.kind,
          reference: operationReference(row, operation),
          providerReference: row.providerReference,
          tenantId: row.tenantId,
          livemode: row.livemode,
          ...(operation.kind === 'capture'
            ? { amount: { currency: row.currency, valueMinor: operation.amountMinor ?? row.authorizedMinor } }
            : {}),
        },
      };
    },
    apply: async (tx, { paymentId, operation }, answer) => {
      const row = await scoped(tx, tx.db.models.Payment).get(paymentId, { lock: true });
      if (row.pendingOperation?.id !== operation.id) return 'finished';
      const result = answer.result;
      if (result && result.status === 'succeeded') {
        await settleOperation(tx, row, row.pendingOperation, result);
        return 'finished';
      }
      if (result && (result.status === 'declined' || result.status === 'failed')) {
        await operationEnded(
          tx,
          row,
          row.pendingOperation,
          'payment.operation_refused',
          `was refused by the provider (found by a look-up)${result.message ? `: ${result.message}` : ''}`,
        );
        return 'finished';
      }
      // no look-up offered (NO_LOOKUP), nothing final there yet, or the look-up unanswered: its notification awaited again
      await scoped(tx, tx.db.models.Payment).update(row, {
        pendingOperationUntil: new Date(tx.clock.now().getTime() + ACCEPTED_OPERATION_WAIT_MS),
        pendingOperation: {
          ...row.pendingOperation,
          lastError:
            result?.rawStatus === NO_LOOKUP
              ? 'awaiting the provider notification'
              : (answer.unreachable?.message ?? `still ${result?.rawStatus ?? 'pending'} at the provider`),
        },
      });
      return 'waiting';
    },
  });
}
