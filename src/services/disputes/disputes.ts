import { Op } from 'sequelize';
import { inTransaction, type CallerContext, type Level } from '../../domain/context';
import { BusinessRuleError, ConflictError, InternalError, UnavailableError, ValidationError } from '../../domain/errors';
import type { DisputeEvidence, DisputeReason, DisputeRow, DisputeStatus } from '../../db/models/disputes';
import { DISPUTE_REASONS, EVIDENCE_FIELDS } from '../../db/models/disputes';
import type { PaymentRow } from '../../db/models';
import { scoped, type ListParams, type Page } from '../../db/scoped';
import { auditRecord, auditedRecord, lockedRecord } from '../audit/changes';
import { statusMachine, transition } from '../status';
import { emitEvent, type EmitInput } from '../webhooks/events';
import { viewOf } from '../../api/views';
import { resolveFees } from '../fees/schedules';
import type { FeeBreakdown } from '../fees/engine';
import { postDispute } from '../ledger/postings/dispute';
import { throughProvider, type ProviderAnswer, type ProviderOperation } from '../provider-call';
import { contextForPayment } from '../payments/payments';
import { forEachDue, type DueOptions } from '../due-work';
import type { Runtime } from '../../runtime';
import { formatMinor, type Money } from '../../domain/money';
import { filterWhere, iso, mapPage } from '../present';
import { newId } from '../../util/ids';

/**
 * Disputes (chargebacks). The acquirer opens one on a captured payment (openDispute, driven by its notification:
 * src/services/disputes/notifications.ts): needs_response, the merchant's available balance debited by amount + the
 * dispute fee, dispute.created. The merchant updates its evidence (dispute.updated), submits it (under_review,
 * dispute.updated; sent to the acquirer with no transaction open) or accepts (lost, dispute.lost; the acceptance sent to
 * the acquirer the same way). The acquirer decides (decideDispute): won credits the amount back (dispute.won; the fee
 * stays), lost posts nothing more (dispute.lost); a decision for a dispute closed otherwise is kept on it and told to
 * the tenant (dispute.late_decision), the status and the money left as they are. What was sent and never taken (the
 * sending died with its process) is sent again by the dispute-deadlines job.
 * A needs_response dispute past evidenceDueBy is lost (expireDueDisputes, the dispute-deadlines job). Every move is a
 * compare-and-set on the status in the row's lock, audited, its event in the same transaction. What open and lost
 * disputes took of a payment is kept on it (payments.disputedMinor): refunds never reach it (PAYMENT_DISPUTED).
 */

/** The full record (platform view); callers get it through `disputeFor`, which hides what their level may not see. */
export function toDispute(row: DisputeRow) {
  const money = (valueMinor: number): Money => ({ currency: row.currency, valueMinor });
  return {
    id: row.id,
    tenantId: row.tenantId,
    merchantId: row.merchantId,
    paymentId: row.paymentId,
    livemode: row.livemode,
    amount: money(row.amountMinor),
    fee: money(row.feeMinor),
    feeBreakdown: row.feeBreakdown,
    reason: row.reason,
    status: row.status,
    evidence: { ...row.evidence },
    evidenceDueBy: iso(row.evidenceDueBy)!,
    submittedAt: iso(row.submittedAt),
    closedAt: iso(row.closedAt),
    closedReason: row.closedReason,
    acquirerOutcome: row.acquirerOutcome ?? null,
    acquirerDecidedAt: iso(row.acquirerDecidedAt ?? null),
    providerReference: row.providerReference,
    createdAt: iso(row.createdAt)!,
    updatedAt: iso(row.updatedAt)!,
  };
}

export type Dispute = ReturnType<typeof toDispute>;

/** The record as a caller of `level` sees it, by DisputeSchema's marks (no provider reference or fee split for merchants). */
export function disputeFor(level: Level, row: DisputeRow): Dispute {
  return viewOf('dispute', toDispute(row), level);
}

const DISPUTE = auditedRecord<DisputeRow>({
  model: (ctx) => ctx.db.models.Dispute,
  targetType: 'dispute',
  owner: (row) => ({ tenantId: row.tenantId, merchantId: row.merchantId, livemode: row.livemode }),
  render: toDispute,
});

/** The dispute.* event announcing the record as it is now (rendered at each endpoint's level by DisputeSchema). */
function disputeEvent(type: string, row: DisputeRow): EmitInput {
  return {
    type,
    data: { object: 'dispute', ...toDispute(row) },
    tenantId: row.tenantId,
    merchantId: row.merchantId,
    livemode: row.livemode,
  };
}

function feeOf(row: DisputeRow): FeeBreakdown | null {
  return row.feeMinor > 0 ? (row.feeBreakdown as unknown as FeeBreakdown) : null;
}

function postingOf(row: DisputeRow, payment: Pick<PaymentRow, 'partnerId'>) {
  return {
    tenantId: row.tenantId,
    livemode: row.livemode,
    merchantId: row.merchantId,
    paymentId: row.paymentId,
    disputeId: row.id,
    providerIntegrationId: row.providerIntegrationId,
    partnerId: payment.partnerId,
    amount: { currency: row.currency, valueMinor: row.amountMinor },
    fee: feeOf(row),
  };
}

// ---------------------------------------------------------------------------------------------------- reads

export interface DisputeFilters {
  status?: DisputeStatus;
  paymentId?: string;
  merchantId?: string;
  reason?: DisputeReason;
}

export async function listDisputes(ctx: CallerContext, filters: DisputeFilters, page: ListParams): Promise<Page<Dispute>> {
  const where = filterWhere(filters, ['status', 'paymentId', 'merchantId', 'reason']);
  return mapPage(await scoped(ctx, ctx.db.models.Dispute).list(where, page), (row) => disputeFor(ctx.level, row));
}

export async function getDispute(ctx: CallerContext, id: string): Promise<Dispute> {
  return disputeFor(ctx.level, await scoped(ctx, ctx.db.models.Dispute).get(id));
}

// ---------------------------------------------------------------------------------------------------- moves

type DisputeMove = 'submit' | 'reopen' | 'accept' | 'expire' | 'win' | 'lose';

const DISPUTE_MACHINE = statusMachine<DisputeRow, DisputeMove, DisputeStatus>({
  record: DISPUTE,
  moves: {
    submit: { from: ['needs_response'], to: 'under_review', action: 'dispute.submitted', event: 'dispute.updated' },
    // the acquirer refused the evidence (or could not be reached): the merchant may submit again
    reopen: { from: ['under_review'], to: 'needs_response', action: 'dispute.submission_refused', event: 'dispute.updated' },
    accept: { from: ['needs_response'], to: 'lost', action: 'dispute.accepted', event: 'dispute.lost' },
    expire: { from: ['needs_response'], to: 'lost', action: 'dispute.expired', event: 'dispute.lost' },
    win: { from: ['needs_response', 'under_review'], to: 'won', action: 'dispute.won', event: 'dispute.won' },
    lose: { from: ['needs_response', 'under_review'], to: 'lost', action: 'dispute.lost', event: 'dispute.lost' },
  },
  event: disputeEvent,
  refused: (row, name, spec) =>
    new ConflictError(
      'INVALID_STATE_TRANSITION',
      `Dispute ${row.id} is ${row.status}: ${spec.name ?? name} needs a ${spec.from.join(' or ')} dispute.`,
    ),
});

function move(tx: CallerContext, row: DisputeRow, name: DisputeMove, changes: Partial<DisputeRow> = {}): Promise<DisputeRow> {
  return transition(tx, DISPUTE_MACHINE, row, name, { changes });
}

/** The evidence after the given changes: an empty string clears a field; fields left out keep their value. */
function mergedEvidence(current: DisputeEvidence, changes: DisputeEvidence | undefined): DisputeEvidence {
  const merged: DisputeEvidence = { ...current };
  for (const field of EVIDENCE_FIELDS) {
    const value = changes?.[field];
    if (value === undefined) continue;
    const text = value.trim();
    if (text) merged[field] = text;
    else delete merged[field];
  }
  return merged;
}

/** Updates the evidence of a needs_response dispute (dispute.updated); nothing is sent to the acquirer. */
export async function updateDispute(ctx: CallerContext, id: string, input: { evidence: DisputeEvidence }): Promise<Dispute> {
  const row = await inTransaction(ctx, async (tx) => {
    const current = await lockedRecord(tx, DISPUTE, id);
    if (current.status !== 'needs_response') {
      throw new ConflictError(
        'DISPUTE_NOT_EDITABLE',
        `Dispute ${id} is ${current.status}: its evidence can change only while it is needs_response.`,
      );
    }
    const updated = await scoped(tx, tx.db.models.Dispute).updateIf(
      current,
      { status: 'needs_response' },
      { evidence: mergedEvidence(current.evidence, input.evidence) },
    );
    if (!updated) throw new ConflictError('DISPUTE_NOT_EDITABLE', `Dispute ${id} changed meanwhile: try again.`);
    await auditRecord(tx, DISPUTE, current, 'dispute.updated', { before: toDispute(current), after: toDispute(updated) });
    await emitEvent(tx, disputeEvent('dispute.updated', updated));
    return updated;
  });
  return disputeFor(ctx.level, row);
}

/**
 * Concedes a needs_response dispute: lost (dispute.lost); the amount and fee stay debited. The move is committed
 * first, then the acquirer is told with no transaction open (throughProvider): the concession is the merchant's and
 * holds whatever the acquirer answers. Taken: acceptanceSentAt. Refused (it knows no such dispute, or closed it
 * already): recorded in the audit trail (dispute.acceptance_refused) and not sent again. Unreachable, or the sending
 * died with its process: sent again by the dispute-deadlines job (resendStalledAcceptances) until it answers.
 */
export async function acceptDispute(ctx: CallerContext, id: string): Promise<Dispute> {
  const row = await throughProvider(
    ctx,
    acceptanceOperation(async (tx) => {
      const current = await lockedRecord(tx, DISPUTE, id);
      return move(tx, current, 'accept', {
        closedAt: tx.clock.now(),
        closedBy: tx.actor.id,
        closedReason: 'accepted',
        acceptanceSentAt: null,
      });
    }),
  );
  return disputeFor(ctx.level, row);
}

/**
 * What the acquirer that holds a dispute is sent about it (its evidence, its acceptance): our reference, its reference
 * and its payment's, at the terminal that took the payment.
 */
async function atAcquirer(octx: CallerContext, dispute: DisputeRow) {
  const via = contextForPayment(octx, dispute);
  const payment = await scoped(via, via.db.models.Payment).get(dispute.paymentId);
  if (!payment.terminalId || !payment.providerReference)
    throw new InternalError(`payment ${payment.id} of dispute ${dispute.id} has no terminal`, 'DISPUTE_WITHOUT_TERMINAL');
  return {
    via,
    terminalId: payment.terminalId,
    request: {
      reference: dispute.id,
      tenantId: dispute.tenantId,
      livemode: dispute.livemode,
      providerReference: dispute.providerReference,
      paymentProviderReference: payment.providerReference,
    },
  };
}

/** The acceptance of an accepted dispute sent to the acquirer: recorded (the accept move), sent, the answer applied. */
function acceptanceOperation(record: ProviderOperation<DisputeRow, DisputeRow>['record']): ProviderOperation<DisputeRow, DisputeRow> {
  return {
    name: 'dispute acceptance',
    record,
    request: async (octx, accepted) => ({ ...(await atAcquirer(octx, accepted)), operation: 'dispute_accept' }),
    apply: async (tx, accepted, answer: ProviderAnswer) => {
      const current = await lockedRecord(tx, DISPUTE, accepted.id);
      // sent and answered before (a resend that met an earlier answer): nothing to record
      if (current.closedReason !== 'accepted' || current.acceptanceSentAt) return current;
      // not reached: left for the dispute-deadlines job to send again
      if (answer.unreachable) return current;
      const sent = await scoped(tx, tx.db.models.Dispute).updateIf(
        current,
        { closedReason: 'accepted', acceptanceSentAt: null },
        { acceptanceSentAt: tx.clock.now() },
      );
      if (!sent) return current;
      if (answer.result.status === 'declined' || answer.result.status === 'failed') {
        const reason = answer.result.message ?? answer.result.declineCode ?? 'no reason given';
        await auditRecord(tx, DISPUTE, sent, 'dispute.acceptance_refused', {
          before: toDispute(current),
          after: {
            ...toDispute(sent),
            acquirerAnswer: { status: answer.result.status, declineCode: answer.result.declineCode ?? null, message: reason },
          },
        });
      }
      return sent;
    },
  };
}

/**
 * Sends again the acceptance of every accepted dispute the acquirer never answered (its sending died with its
 * process, or the acquirer could not be reached), accepted more than SUBMISSION_STALL_MS ago: the acquirer takes our
 * reference once, so a repeat is harmless. Each through throughProvider. Returns how many the acquirer answered.
 */
export function resendStalledAcceptances(source: Runtime | CallerContext, options: DueOptions = {}): Promise<number> {
  return forEachDue<DisputeRow>(
    source,
    {
      model: (ctx) => ctx.db.models.Dispute,
      where: (now) => ({
        status: 'lost',
        closedReason: 'accepted',
        acceptanceSentAt: null,
        closedAt: { [Op.lte]: new Date(now.getTime() - SUBMISSION_STALL_MS) },
      }),
      order: [
        ['closedAt', 'ASC'],
        ['id', 'ASC'],
      ],
    },
    async (ctx, row) => (await throughProvider(ctx, acceptanceOperation({ recorded: row }))).acceptanceSentAt !== null,
    options,
  );
}

/**
 * Submits the evidence (with the changes given applied first): needs_response -> under_review (dispute.updated),
 * committed before the acquirer is asked (no provider call inside a transaction); the acquirer's decision arrives later
 * as a notification. When it refuses the evidence or cannot be reached, the dispute returns to needs_response
 * (dispute.updated) and the caller gets 422 DISPUTE_EVIDENCE_REFUSED or 503 PROVIDER_UNAVAILABLE. A submission whose
 * sending died with its process is sent again by resendStalledSubmissions.
 */
export async function submitDispute(ctx: CallerContext, id: string, input: { evidence?: DisputeEvidence }): Promise<Dispute> {
  const outcome = await throughProvider(
    ctx,
    evidenceOperation(async (tx) => {
      const current = await lockedRecord(tx, DISPUTE, id);
      const now = tx.clock.now();
      return move(tx, current, 'submit', {
        evidence: mergedEvidence(current.evidence, input.evidence),
        submittedAt: now,
        submittedBy: tx.actor.id,
      });
    }, 'reopen'),
  );
  if (outcome.refusal) throw outcome.refusal;
  return disputeFor(ctx.level, outcome.row);
}

/**
 * The evidence of an under_review dispute sent to the acquirer: recorded (the submit move), sent with no transaction
 * open, the answer applied after. Taken: evidenceSentAt. Refused: back to needs_response. Unreachable: back to
 * needs_response (`reopen`, the caller is told) or left for a later try (`keep`, the resending job).
 */
function evidenceOperation(
  record: ProviderOperation<DisputeRow, unknown>['record'],
  onUnreachable: 'reopen' | 'keep',
): ProviderOperation<DisputeRow, { row: DisputeRow; refusal: Error | null }> {
  return {
    name: 'dispute evidence',
    record: record as ProviderOperation<DisputeRow, { row: DisputeRow; refusal: Error | null }>['record'],
    request: async (octx, submitted) => {
      const { via, terminalId, request } = await atAcquirer(octx, submitted);
      return {
        via,
        terminalId,
        operation: 'dispute_evidence',
        request: { ...request, evidence: submitted.evidence as Record<string, string> },
      };
    },
    apply: async (tx, submitted, answer: ProviderAnswer) => {
      const current = await lockedRecord(tx, DISPUTE, submitted.id);
      // decided meanwhile (a fast acquirer), or moved by another: nothing to record
      if (current.status !== 'under_review') return { row: current, refusal: null };
      if (answer.unreachable) {
        const refusal = new UnavailableError(
          `The acquirer could not be reached (${answer.unreachable.message}); dispute ${current.id} is needs_response again: submit it again.`,
          'PROVIDER_UNAVAILABLE',
        );
        if (onUnreachable === 'keep') return { row: current, refusal };
        return { row: await move(tx, current, 'reopen', { submittedAt: null, submittedBy: null }), refusal };
      }
      if (answer.result.status === 'declined' || answer.result.status === 'failed') {
        const refusal = new BusinessRuleError(
          'DISPUTE_EVIDENCE_REFUSED',
          `The acquirer refused the evidence of dispute ${current.id}: ${answer.result.message ?? answer.result.declineCode ?? 'no reason given'}. It is needs_response again.`,
        );
        return { row: await move(tx, current, 'reopen', { submittedAt: null, submittedBy: null }), refusal };
      }
      const sent = await scoped(tx, tx.db.models.Dispute).updateIf(
        current,
        { status: 'under_review', evidenceSentAt: null },
        { evidenceSentAt: tx.clock.now() },
      );
      return { row: sent ?? current, refusal: null };
    },
  };
}

/** How long a submission may wait for its sending before the dispute-deadlines job sends it again. */
export const SUBMISSION_STALL_MS = 2 * 60_000;

/**
 * Sends again the evidence of every under_review dispute the acquirer never took (its sending died with its process),
 * submitted more than SUBMISSION_STALL_MS ago: the acquirer takes our reference once, so a repeat is harmless. Each
 * through throughProvider, no transaction open while the acquirer is asked. Returns how many the acquirer took.
 */
export function resendStalledSubmissions(source: Runtime | CallerContext, options: DueOptions = {}): Promise<number> {
  return forEachDue<DisputeRow>(
    source,
    {
      model: (ctx) => ctx.db.models.Dispute,
      where: (now) => ({
        status: 'under_review',
        evidenceSentAt: null,
        submittedAt: { [Op.lte]: new Date(now.getTime() - SUBMISSION_STALL_MS) },
      }),
      order: [
        ['submittedAt', 'ASC'],
        ['id', 'ASC'],
      ],
    },
    async (ctx, row) => {
      const outcome = await throughProvider(ctx, evidenceOperation({ recorded: row }, 'keep'));
      return outcome.refusal === null && outcome.row.evidenceSentAt !== null;
    },
    options,
  );
}

// ------------------------------------------------------------------------------------- the acquirer's side

export interface OpenDisputeInput {
  /** the disputed payment (in ctx's tenant and mode) */
  paymentId: string;
  amount: Money;
  reason: string;
  /** the acquirer's reference of the dispute: a notification applied again finds the dispute it opened */
  providerReference: string;
  evidenceDueBy: Date;
}

/**
 * Opens a dispute as the acquirer notified it (ctx: the payment path's tenant-level context, in a transaction or not):
 * needs_response, the dispute fee from the fee schedule, the ledger's dispute posting (available −(amount + fee),
 * balance.negative when it goes below zero), dispute.created. Idempotent on the acquirer's reference: a second
 * notification returns the dispute the first opened. 409 DISPUTE_ALREADY_OPEN when the payment has an open dispute.
 */
export async function openDispute(ctx: CallerContext, input: OpenDisputeInput): Promise<DisputeRow> {
  return inTransaction(ctx, async (tx) => {
    const payments = scoped(tx, tx.db.models.Payment);
    const payment = await payments.get(input.paymentId, { lock: true });
    const disputes = scoped(tx, tx.db.models.Dispute);
    const providerIntegrationId = payment.providerIntegrationId;
    if (!providerIntegrationId) throw new ConflictError('PAYMENT_NOT_DISPUTABLE', `Payment ${payment.id} was never sent to an acquirer.`);
    const known = await disputes.findOne({ providerIntegrationId, providerReference: input.providerReference });
    if (known) return known;
    if (payment.status !== 'captured' && payment.status !== 'partially_refunded' && payment.status !== 'refunded') {
      throw new ConflictError(
        'PAYMENT_NOT_DISPUTABLE',
        `Payment ${payment.id} is ${payment.status}: only a captured payment can be disputed.`,
      );
    }
    if (!DISPUTE_REASONS.includes(input.reason as DisputeReason))
      throw ValidationError.field('reason', `must be one of ${DISPUTE_REASONS.join(', ')}`);
    if (input.amount.currency !== payment.currency)
      throw ValidationError.field('amount.currency', `must be the payment's currency ${payment.currency}`);
    const amount = input.amount.valueMinor;
    if (!Number.isSafeInteger(amount) || amount <= 0 || amount > payment.capturedMinor) {
      throw ValidationError.field(
        'amount.valueMinor',
        `must be positive and at most the captured amount, ${formatMinor({ currency: payment.currency, valueMinor: payment.capturedMinor })} (${payment.capturedMinor} minor units)`,
      );
    }
    const open = await disputes.findOne({ paymentId: payment.id, status: { [Op.in]: ['needs_response', 'under_review'] } });
    if (open) throw new ConflictError('DISPUTE_ALREADY_OPEN', `Payment ${payment.id} has an open dispute (${open.id}).`);
    const now = tx.clock.now();
    const breakdown = await resolveFees(tx, {
      type: 'dispute',
      outcome: 'successful',
      amount: input.amount,
      method: payment.paymentMethodType,
      merchantId: payment.merchantId,
      terminalId: payment.terminalId,
      channelId: payment.channelId,
      partnerId: payment.partnerId,
      at: now,
    });
    const row = await disputes.create({
      id: newId(),
      tenantId: payment.tenantId,
      merchantId: payment.merchantId,
      paymentId: payment.id,
      livemode: payment.livemode,
      providerIntegrationId,
      currency: payment.currency,
      amountMinor: amount,
      feeMinor: breakdown.merchantFee,
      feeBreakdown: breakdown as unknown as Record<string, unknown>,
      reason: input.reason as DisputeReason,
      status: 'needs_response',
      evidence: {},
      evidenceDueBy: input.evidenceDueBy,
      submittedAt: null,
      evidenceSentAt: null,
      closedAt: null,
      providerReference: input.providerReference,
      submittedBy: null,
      closedBy: null,
      closedReason: null,
      acceptanceSentAt: null,
      acquirerOutcome: null,
      acquirerDecidedAt: null,
    });
    await payments.update(payment, { disputedMinor: payment.disputedMinor + amount });
    await postDispute(tx, 'open', postingOf(row, payment));
    await auditRecord(tx, DISPUTE, row, 'dispute.created', { after: toDispute(row) });
    await emitEvent(tx, disputeEvent('dispute.created', row));
    return row;
  });
}

/** The acquirer's decision the dispute holds: recorded, or (disputes decided before it was recorded) its closing. */
function acquirerOutcomeOf(row: DisputeRow): 'won' | 'lost' | null {
  if (row.acquirerOutcome) return row.acquirerOutcome;
  if (row.closedReason === 'acquirer_won') return 'won';
  if (row.closedReason === 'acquirer_lost') return 'lost';
  return null;
}

/**
 * Applies the acquirer's decision (ctx as for openDispute): won credits the amount back (dispute_reversal; the fee
 * stays) and releases it for refunds (dispute.won); lost posts nothing more (dispute.lost); either is kept as
 * acquirerOutcome. A decision for a dispute already closed otherwise (accepted, lost at the deadline, or decided
 * differently before) moves neither status nor money: it is kept on the dispute (acquirerOutcome, acquirerDecidedAt),
 * audited (dispute.late_decision) and told to the tenant (dispute.late_decision, tenant level) to reconcile.
 * Idempotent: the decision the dispute holds, delivered again, changes nothing.
 */
export async function decideDispute(
  ctx: CallerContext,
  input: { dispute: Pick<DisputeRow, 'id'>; outcome: 'won' | 'lost' },
): Promise<DisputeRow> {
  return inTransaction(ctx, async (tx) => {
    const found = await scoped(tx, tx.db.models.Dispute).get(input.dispute.id);
    // the payment first, then the dispute: the order openDispute and refunds take their locks in
    const payments = scoped(tx, tx.db.models.Payment);
    const payment = await payments.get(found.paymentId, { lock: true });
    const current = await lockedRecord(tx, DISPUTE, found.id);
    const now = tx.clock.now();
    if (current.status === 'won' || current.status === 'lost') {
      // this decision delivered before: nothing more
      if (acquirerOutcomeOf(current) === input.outcome) return current;
      // closed otherwise (acceptance, the deadline, or another decision): kept and told, the status and money as they are
      const kept = await scoped(tx, tx.db.models.Dispute).updateIf(
        current,
        { status: current.status, acquirerOutcome: current.acquirerOutcome },
        { acquirerOutcome: input.outcome, acquirerDecidedAt: now },
      );
      if (!kept) return scoped(tx, tx.db.models.Dispute).get(current.id);
      await auditRecord(tx, DISPUTE, current, 'dispute.late_decision', { before: toDispute(current), after: toDispute(kept) });
      await emitEvent(tx, disputeEvent('dispute.late_decision', kept));
      return kept;
    }
    const closedReason = input.outcome === 'won' ? 'acquirer_won' : 'acquirer_lost';
    const moved = await move(tx, current, input.outcome === 'won' ? 'win' : 'lose', {
      closedAt: now,
      closedBy: tx.actor.id,
      closedReason,
      acquirerOutcome: input.outcome,
      acquirerDecidedAt: now,
    });
    if (input.outcome === 'won') {
      await payments.update(payment, { disputedMinor: Math.max(0, payment.disputedMinor - moved.amountMinor) });
      await postDispute(tx, 'won', postingOf(moved, payment));
    }
    return moved;
  });
}

// ------------------------------------------------------------------------------------------ the deadline

/**
 * Every needs_response dispute whose evidenceDueBy has passed becomes lost (dispute.lost), once: each by a
 * compare-and-set on its status in its own transaction, so several processes may run this at once. With a Runtime,
 * over every tenant in both modes. Returns how many it closed.
 */
export function expireDueDisputes(source: Runtime | CallerContext, options: DueOptions = {}): Promise<number> {
  return forEachDue<DisputeRow>(
    source,
    {
      model: (ctx) => ctx.db.models.Dispute,
      where: (now) => ({ status: 'needs_response', evidenceDueBy: { [Op.lte]: now } }),
      order: [
        ['evidenceDueBy', 'ASC'],
        ['id', 'ASC'],
      ],
    },
    async (ctx, row, now) =>
      inTransaction(ctx, async (tx) => {
        const current = await scoped(tx, tx.db.models.Dispute).find(row.id, { lock: true });
        if (!current || current.status !== 'needs_response' || new Date(current.evidenceDueBy).getTime() > now.getTime()) return false;
        try {
          await move(tx, current, 'expire', { closedAt: now, closedReason: 'evidence_deadline' });
          return true;
        } catch (error) {
          // another process closed it first
          if (error instanceof ConflictError) return false;
          throw error;
        }
      }),
    options,
  );
}
