import { v5 as uuidv5 } from 'uuid';
import { inTransaction, type CallerContext, type Level } from '../domain/context';
import { elevate } from '../domain/authority';
import { BusinessRuleError, ConflictError, NotFoundError, PermissionError, UnavailableError, ValidationError } from '../domain/errors';
import type { ChannelRow } from '../db/models/channels';
import type { TenantRow } from '../db/models';
import type { WithdrawalRow, WithdrawalStatus } from '../db/models/withdrawals';
import { scoped, type ListParams, type Page } from '../db/scoped';
import { isUniqueViolation } from '../db/database';
import { payoutRequest, throughProvider } from './provider-call';
import { recordAudit } from './audit/entries';
import { auditRecord, auditedRecord, lockedRecord } from './audit/changes';
import { statusMachine, transition } from './status';
import { emitEvent, type EmitInput } from './webhooks/events';
import { viewOf } from '../api/views';
import { resolveFees } from './fees/schedules';
import type { FeeBreakdown } from './fees/engine';
import { balancesOf } from './ledger/balances';
import { postWithdrawal, withdrawalTotal } from './ledger/postings/withdrawal';
import { targetMerchant } from './organization/merchant-target';
import { activePartnerOf } from './partners';
import { enforceEntityLimits } from './limits/usage';
import { usableMethod } from './withdrawal-methods/methods';
import { formatMinor, type Money } from '../domain/money';
import { iso, mapPage } from './present';
import { newId } from '../util/ids';

/**
 * Withdrawals: a merchant takes money out of its available balance to a saved, active withdrawal method through a
 * payout channel; operators approve (or reject) and execute, by hand outside the system or through the channel's
 * payout provider.
 *
 * States: pending → approved | rejected | canceled; approved → executing; executing → completed | failed.
 * Ledger: creation holds amount + fee (available → payable); reject, cancel and fail release it (payable →
 * available); completion pays it out (payable → payout clearing of the channel, fee → revenue accounts).
 * Every move is a compare-and-set on the status inside the row's lock, so a move happens once whatever the
 * concurrency (a second operator starting an execution gets 409), and emits its event and audit entry in the same
 * transaction. Maker-checker (the tenant's withdrawalMakerChecker): the creator cannot approve, the approver cannot
 * start the execution.
 */

export interface CreateWithdrawalInput {
  amount: Money;
  withdrawalMethodId: string;
  withdrawalChannelId?: string;
  merchantId?: string;
}

/** fundingAccountId names the merchant's balance in one currency: the same id for every withdrawal from it. */
const FUNDING_ACCOUNT_NAMESPACE = '5b0c1f7e-3d2a-4e69-9a51-0d8f6c3b2a17';

export function fundingAccountId(merchantId: string, currency: string): string {
  return uuidv5(`merchant_available:${merchantId}:${currency}`, FUNDING_ACCOUNT_NAMESPACE);
}

/** The full record (platform view); callers get it through `withdrawalFor`, which hides what their level may not see. */
export function toWithdrawal(row: WithdrawalRow) {
  const money = (valueMinor: number): Money => ({ currency: row.currency, valueMinor });
  return {
    id: row.id,
    tenantId: row.tenantId,
    entityType: row.entityType,
    entityId: row.merchantId,
    fundingAccountId: row.fundingAccountId,
    withdrawalChannelId: row.withdrawalChannelId,
    withdrawalMethodId: row.withdrawalMethodId,
    livemode: row.livemode,
    currency: row.currency,
    amount: money(row.amountMinor),
    fee: money(row.feeMinor),
    feeBreakdown: row.feeBreakdown,
    destination: { type: row.destinationType, details: row.destinationMasked },
    status: row.status,
    failureReason: row.failureReason,
    rejectionReason: row.rejectionReason,
    executionComment: row.executionComment,
    providerReference: row.providerReference,
    idempotencyKey: row.idempotencyKey,
    createdAt: iso(row.createdAt)!,
    approvedAt: iso(row.approvedAt),
    rejectedAt: iso(row.rejectedAt),
    canceledAt: iso(row.canceledAt),
    executedAt: iso(row.executedAt),
    completedAt: iso(row.completedAt),
    failedAt: iso(row.failedAt),
    updatedAt: iso(row.updatedAt)!,
    createdBy: row.createdBy,
    approvedBy: row.approvedBy,
    rejectedBy: row.rejectedBy,
    canceledBy: row.canceledBy,
    executedBy: row.executedBy,
    completedBy: row.completedBy,
    failedBy: row.failedBy,
  };
}

export type Withdrawal = ReturnType<typeof toWithdrawal>;

/** The record as a caller of `level` sees it, by WithdrawalSchema's marks (no provider reference or fee split for merchants). */
export function withdrawalFor(level: Level, row: WithdrawalRow): Withdrawal {
  return viewOf('withdrawal', toWithdrawal(row), level);
}

function feeOf(row: WithdrawalRow): FeeBreakdown | null {
  return row.feeMinor > 0 ? (row.feeBreakdown as unknown as FeeBreakdown) : null;
}

function postingOf(row: WithdrawalRow) {
  return {
    tenantId: row.tenantId,
    livemode: row.livemode,
    merchantId: row.merchantId,
    withdrawalId: row.id,
    amount: { currency: row.currency, valueMinor: row.amountMinor },
    fee: feeOf(row),
  };
}

/** Withdrawals as their audit entries name and show them: the record as the API renders it (at the reader's level). */
const WITHDRAWAL = auditedRecord<WithdrawalRow>({
  model: (ctx) => ctx.db.models.Withdrawal,
  targetType: 'withdrawal',
  owner: (row) => ({ tenantId: row.tenantId, merchantId: row.merchantId, livemode: row.livemode }),
  render: toWithdrawal,
});

/** The withdrawal.* event announcing the record as it is now. */
function withdrawalEvent(type: string, row: WithdrawalRow): EmitInput {
  return {
    type,
    data: { object: 'withdrawal', ...toWithdrawal(row) },
    tenantId: row.tenantId,
    merchantId: row.merchantId,
    livemode: row.livemode,
  };
}

/** The payout channel a withdrawal goes out through: the one named (active, payout, carrying the currency), else the tenant's first such. */
export async function payoutChannel(tx: CallerContext, channelId: string | undefined, currency: string): Promise<ChannelRow> {
  const channels = scoped(tx, tx.db.models.Channel);
  if (channelId) {
    const field = 'body.withdrawalChannelId';
    const channel = await channels.find(channelId);
    if (!channel) throw new NotFoundError('channel', channelId, { errors: [{ path: field, message: 'no such channel' }] });
    if (channel.direction !== 'payout') throw ValidationError.field(field, 'must be a payout channel');
    if (channel.status !== 'active') throw new BusinessRuleError('CHANNEL_NOT_ACTIVE', `Channel ${channel.id} is ${channel.status}.`);
    if (!channel.currencies.includes(currency))
      throw ValidationError.field(field, `does not carry ${currency} (${channel.currencies.join(', ')})`);
    return channel;
  }
  const candidates = await channels.findAll({ direction: 'payout', status: 'active' });
  const channel = candidates
    .filter((c) => c.currencies.includes(currency))
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1))[0];
  if (!channel) throw new BusinessRuleError('NO_PAYOUT_CHANNEL', `The tenant has no active payout channel for ${currency}.`);
  return channel;
}

/**
 * Requests a withdrawal under the caller's Idempotency-Key, which it keeps (idempotencyKey). Replays and reuse of the
 * key are runIdempotent's (the API requires the key: requireIdempotencyKey); a merchant's key names one withdrawal
 * whoever asked (a unique index): another caller's request under it is 409 IDEMPOTENCY_KEY_REUSED.
 */
export async function createWithdrawal(ctx: CallerContext, input: CreateWithdrawalInput, idempotencyKey: string): Promise<Withdrawal> {
  const currency = input.amount.currency;
  const row = await inTransaction(ctx, async (tx) => {
    // one withdrawal request of a merchant at a time: its balance is read and held under this lock
    const merchant = await targetMerchant(tx, input.merchantId, 'body.merchantId', { lock: true });
    const withdrawals = scoped(tx, tx.db.models.Withdrawal);
    if (merchant.status !== 'active')
      throw new ConflictError('MERCHANT_NOT_ACTIVE', `The merchant is ${merchant.status}; it cannot request withdrawals.`);
    const { method, type, details } = await usableMethod(tx, input.withdrawalMethodId, merchant.id, currency);
    const channel = await payoutChannel(tx, input.withdrawalChannelId, currency);
    await enforceEntityLimits(
      tx,
      { merchantId: merchant.id, channelId: channel.id },
      { transactionType: 'withdrawal', currency, valueMinor: input.amount.valueMinor, paymentMethod: type.paymentMethod },
      tx.clock.now(),
    );
    const partnerId = await activePartnerOf(tx, merchant.id);
    const breakdown = await resolveFees(tx, {
      type: 'withdrawal',
      outcome: 'successful',
      amount: input.amount,
      method: type.paymentMethod,
      merchantId: merchant.id,
      channelId: channel.id,
      partnerId,
      at: tx.clock.now(),
    });
    const fee = breakdown.merchantFee;
    const total = withdrawalTotal({ amount: input.amount, fee: fee > 0 ? breakdown : null });
    const [balance] = await balancesOf(
      elevate(tx, 'tenant', 'the merchant balance a withdrawal draws on', { tenantId: merchant.tenantId }),
      { merchantId: merchant.id, currency },
    );
    const available = balance?.available.valueMinor ?? 0;
    if (available < total) {
      throw new BusinessRuleError(
        'INSUFFICIENT_BALANCE',
        `The available ${currency} balance (${formatMinor({ currency, valueMinor: available })}) does not cover the withdrawal of ${formatMinor({ currency, valueMinor: input.amount.valueMinor })} plus its fee of ${formatMinor({ currency, valueMinor: fee })}.`,
      );
    }
    const created = await withdrawals
      .create({
        id: newId(),
        tenantId: merchant.tenantId,
        merchantId: merchant.id,
        livemode: tx.livemode,
        entityType: 'merchant',
        fundingAccountId: fundingAccountId(merchant.id, currency),
        withdrawalChannelId: channel.id,
        withdrawalMethodId: method.id,
        currency,
        amountMinor: input.amount.valueMinor,
        feeMinor: fee,
        feeBreakdown: { ...breakdown, partnerId } as unknown as Record<string, unknown>,
        destinationType: method.methodType,
        destinationSealed: tx.sealer.seal(JSON.stringify(details)),
        destinationMasked: method.detailsMasked,
        status: 'pending',
        failureReason: null,
        rejectionReason: null,
        executionComment: null,
        providerReference: null,
        idempotencyKey,
        approvedAt: null,
        rejectedAt: null,
        canceledAt: null,
        executedAt: null,
        completedAt: null,
        failedAt: null,
        createdBy: tx.actor.id,
        approvedBy: null,
        rejectedBy: null,
        canceledBy: null,
        executedBy: null,
        completedBy: null,
        failedBy: null,
      })
      .catch((error: unknown) => {
        if (!isUniqueViolation(error)) throw error;
        throw new ConflictError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used for another withdrawal request.');
      });
    await postWithdrawal(tx, 'hold', postingOf(created));
    await emitEvent(tx, withdrawalEvent('withdrawal.created', created));
    await auditRecord(tx, WITHDRAWAL, created, 'withdrawal.created', { after: toWithdrawal(created) });
    return created;
  });
  return withdrawalFor(ctx.level, row);
}

export interface WithdrawalFilters {
  status?: WithdrawalStatus;
  entityId?: string;
  currency?: string;
}

export async function listWithdrawals(ctx: CallerContext, filters: WithdrawalFilters, page: ListParams): Promise<Page<Withdrawal>> {
  const where: Record<string, unknown> = {};
  if (filters.status) where.status = filters.status;
  if (filters.entityId) where.merchantId = filters.entityId;
  if (filters.currency) where.currency = filters.currency;
  return mapPage(await scoped(ctx, ctx.db.models.Withdrawal).list(where, page), (row) => withdrawalFor(ctx.level, row));
}

export async function getWithdrawal(ctx: CallerContext, id: string): Promise<Withdrawal> {
  return withdrawalFor(ctx.level, await scoped(ctx, ctx.db.models.Withdrawal).get(id));
}

/**
 * The full destination of a withdrawal, for the operator who pays it out by hand (never part of an API answer). Each
 * reveal to a person is audited (withdrawal.destination_revealed); `toProvider` marks the one read to send the payout.
 */
export async function revealDestination(
  ctx: CallerContext,
  id: string,
  options: { toProvider?: boolean } = {},
): Promise<{ type: string; details: Record<string, string> }> {
  return inTransaction(ctx, async (tx) => {
    const row = await scoped(tx, tx.db.models.Withdrawal).get(id);
    if (!options.toProvider) {
      await recordAudit(tx, {
        action: 'withdrawal.destination_revealed',
        targetType: 'withdrawal',
        targetId: row.id,
        tenantId: row.tenantId,
        merchantId: row.merchantId,
        livemode: row.livemode,
        after: { destination: { type: row.destinationType, details: row.destinationMasked } },
      });
    }
    return { type: row.destinationType, details: JSON.parse(tx.sealer.open(row.destinationSealed)) as Record<string, string> };
  });
}

// ---------------------------------------------------------------------------------------------------- moves

/** What a move of the machine does besides its status: its other changes (from the caller's input), checks, ledger posting. */
interface MoveEffects<I> {
  /** the moved row's other changes */
  changes(tx: CallerContext, row: WithdrawalRow, input: I): Partial<WithdrawalRow>;
  /** refuses the move for this caller or in this situation (maker-checker, the executor's own, a suspended method) */
  checks?: ((tx: CallerContext, row: WithdrawalRow, tenant: TenantRow) => void | Promise<void>)[];
  /** the ledger posting of the move */
  ledger?: 'release' | 'complete';
}

/**
 * Money still goes out only to a method the operators have not suspended, for a merchant still active: checked again
 * when a withdrawal is approved and when its execution starts (a deleted method's withdrawals keep their destination).
 */
async function stillPayable(tx: CallerContext, row: WithdrawalRow): Promise<void> {
  const method = await scoped(tx, tx.db.models.MerchantWithdrawalMethod).find(row.withdrawalMethodId, { lock: true });
  if (method?.status === 'suspended') {
    throw new BusinessRuleError(
      'WITHDRAWAL_METHOD_NOT_ACTIVE',
      `Withdrawal ${row.id} pays out to method ${method.id}, which is suspended: reject the withdrawal, or reactivate the method first.`,
    );
  }
  const merchant = await scoped(tx, tx.db.models.Merchant).find(row.merchantId);
  if (merchant && merchant.status !== 'active') {
    throw new ConflictError(
      'MERCHANT_NOT_ACTIVE',
      `The merchant of withdrawal ${row.id} is ${merchant.status}: reject the withdrawal, or reactivate the merchant first.`,
    );
  }
}

/** Only the operator who started an execution records how it ended: another could release funds that already left. */
function executorOnly(what: string) {
  return (tx: CallerContext, row: WithdrawalRow) => {
    if (row.executedBy !== tx.actor.id) {
      throw new ConflictError(
        'EXECUTION_OWNED_BY_OTHER',
        `Withdrawal ${row.id} is being executed by ${row.executedBy}: only that operator may ${what} it (you are ${tx.actor.id}).`,
      );
    }
  };
}

function makerChecker(role: 'creator' | 'approver', what: string) {
  return (tx: CallerContext, row: WithdrawalRow, tenant: TenantRow) => {
    if (!tenant.withdrawalMakerChecker) return;
    const other = role === 'creator' ? row.createdBy : row.approvedBy;
    if (other !== null && other === tx.actor.id) {
      throw new PermissionError(
        `Maker-checker is on for this tenant: the ${role} of withdrawal ${row.id} cannot ${what} it; another operator must.`,
        'MAKER_CHECKER_VIOLATION',
      );
    }
  };
}

async function moveWithdrawal<I>(ctx: CallerContext, id: string, name: WithdrawalMove, input: I): Promise<Withdrawal> {
  const move = EFFECTS[name] as MoveEffects<I>;
  const row = await inTransaction(ctx, async (tx) => {
    const moved = await transition(tx, WITHDRAWAL_MACHINE, await lockedRecord(tx, WITHDRAWAL, id), name, {
      check:
        move.checks &&
        (async (current, c) => {
          const tenant = await scoped(c, c.db.models.Tenant).get(current.tenantId);
          for (const check of move.checks!) await check(c, current, tenant);
        }),
      changes: (current, c) => move.changes(c, current, input),
    });
    if (move.ledger === 'release') await postWithdrawal(tx, 'release', postingOf(moved));
    if (move.ledger === 'complete') {
      const channel = await scoped(tx, tx.db.models.Channel).find(moved.withdrawalChannelId);
      await postWithdrawal(tx, 'complete', {
        ...postingOf(moved),
        channelId: moved.withdrawalChannelId,
        providerIntegrationId: channel?.providerIntegrationId ?? null,
        partnerId: (moved.feeBreakdown as { partnerId?: string | null } | null)?.partnerId ?? null,
      });
    }
    return moved;
  });
  return withdrawalFor(ctx.level, row);
}

/** A mandatory text, trimmed; checked before any lock is taken, so a refused input changes nothing. */
const required = (value: string | undefined, path: string, what: string): string => {
  const text = value?.trim();
  if (!text) throw ValidationError.field(path, `is required: ${what}`);
  return text;
};

type WithdrawalMove = 'cancel' | 'approve' | 'reject' | 'start' | 'complete' | 'fail';

/** The withdrawal status machine: each move's statuses, audit action and event, moved by transition (src/services/status.ts). */
const WITHDRAWAL_MACHINE = statusMachine<WithdrawalRow, WithdrawalMove, WithdrawalStatus>({
  record: WITHDRAWAL,
  moves: {
    cancel: { from: ['pending'], to: 'canceled', action: 'withdrawal.canceled', event: 'withdrawal.canceled' },
    approve: { from: ['pending'], to: 'approved', action: 'withdrawal.approved', event: 'withdrawal.approved' },
    reject: { from: ['pending'], to: 'rejected', action: 'withdrawal.rejected', event: 'withdrawal.rejected' },
    start: { from: ['approved'], to: 'executing', action: 'withdrawal.execution_started', name: 'start execution' },
    complete: { from: ['executing'], to: 'completed', action: 'withdrawal.completed', event: 'withdrawal.succeeded' },
    fail: { from: ['executing'], to: 'failed', action: 'withdrawal.failed', event: 'withdrawal.failed' },
  },
  event: withdrawalEvent,
  refused: (row, name, spec) => {
    const already = row.status === 'executing' && spec.to === 'executing' ? ` (already being executed by ${row.executedBy})` : '';
    const needs = `${spec.name ?? name} needs a ${spec.from.join(' or ')} withdrawal`;
    return new ConflictError('INVALID_STATE_TRANSITION', `Withdrawal ${row.id} is ${row.status}${already}: ${needs}.`);
  },
});

const EFFECTS = {
  cancel: {
    ledger: 'release',
    changes: (tx) => ({ canceledAt: tx.clock.now(), canceledBy: tx.actor.id }),
  } satisfies MoveEffects<void>,
  approve: {
    checks: [makerChecker('creator', 'approve'), stillPayable],
    changes: (tx) => ({ approvedAt: tx.clock.now(), approvedBy: tx.actor.id }),
  } satisfies MoveEffects<void>,
  reject: {
    ledger: 'release',
    changes: (tx, _row, rejectionReason: string) => ({ rejectedAt: tx.clock.now(), rejectedBy: tx.actor.id, rejectionReason }),
  } satisfies MoveEffects<string>,
  start: {
    checks: [makerChecker('approver', 'execute'), stillPayable],
    changes: (tx) => ({ executedAt: tx.clock.now(), executedBy: tx.actor.id }),
  } satisfies MoveEffects<void>,
  complete: {
    ledger: 'complete',
    checks: [executorOnly('complete')],
    changes: (tx, row, input: { providerReference?: string; comment?: string }) => ({
      completedAt: tx.clock.now(),
      completedBy: tx.actor.id,
      providerReference: input.providerReference?.trim() || row.providerReference,
      executionComment: input.comment?.trim() || row.executionComment,
    }),
  } satisfies MoveEffects<{ providerReference?: string; comment?: string }>,
  fail: {
    ledger: 'release',
    checks: [executorOnly('fail')],
    changes: (tx, row, input: { comment: string; providerReference?: string }) => ({
      failedAt: tx.clock.now(),
      failedBy: tx.actor.id,
      executionComment: input.comment,
      failureReason: input.comment,
      providerReference: input.providerReference?.trim() || row.providerReference,
    }),
  } satisfies MoveEffects<{ comment: string; providerReference?: string }>,
} as const satisfies Record<WithdrawalMove, unknown>;

export const cancelWithdrawal = (ctx: CallerContext, id: string) => moveWithdrawal(ctx, id, 'cancel', undefined);
export const approveWithdrawal = (ctx: CallerContext, id: string) => moveWithdrawal(ctx, id, 'approve', undefined);
export const startExecution = (ctx: CallerContext, id: string) => moveWithdrawal(ctx, id, 'start', undefined);

export function rejectWithdrawal(ctx: CallerContext, id: string, input: { rejectionReason?: string }): Promise<Withdrawal> {
  const reason = required(input.rejectionReason, 'body.rejectionReason', 'say why the withdrawal is rejected');
  return moveWithdrawal(ctx, id, 'reject', reason);
}

export function completeWithdrawal(
  ctx: CallerContext,
  id: string,
  input: { providerReference?: string; comment?: string },
): Promise<Withdrawal> {
  return moveWithdrawal(ctx, id, 'complete', input);
}

export function failWithdrawal(
  ctx: CallerContext,
  id: string,
  input: { comment?: string; providerReference?: string },
): Promise<Withdrawal> {
  const comment = required(input.comment, 'body.comment', 'say why the withdrawal failed');
  return moveWithdrawal(ctx, id, 'fail', { ...input, comment });
}

/**
 * Takes the execution of a withdrawal for this actor: starts it when approved, or resumes one the same actor started
 * (executing with executedBy = this actor, e.g. after a crash or an operator's "not yet"). Anything else is 409: another
 * operator's execution is theirs to close. Used by executeViaProvider and the CLI's `withdrawals execute`.
 */
export async function claimExecution(ctx: CallerContext, id: string): Promise<Withdrawal> {
  const current = await scoped(ctx, ctx.db.models.Withdrawal).get(id);
  if (current.status === 'approved') return startExecution(ctx, id);
  if (current.status !== 'executing') {
    throw new ConflictError(
      'INVALID_STATE_TRANSITION',
      `Withdrawal ${id} is ${current.status}: only an approved withdrawal (or one you started executing) can be executed.`,
    );
  }
  executorOnly('record the result of')(ctx, current);
  return withdrawalFor(ctx.level, current);
}

// ------------------------------------------------------------------------------------------ via the provider

/** The tenant's active payout terminal on the channel's provider integration carrying the currency. */
async function payoutTerminalId(tx: CallerContext, row: WithdrawalRow): Promise<string> {
  return payoutTerminalOf(tx, row.withdrawalChannelId, row.currency, 'execute the withdrawal outside the system and record the result');
}

/** The tenant's active payout terminal on the channel's provider integration carrying the currency (withdrawals, payouts). */
export async function payoutTerminalOf(tx: CallerContext, channelId: string, currency: string, otherwise: string): Promise<string> {
  const channel = await scoped(tx, tx.db.models.Channel).get(channelId);
  if (!channel.providerIntegrationId) {
    throw new BusinessRuleError('CHANNEL_HAS_NO_PROVIDER', `Channel ${channel.id} has no provider integration: ${otherwise}.`);
  }
  const terminals = await scoped(tx, tx.db.models.Terminal).findAll({
    providerIntegrationId: channel.providerIntegrationId,
    direction: 'payout',
    status: 'active',
  });
  const terminal = terminals
    .filter((t) => t.supportedCurrencies.length === 0 || t.supportedCurrencies.includes(currency))
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())[0];
  if (!terminal) {
    throw new BusinessRuleError(
      'NO_PAYOUT_TERMINAL',
      `No active payout terminal on channel ${channel.id}'s provider carries ${currency}: create one, or ${otherwise}.`,
    );
  }
  return terminal.id;
}

/**
 * Executes a withdrawal through its channel's payout provider: starts the execution when approved (or resumes one this
 * actor started, e.g. after a crash: providers take our reference once), sends the payout, and closes the withdrawal
 * with the provider's answer (completed with its reference, or failed with its message). When the provider cannot be
 * reached the withdrawal stays executing (503): retry, or record the result by hand.
 */
export async function executeViaProvider(ctx: CallerContext, id: string): Promise<Withdrawal> {
  return throughProvider(ctx, {
    name: 'payout',
    // the execution (executing, executedBy) is the claim: another operator gets 409; a refused start changes nothing
    record: async (tx) => {
      await claimExecution(tx, id);
      const row = await scoped(tx, tx.db.models.Withdrawal).get(id);
      return { row, terminalId: await payoutTerminalId(tx, row), destination: await revealDestination(tx, id, { toProvider: true }) };
    },
    request: async (octx, intent) => payoutRequest(octx, intent),
    apply: async (tx, _intent, answer) => {
      if (answer.unreachable) {
        throw new UnavailableError(
          `The payout provider could not be reached (${answer.unreachable.message}); withdrawal ${id} stays executing: retry, or record the result.`,
          'PROVIDER_UNAVAILABLE',
        );
      }
      const { result } = answer;
      // a provider's reference is kept as given, within the column's 255 characters
      const reference = result.providerReference?.slice(0, 255) ?? undefined;
      if (result.status === 'succeeded')
        return completeWithdrawal(tx, id, { providerReference: reference, comment: 'Paid out through the payout provider.' });
      if (result.status === 'declined' || result.status === 'failed') {
        return failWithdrawal(tx, id, {
          comment: `The payout provider refused the payout: ${result.message ?? result.declineCode ?? result.rawStatus ?? 'no reason given'}`,
          providerReference: reference,
        });
      }
      // accepted, answer to come: keep the provider's reference on the executing withdrawal
      const withdrawals = scoped(tx, tx.db.models.Withdrawal);
      const again = await withdrawals.get(id, { lock: true });
      return withdrawalFor(
        tx.level,
        again.status === 'executing' ? await withdrawals.update(again, { providerReference: reference ?? again.providerReference }) : again,
      );
    },
  });
}
