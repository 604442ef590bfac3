import { Op } from 'sequelize';
import type { CallerContext } from '../../domain/context';
import { ConflictError, NotFoundError } from '../../domain/errors';
import type { Money } from '../../domain/money';
import { scoped } from '../../db/scoped';
import type { CheckoutSessionRow, CheckoutSessionStatus } from '../../db/models';
import { auditedRecord } from '../audit/changes';
import { statusMachine, transition, type TransitionOptions } from '../status';
import { iso, type Presented } from '../present';
import type { EmitInput } from '../webhooks/events';

/**
 * The checkout session as a record: how it is shown (API, events, audit entries), how a caller reaches it, when it may
 * change, and its status machine. A session is open until it is paid (complete) or its time runs out (expired); the
 * status of its latest payment (paymentStatus) follows the payment and, while the payment is in flight, holds the
 * session still.
 */

/** payment statuses during which the session may be neither paid again, changed nor expired */
export const PAYMENT_IN_FLIGHT = ['processing', 'requires_action'] as const;
/** payment statuses that mean the customer paid: the session becomes complete */
export const PAYMENT_APPROVED = ['requires_capture', 'captured'] as const;

/** The specification's checkout session record: the row's fields (dates as ISO strings) with its amount as Money. */
export type CheckoutSession = Presented<
  Omit<CheckoutSessionRow, 'currency' | 'amountMinor' | 'clientSecretHash' | 'completedAt' | 'expiredAt'>
> & {
  amount: Money;
  /** shown once, when the session is created */
  clientSecret?: string;
};

export function toSession(row: CheckoutSessionRow): CheckoutSession {
  return {
    id: row.id,
    tenantId: row.tenantId,
    merchantId: row.merchantId,
    paymentId: row.paymentId ?? null,
    merchantName: row.merchantName,
    tenantName: row.tenantName,
    merchantReference: row.merchantReference ?? null,
    locale: row.locale ?? null,
    providerCheckoutId: row.providerCheckoutId ?? null,
    termsUrl: row.termsUrl ?? null,
    privacyUrl: row.privacyUrl ?? null,
    url: row.url,
    successUrl: row.successUrl ?? null,
    cancelUrl: row.cancelUrl ?? null,
    channelId: row.channelId ?? null,
    livemode: row.livemode,
    status: row.status,
    paymentStatus: row.paymentStatus ?? null,
    amount: { currency: row.currency, valueMinor: row.amountMinor },
    captureMethod: row.captureMethod,
    lineItems: row.lineItems ?? [],
    totals: row.totals ?? [],
    fulfillmentOptions: row.fulfillmentOptions ?? [],
    selectedFulfillment: row.selectedFulfillment ?? null,
    customerInfo: row.customerInfo ?? null,
    agenticContext: row.agenticContext ?? null,
    metadata: row.metadata ?? {},
    createdAt: iso(row.createdAt)!,
    expiresAt: iso(row.expiresAt)!,
    updatedAt: iso(row.updatedAt)!,
    deletedAt: iso(row.deletedAt),
  };
}

/** The checkout.session.* event announcing the session as it is now. */
export function sessionEvent(type: string, row: CheckoutSessionRow): EmitInput {
  const data = { object: 'checkout.session', ...toSession(row) };
  return { type, data, tenantId: row.tenantId, merchantId: row.merchantId, livemode: row.livemode };
}

/** How audit entries name and show a session. */
export const SESSION = auditedRecord<CheckoutSessionRow>({
  model: (ctx) => ctx.db.models.CheckoutSession,
  targetType: 'checkout_session',
  owner: (row) => ({ tenantId: row.tenantId, merchantId: row.merchantId, livemode: row.livemode }),
  render: (row) => toSession(row),
});

// ---- access --------------------------------------------------------------------------------------------------

/** A client-secret caller reaches its own session only: any other id does not exist for it. */
function assertReachable(ctx: CallerContext, id: string): void {
  if (ctx.credential === 'client_secret' && id !== ctx.checkoutSessionId) throw new NotFoundError('checkout session', id);
}

export async function loadRow(ctx: CallerContext, id: string, lock = false): Promise<CheckoutSessionRow> {
  assertReachable(ctx, id);
  return scoped(ctx, ctx.db.models.CheckoutSession).get(id, { lock });
}

// ---- when a session may change -------------------------------------------------------------------------------

const inFlight = (row: Pick<CheckoutSessionRow, 'paymentStatus'>) =>
  (PAYMENT_IN_FLIGHT as readonly string[]).includes(row.paymentStatus ?? '');

function isPastDeadline(row: CheckoutSessionRow, now: Date): boolean {
  return new Date(row.expiresAt).getTime() <= now.getTime();
}

const inFlightError = (row: CheckoutSessionRow) =>
  new ConflictError('CHECKOUT_PAYMENT_IN_FLIGHT', `A payment of this session is ${row.paymentStatus}; wait for its outcome.`);

/** 409 while a payment of the session is in flight */
function refuseInFlight(row: CheckoutSessionRow): void {
  if (inFlight(row)) throw inFlightError(row);
}

/** open, not past its deadline, no payment in flight: what update and complete require */
export function assertChangeable(row: CheckoutSessionRow, now: Date): void {
  if (row.status === 'complete') {
    throw new ConflictError('CHECKOUT_SESSION_COMPLETE', 'The checkout session is already paid (status complete).');
  }
  if (row.status === 'expired' || isPastDeadline(row, now)) {
    throw new ConflictError('CHECKOUT_SESSION_EXPIRED', `The checkout session expired at ${iso(row.expiresAt)}.`, {
      hint: 'Create a new checkout session.',
    });
  }
  refuseInFlight(row);
}

/** A new payment of the session: only on an open session with none in flight (two concurrent completes cannot both start one). */
export function assertNewPayment(row: CheckoutSessionRow): void {
  if (row.status !== 'open') throw notOpen(row);
  refuseInFlight(row);
}

/** the compare-and-set condition matching assertChangeable (a concurrent move makes the update match nothing) */
export const changeableWhere = () => ({
  status: 'open',
  [Op.or]: [{ paymentStatus: null }, { paymentStatus: { [Op.notIn]: [...PAYMENT_IN_FLIGHT] } }],
});

/** a compare-and-set that matched nothing: a concurrent change won */
export function raced(): ConflictError {
  return new ConflictError(
    'CHECKOUT_SESSION_CHANGED',
    'The checkout session changed meanwhile (paid, expired or a payment started); read it again.',
  );
}

/** the refusal a sweep skips: the session moved since it was read */
export const isRaced = (error: unknown) => error instanceof ConflictError && error.code === 'CHECKOUT_SESSION_CHANGED';

const notOpen = (row: CheckoutSessionRow) =>
  new ConflictError(
    row.status === 'complete' ? 'CHECKOUT_SESSION_COMPLETE' : 'CHECKOUT_SESSION_EXPIRED',
    `The checkout session is ${row.status}.`,
  );

// ---- status --------------------------------------------------------------------------------------------------

type SessionMove = 'complete' | 'expire';

/**
 * open -> complete (its payment was approved) and open -> expired (by the merchant, or the expiry job once its time
 * ran out). A move refused from the record's status is the 409 the API documents; one whose compare-and-set matched
 * nothing (the session moved, or a payment started, since it was read) is CHECKOUT_SESSION_CHANGED.
 */
export const SESSION_STATUS = statusMachine<CheckoutSessionRow, SessionMove, CheckoutSessionStatus>({
  record: SESSION,
  moves: {
    complete: { from: ['open'], to: 'complete', action: 'checkout_session.completed', also: (ctx) => ({ completedAt: ctx.clock.now() }) },
    expire: { from: ['open'], to: 'expired', action: 'checkout_session.expired', also: (ctx) => ({ expiredAt: ctx.clock.now() }) },
  },
  refused: (row, move, spec) => {
    if (spec.from.includes(row.status)) return raced();
    if (move === 'expire') {
      return row.status === 'complete'
        ? new ConflictError('CHECKOUT_SESSION_COMPLETE', 'The checkout session is already paid (status complete).')
        : new ConflictError('CHECKOUT_SESSION_EXPIRED', 'The checkout session is already expired.');
    }
    return notOpen(row);
  },
});

const MOVE_EVENTS: Record<SessionMove, string> = { complete: 'checkout.session.completed', expire: 'checkout.session.expired' };

/** What a move requires beyond the session's status: a session does not expire while a payment of it is in flight. */
const MOVE_GUARDS: Record<SessionMove, () => Pick<TransitionOptions<CheckoutSessionRow>, 'check' | 'expect'>> = {
  complete: () => ({}),
  expire: () => ({ check: refuseInFlight, expect: changeableWhere() }),
};

/**
 * One move of the session in the caller's transaction, audited and announced. The row may have been read without a
 * lock: the move is written only if the session is still in the status it was read in and matches the move's guard
 * and the caller's `expect` (else CHECKOUT_SESSION_CHANGED).
 */
export async function moveSession(
  tx: CallerContext,
  row: CheckoutSessionRow,
  move: SessionMove,
  options: Omit<TransitionOptions<CheckoutSessionRow>, 'event'> = {},
): Promise<CheckoutSessionRow> {
  const event = (moved: CheckoutSessionRow) => sessionEvent(MOVE_EVENTS[move], moved);
  return transition(tx, SESSION_STATUS, row, move, { ...MOVE_GUARDS[move](), ...options, event });
}
