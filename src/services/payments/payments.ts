import { Op } from 'sequelize';
import { inTransaction, withTransaction, type Actor, type CallerContext } from '../../domain/context';
import { processingContext } from '../../domain/authority';
import { newId } from '../../util/ids';
import { settled, throughProvider, type ProviderAnswer, type ProviderOperation, type ProviderRequest } from '../provider-call';
import { BusinessRuleError, ConflictError, PermissionError, UnavailableError, ValidationError } from '../../domain/errors';
import type { PaymentRow, PaymentStatus, PendingPaymentOperation } from '../../db/models';
import { scoped, type ListParams, type Page } from '../../db/scoped';
import { getProvider, supportsFeature } from '../processing/providers';
import { mapPage } from '../present';
import { bookCapture } from './engine';
import { paymentFor, riskOf, type Payment } from './records';
import { movePayment, PAYMENT_MACHINE } from './machines';
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

interface PaymentIntent {
  paymentId: string;
  operation: PendingPaymentOperation;
}

/** Records a capture or void on the locked payment: the claim that keeps a second one away (409), and what recovery finishes. */
async function recordOperation(
  tx: CallerContext,
  row: PaymentRow,
  kind: PendingPaymentOperation['kind'],
  amountMinor?: number,
): Promise<PaymentIntent> {
  refuseWhilePending(row);
  const operation: PendingPaymentOperation = {
    id: newId(),
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
  if (intent.operation.kind === 'void')
    return { via, terminalId: row.terminalId!, operation: 'void', request: { reference: row.id, providerReference } };
  const amount = { currency: row.currency, valueMinor: intent.operation.amountMinor ?? row.authorizedMinor };
  return { via, terminalId: row.terminalId!, operation: 'capture', request: { reference: row.id, providerReference, amount } };
}

/** The outcome of a capture or void: the payment as it is now, or the refusal to answer with (the payment unchanged). */
type OperationOutcome = { row: PaymentRow; refusal?: undefined } | { row?: undefined; refusal: Error };

/**
 * Applies the provider's answer to a recorded capture or void: the payment is locked again and must still carry this
 * operation (else recovery or an earlier answer applied it: the payment is returned as it is). Accepted: booked and
 * moved (captured / voided) with its events. Refused, or never sent: the operation is cleared and the payment stays as
 * it was (requires_capture), with the refusal to answer. No answer (a timeout, a 5xx: the outcome is unknown): the
 * operation stays recorded for recovery to send again, and the caller is answered 503.
 */
async function applyOperation(tx: CallerContext, intent: PaymentIntent, answer: ProviderAnswer): Promise<OperationOutcome> {
  const payments = scoped(tx, tx.db.models.Payment);
  const row = await payments.get(intent.paymentId, { lock: true });
  const { operation } = intent;
  if (row.pendingOperation?.id !== operation.id) return { row };
  const clear = { pendingOperation: null, pendingOperationUntil: null };
  const what = operation.kind === 'void' ? 'void the authorization' : 'capture';
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
    // never sent (the connector refused before the provider was reached): nothing happened, the payment stays as it was
    await payments.update(row, clear);
    return {
      refusal: new UnavailableError(`The provider could not be reached: ${answer.unreachable.message}. Try again.`, 'PROVIDER_UNAVAILABLE'),
    };
  }
  const { result } = answer;
  if (result.status !== 'succeeded') {
    await payments.update(row, clear);
    const code = operation.kind === 'void' ? 'VOID_DECLINED' : 'CAPTURE_DECLINED';
    return { refusal: new BusinessRuleError(code, `The provider refused to ${what}${result.message ? `: ${result.message}` : ''}.`) };
  }
  // the outcome is recorded in the name of whoever asked for it (also when recovery applies it)
  const pctx = contextForPayment(tx, row, operation.actor);
  if (operation.kind === 'void') {
    const changes = { ...clear, action: null, cardVault: null, providerStatus: result.rawStatus ?? 'voided' };
    return { row: await movePayment(pctx, row, 'cancel', changes) };
  }
  const booked = await bookCapture(pctx, row, operation.amountMinor ?? row.authorizedMinor);
  return { row: await movePayment(pctx, row, 'capture', { ...booked, ...clear, providerStatus: result.rawStatus ?? 'captured' }) };
}

/** A recorded capture or void through the provider: the call outside any transaction, the answer applied after. */
function paymentOperation(
  record: ProviderOperation<PaymentIntent, OperationOutcome>['record'],
): ProviderOperation<PaymentIntent, OperationOutcome> {
  return { name: 'payment operation', record, request: operationRequest, apply: applyOperation };
}

function answered(ctx: CallerContext, outcome: OperationOutcome): Payment {
  if (outcome.refusal) throw outcome.refusal;
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

/**
 * Finishes a capture or void whose lease ran out (its process died between recording it and applying the answer, or
 * the answer could not be applied): the lease is taken over (one process wins), the provider is called again with the
 * same reference (providers take a reference once) and the answer applied. Returns whether this call finished it.
 */
export async function finishStalledOperation(pctx: CallerContext, paymentId: string): Promise<boolean> {
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
    return taken ? { paymentId, operation: row.pendingOperation } : null;
  });
  if (!intent) return false;
  await throughProvider(pctx, paymentOperation({ recorded: intent }));
  return true;
}
