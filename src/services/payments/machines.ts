import type { CallerContext } from '../../domain/context';
import { ConflictError } from '../../domain/errors';
import type { LateVoidStatus, PaymentAttemptRow, PaymentRow, PaymentStatus, RefundRow } from '../../db/models';
import { auditedRecord } from '../audit/changes';
import { refusedMove, statusMachine, transition } from '../status';
import type { EmitInput } from '../webhooks/events';
import { recordSessionPayment } from '../checkout/payment-report';
import { toPayment, toRefund } from './records';

/**
 * The status machines of payments, their attempts and refunds: every status they take after their creation is one of
 * these moves, made by transition() (src/services/status.ts), audited and announced there.
 *
 * Payments: processing → requires_action → processing …; processing → requires_capture (manual capture) or captured
 * (automatic); any of processing, requires_action, requires_capture → voided (cancel); processing → failed;
 * captured → partially_refunded → refunded through refunds.
 */

export const PAYMENT = auditedRecord<PaymentRow>({
  model: (ctx) => ctx.db.models.Payment,
  targetType: 'payment',
  owner: (row) => ({ tenantId: row.tenantId, merchantId: row.merchantId, livemode: row.livemode }),
  render: toPayment,
});

/** Statuses in which the provider may still answer for the payment's current attempt. */
export const OPEN_STATUSES: readonly PaymentStatus[] = ['processing', 'requires_action'];
const CANCELABLE: readonly PaymentStatus[] = ['processing', 'requires_action', 'requires_capture'];
const REFUNDABLE: readonly PaymentStatus[] = ['captured', 'partially_refunded'];
const REFUNDED: readonly PaymentStatus[] = ['partially_refunded', 'refunded'];

type PaymentMove =
  | 'require_action'
  | 'authorize'
  | 'authorize_and_capture'
  | 'cascade'
  | 'fail'
  | 'cancel'
  | 'capture'
  | 'refund_part'
  | 'refund_all'
  | 'unrefund_part'
  | 'unrefund_all';

const payingRefused = refusedMove<PaymentRow>('payment');

export const PAYMENT_MACHINE = statusMachine<PaymentRow, PaymentMove, PaymentStatus>({
  record: PAYMENT,
  moves: {
    // the provider's answers to the current attempt
    require_action: { from: OPEN_STATUSES, to: 'requires_action', action: 'payment.requires_action' },
    authorize: { from: OPEN_STATUSES, to: 'requires_capture', action: 'payment.requires_capture' },
    authorize_and_capture: { from: OPEN_STATUSES, to: 'captured', action: 'payment.captured' },
    // a decline sent on to the next terminal of the routing decision
    cascade: { from: OPEN_STATUSES, to: 'processing', action: 'payment.cascaded' },
    fail: { from: OPEN_STATUSES, to: 'failed', action: 'payment.failed' },
    // the caller's
    cancel: { from: CANCELABLE, to: 'voided', action: 'payment.canceled' },
    capture: { from: ['requires_capture'], to: 'captured', action: 'payment.succeeded' },
    // a refund's success
    refund_part: { from: REFUNDABLE, to: 'partially_refunded', action: 'payment.partially_refunded' },
    refund_all: { from: REFUNDABLE, to: 'refunded', action: 'payment.refunded' },
    // a succeeded refund the acquirer failed afterwards (Adyen's REFUND_FAILED): other refunds left, or none
    unrefund_part: { from: REFUNDED, to: 'partially_refunded', action: 'payment.refund_reversed' },
    unrefund_all: { from: REFUNDED, to: 'captured', action: 'payment.refund_reversed' },
  },
  refused: (row, move, spec) => {
    switch (move) {
      case 'capture':
        return new ConflictError(
          'PAYMENT_NOT_CAPTURABLE',
          `Payment ${row.id} is ${row.status}: only a requires_capture payment can be captured.`,
        );
      case 'cancel':
        return new ConflictError(
          'PAYMENT_NOT_CANCELABLE',
          `Payment ${row.id} is ${row.status}: only processing, requires_action or requires_capture payments can be canceled.`,
        );
      case 'refund_part':
      case 'refund_all':
        if (row.status === 'refunded') return new ConflictError('PAYMENT_ALREADY_REFUNDED', `Payment ${row.id} is fully refunded.`);
        return new ConflictError('PAYMENT_NOT_REFUNDABLE', `Payment ${row.id} is ${row.status}: only captured payments can be refunded.`);
      default:
        return payingRefused(row, move, spec);
    }
  },
});

/** A payment.* event: the full record as data (each endpoint sees its level's view). */
export function paymentEvent(type: string, row: PaymentRow): EmitInput {
  const data = toPayment(row) as unknown as Record<string, unknown>;
  return { type, data, tenantId: row.tenantId, merchantId: row.merchantId, livemode: row.livemode };
}

/** The events each move announces (none: a cascade, a refund's, which refund.succeeded tells). */
const PAYMENT_EVENTS: Record<PaymentMove, readonly string[]> = {
  require_action: ['payment.requires_action'],
  authorize: ['payment.requires_capture'],
  authorize_and_capture: ['payment.succeeded', 'payment.captured'],
  cascade: [],
  fail: ['payment.failed'],
  cancel: ['payment.canceled'],
  capture: ['payment.captured', 'payment.succeeded'],
  refund_part: [],
  refund_all: [],
  unrefund_part: [],
  unrefund_all: [],
};

/**
 * One move of a payment (locked in the caller's transaction), with its events; a session's payment is mirrored on it
 * by the moves its events tell (a cascade or a refund leaves the session's mirror as the last event told it).
 */
export async function movePayment(
  tx: CallerContext,
  row: PaymentRow,
  move: PaymentMove,
  changes: Partial<PaymentRow> = {},
): Promise<PaymentRow> {
  const events = PAYMENT_EVENTS[move];
  const moved = await transition(tx, PAYMENT_MACHINE, row, move, {
    changes,
    events: (after) => events.map((type) => paymentEvent(type, after)),
  });
  if (moved.checkoutSessionId && events.length > 0) {
    await recordSessionPayment(tx, moved.checkoutSessionId, { paymentId: moved.id, paymentStatus: moved.status });
  }
  return moved;
}

// ---------------------------------------------------------------------------------------------- attempts

/** An attempt's table; its moves are unaudited (ATTEMPT_MACHINE): what an entry would show is its payment's. */
const ATTEMPT = auditedRecord<PaymentAttemptRow>({
  model: (ctx) => ctx.db.models.PaymentAttempt,
  targetType: 'payment',
  owner: (row) => ({ tenantId: row.tenantId, merchantId: row.merchantId, livemode: row.livemode }),
  render: (row) => ({ status: row.status }),
});

type AttemptStatus = PaymentAttemptRow['status'];
/** an attempt still waiting for its provider's answer */
export const OPEN_ATTEMPT_STATUSES: readonly AttemptStatus[] = ['pending', 'requires_action'];

/**
 * An attempt moves once per answer of its provider, named by the answer (requires_action, succeeded, declined,
 * failed). Its moves are told by its payment's (the attempt is not a record of its own to callers): unaudited.
 */
export const ATTEMPT_MACHINE = statusMachine<PaymentAttemptRow, Exclude<AttemptStatus, 'pending'>, AttemptStatus>({
  record: ATTEMPT,
  moves: {
    requires_action: { from: OPEN_ATTEMPT_STATUSES, to: 'requires_action', action: 'payment_attempt.requires_action' },
    succeeded: { from: OPEN_ATTEMPT_STATUSES, to: 'succeeded', action: 'payment_attempt.succeeded' },
    declined: { from: OPEN_ATTEMPT_STATUSES, to: 'declined', action: 'payment_attempt.declined' },
    failed: { from: OPEN_ATTEMPT_STATUSES, to: 'failed', action: 'payment_attempt.failed' },
  },
  refused: refusedMove('payment attempt'),
});

// ---------------------------------------------------------------------------------------------- refunds

export const REFUND = auditedRecord<RefundRow>({
  model: (ctx) => ctx.db.models.Refund,
  targetType: 'refund',
  owner: (row) => ({ tenantId: row.tenantId, merchantId: row.merchantId, livemode: row.livemode }),
  render: toRefund,
});

/** A refund.* event: the full record as data. */
export function refundEvent(type: string, row: RefundRow): EmitInput {
  const data = toRefund(row) as unknown as Record<string, unknown>;
  return { type, data, tenantId: row.tenantId, merchantId: row.merchantId, livemode: row.livemode };
}

/** Refunds: pending (created, sent to the provider) → succeeded or failed with its answer. */
type RefundMove = 'succeed' | 'fail' | 'reverse' | 'succeed_late';

export const REFUND_MACHINE = statusMachine<RefundRow, RefundMove, RefundRow['status']>({
  record: REFUND,
  moves: {
    succeed: { from: ['pending'], to: 'succeeded', action: 'refund.succeeded' },
    fail: { from: ['pending'], to: 'failed', action: 'refund.failed' },
    // a succeeded refund the acquirer failed afterwards (Adyen's REFUND_FAILED after its REFUND): announced as failed
    reverse: { from: ['succeeded'], to: 'failed', action: 'refund.failed' },
    // a refund failed here for want of any answer (an acquirer without look-up, past the deadline) that the acquirer
    // then confirms: it did refund the cardholder, so the refund is booked after all
    succeed_late: { from: ['failed'], to: 'succeeded', action: 'refund.succeeded' },
  },
  refused: refusedMove('refund'),
});

/** One move of a refund (its payment locked in the caller's transaction), announced by refund.succeeded or refund.failed. */
export function moveRefund(tx: CallerContext, row: RefundRow, move: RefundMove, changes: Partial<RefundRow>): Promise<RefundRow> {
  return transition(tx, REFUND_MACHINE, row, move, { changes, event: (moved) => refundEvent(REFUND_MACHINE.moves[move].action, moved) });
}

// ---------------------------------------------------------------------------------------------- late voids

/**
 * The void of an approval that arrived after its payment was canceled or given up (the acquirer holds an authorization
 * nobody wants): none → pending, recorded in the transaction that applies the late approval; pending → done once the
 * provider confirms the void (its answer, or its notification of a void it accepted for later); pending → failed once
 * the tries are spent (the reason kept in lateVoidError). Unaudited, as the attempt's own moves.
 */
export const LATE_VOID_MACHINE = statusMachine<PaymentAttemptRow, 'need' | 'confirm' | 'give_up', LateVoidStatus>({
  record: ATTEMPT,
  field: 'lateVoidStatus',
  moves: {
    need: { from: ['none'], to: 'pending', action: 'payment_attempt.late_void_needed' },
    confirm: { from: ['pending'], to: 'done', action: 'payment_attempt.late_void_done' },
    give_up: { from: ['pending'], to: 'failed', action: 'payment_attempt.late_void_failed' },
  },
  refused: refusedMove('late void'),
});
