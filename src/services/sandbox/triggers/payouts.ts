import { BusinessRuleError, UnavailableError } from '../../../domain/errors';
import { inTransaction, type CallerContext } from '../../../domain/context';
import type { Runtime } from '../../../runtime';
import { scoped } from '../../../db/scoped';
import { runSandboxUntil } from '../answers';
import { createSession, getSession } from '../../checkout/sessions';
import { completeCheckoutSession } from '../../checkout/completion';
import { getPayment } from '../../payments/payments';
import { balancesOf } from '../../ledger/balances';
import { coolingHours, createWithdrawalMethod, deleteWithdrawalMethod, usableMethod } from '../../withdrawal-methods/methods';
import type { Clock } from '../../../domain/clock';
import { runOneOffPayout } from '../../payouts/run';
import {
  approveWithdrawal,
  cancelWithdrawal,
  completeWithdrawal,
  createWithdrawal,
  failWithdrawal,
  rejectWithdrawal,
  startExecution,
} from '../../withdrawals';
import { operatorContext } from '../../access/operators';
import { SANDBOX_FAILING_IBAN } from '../../../connectors/sandbox-payout';
import { eventsOf, triggered, type EmittedEvent, type TriggeredReal, payingCurrency } from './events';

/**
 * `events trigger payout.*`: real sandbox records, as a scheduled run makes them. A sandbox card payment whose funds
 * are available at once (4000 0000 0000 0077) of 25.00 (plus what brings a negative available balance back to zero)
 * makes 25.00 less its fee available; a one-off schedule run of the payouts job then pays that much out (no more of
 * the balance) to a bank_account method of the merchant the
 * trigger keeps for it: for payout.created and payout.succeeded the sandbox IBAN DE89 3704 0044 0532 0130 00, which
 * the sandbox payout provider pays (payout.created, then payout.succeeded), for payout.failed the sandbox's failing
 * IBAN (SANDBOX_FAILING_IBAN), which it refuses (payout.created, then payout.failed). The methods are saved on first
 * use as if one cooling period ago: active at once.
 */

export const PAYOUT_TRIGGER_TYPES = ['payout.created', 'payout.succeeded', 'payout.failed'] as const;

export function drivesRealPayout(type: string): boolean {
  return (PAYOUT_TRIGGER_TYPES as readonly string[]).includes(type);
}

export interface TriggeredPayout extends TriggeredReal {
  merchantId: string;
  /** the sandbox payment that funded it */
  paymentId: string;
  payoutId: string;
  payoutStatus: string;
  withdrawalMethodId: string;
  /** every event the payment, its session and the payout emitted, oldest first */
  events: EmittedEvent[];
}

const FUNDING_CARD = '4000000000000077';
const AMOUNT_MINOR = 2500;
const SUCCEEDING_IBAN = 'DE89370400440532013000';
const METHODS = {
  pays: { label: 'Sandbox payouts (events trigger)', iban: SUCCEEDING_IBAN },
  fails: { label: 'Sandbox failing IBAN (events trigger)', iban: SANDBOX_FAILING_IBAN },
};

const HOUR_MS = 3_600_000;

/** A runtime whose clock reads `ms` earlier than `rt`'s. */
function runtimeEarlier(rt: Runtime, ms: number): Runtime {
  const clock: Clock = { now: () => new Date(rt.clock.now().getTime() - ms) };
  return Object.assign(Object.create(rt) as Runtime, { clock });
}

/**
 * The merchant's method the trigger pays to, active. Saved on first use as if one cooling period ago (the trigger's
 * own sandbox IBAN, in test mode): a fresh sandbox pays out at once; one of these still cooling (saved before) is
 * deleted and saved so again. A method an operator suspended stays so: the trigger refuses (EVENT_NOT_PRODUCED)
 * before paying anything.
 */
async function triggerMethod(rt: Runtime, ctx: CallerContext, which: keyof typeof METHODS, currency: string): Promise<string> {
  const { label, iban } = METHODS[which];
  let existing = await scoped(ctx, ctx.db.models.MerchantWithdrawalMethod).findOne({ merchantId: ctx.merchantId!, label, deletedAt: null });
  if (existing?.status === 'cooling' && existing.activatesAt && new Date(existing.activatesAt).getTime() > rt.clock.now().getTime()) {
    await deleteWithdrawalMethod(ctx, existing.id);
    existing = null;
  }
  let id = existing?.id;
  if (!id) {
    const hours = await coolingHours(ctx, ctx.tenantId!);
    const savedBefore = operatorContext(runtimeEarlier(rt, hours * HOUR_MS), {
      level: 'merchant',
      tenantId: ctx.tenantId!,
      merchantId: ctx.merchantId!,
      livemode: false,
    });
    id = (
      await createWithdrawalMethod(savedBefore, {
        methodType: 'bank_account',
        label,
        details: { iban, accountHolderName: 'Sandbox Merchant' },
      })
    ).id;
  }
  const methodId = id;
  try {
    await inTransaction(ctx, (tx) => usableMethod(tx, methodId, ctx.merchantId!, currency, '--merchant'));
  } catch (error) {
    const method = await scoped(ctx, ctx.db.models.MerchantWithdrawalMethod).get(methodId);
    throw new BusinessRuleError(
      'EVENT_NOT_PRODUCED',
      `The merchant's withdrawal method "${label}" (${methodId}) is ${method.status}: withdrawals and payouts go to active methods only.`,
      {
        hint: `Reactivate it (payplane withdrawal-methods reactivate ${methodId}), or delete it for the command to save a new one. (${(error as Error).message})`,
      },
    );
  }
  return methodId;
}

/** Drives a real sandbox payout of the merchant of `ctx` (merchant level, test mode) that emits `type`. */
export async function triggerPayoutEvent(rt: Runtime, ctx: CallerContext, type: string): Promise<TriggeredPayout> {
  const startedAt = rt.clock.now();
  const currency = await payingCurrency(rt, ctx.tenantId!, ctx.merchantId!);
  const methodId = await triggerMethod(rt, ctx, type === 'payout.failed' ? 'fails' : 'pays', currency);
  const { paymentId, sessionId, funded } = await fundAtOnce(rt, ctx, type, currency, startedAt);
  const { payout, skipped } = await runOneOffPayout(rt, {
    tenantId: ctx.tenantId!,
    merchantId: ctx.merchantId!,
    withdrawalMethodId: methodId,
    currency,
    grossLimit: funded,
  });
  if (!payout) throw new BusinessRuleError('EVENT_NOT_PRODUCED', `The payout run made no payout: ${skipped}.`);
  const events = await eventsOf(rt, ctx, startedAt, [paymentId, sessionId, payout.id], paymentId);
  const records = { paymentId, payoutId: payout.id, payoutStatus: payout.status, withdrawalMethodId: methodId };
  return triggered(rt, ctx, type, events, records, () => {
    const why = payout.failureReason ? ` (${payout.failureReason})` : '';
    return new BusinessRuleError('EVENT_NOT_PRODUCED', `Payout ${payout.id} ended ${payout.status}${why} and did not emit ${type}.`, {
      hint: 'Check that the tenant has an active sandbox payout terminal (payplane terminals list --tenant …).',
    });
  });
}

/**
 * What a sandbox payment whose funds are available at once makes available to pay out: a payment of 25.00, plus what
 * brings a negative available balance back to zero, makes 25.00 less its fee available (24.40 EUR with the sandbox's
 * fees). Read from the payment (its net), not from the balance, which a running serve's jobs may move meanwhile.
 */
async function fundAtOnce(
  rt: Runtime,
  ctx: CallerContext,
  type: string,
  currency: string,
  startedAt: Date,
): Promise<{ paymentId: string; sessionId: string; funded: number }> {
  const available = (await balancesOf(ctx, { merchantId: ctx.merchantId!, currency }))[0]?.available.valueMinor ?? 0;
  const deficit = Math.max(0, -available);
  const session = await createSession(ctx, {
    amount: { currency, valueMinor: AMOUNT_MINOR + deficit },
    captureMethod: 'automatic',
    merchantReference: `events trigger ${type}`,
    metadata: { triggeredBy: 'payplane events trigger', eventType: type, ...(deficit ? { coversNegativeBalance: String(deficit) } : {}) },
  });
  await completeCheckoutSession(ctx, session.id, {
    paymentMethod: {
      type: 'card',
      card: { number: FUNDING_CARD, expMonth: 12, expYear: startedAt.getUTCFullYear() + 3, cvc: '123', holderName: 'Sandbox Trigger' },
    },
  });
  const paymentId = (await getSession(ctx, session.id)).paymentId;
  if (!paymentId) throw new BusinessRuleError('EVENT_NOT_PRODUCED', `Checkout session ${session.id} has no payment.`);
  const answered = await runSandboxUntil(rt, async () => (await getPayment(ctx, paymentId)).status !== 'processing');
  if (!answered)
    throw new UnavailableError(
      `Payment ${paymentId} is still processing: the sandbox acquirer did not answer in time.`,
      'SANDBOX_NO_ANSWER',
    );
  const payment = await getPayment(ctx, paymentId);
  const funded = payment.status === 'captured' ? payment.amountBreakdown.net.valueMinor - deficit : 0;
  if (funded <= 0) {
    throw new BusinessRuleError(
      'EVENT_NOT_PRODUCED',
      `The funding payment ${paymentId} ended ${payment.status} and made nothing available.`,
      {
        hint: "Check that the tenant has an active sandbox card terminal for the merchant's currency (payplane terminals list --tenant …).",
      },
    );
  }
  return { paymentId, sessionId: session.id, funded };
}

// --------------------------------------------------------------------------------------------------- withdrawals

export const WITHDRAWAL_TRIGGER_TYPES = [
  'withdrawal.created',
  'withdrawal.approved',
  'withdrawal.succeeded',
  'withdrawal.failed',
  'withdrawal.rejected',
  'withdrawal.canceled',
] as const;

export function drivesRealWithdrawal(type: string): boolean {
  return (WITHDRAWAL_TRIGGER_TYPES as readonly string[]).includes(type);
}

export interface TriggeredWithdrawal extends TriggeredReal {
  merchantId: string;
  /** the sandbox payment that funded it */
  paymentId: string;
  withdrawalId: string;
  withdrawalStatus: string;
  withdrawalMethodId: string;
  events: EmittedEvent[];
}

/**
 * `events trigger withdrawal.*`: the funds of a sandbox payment available at once, a withdrawal of half of them
 * requested by the merchant to the method the payout trigger keeps (DE89 3704 0044 0532 0130 00), then moved by two
 * sandbox operators of the tenant (an approver and an executor: maker-checker holds) as the type needs: approved;
 * executed and completed (succeeded) or failed; rejected; or canceled by the merchant.
 */
export async function triggerWithdrawalEvent(rt: Runtime, ctx: CallerContext, type: string): Promise<TriggeredWithdrawal> {
  const startedAt = rt.clock.now();
  const currency = await payingCurrency(rt, ctx.tenantId!, ctx.merchantId!);
  const methodId = await triggerMethod(rt, ctx, 'pays', currency);
  const { paymentId, sessionId, funded } = await fundAtOnce(rt, ctx, type, currency, startedAt);
  const requested = await createWithdrawal(
    ctx,
    { amount: { currency, valueMinor: Math.floor(funded / 2) }, withdrawalMethodId: methodId },
    `events-trigger-${paymentId}`,
  );
  const approver = operatorContext(rt, {
    level: 'tenant',
    tenantId: ctx.tenantId!,
    livemode: false,
    operator: 'events trigger (approver)',
  });
  const executor = operatorContext(rt, {
    level: 'tenant',
    tenantId: ctx.tenantId!,
    livemode: false,
    operator: 'events trigger (executor)',
  });
  const id = requested.id;
  let final = requested;
  if (type === 'withdrawal.canceled') final = await cancelWithdrawal(ctx, id);
  else if (type === 'withdrawal.rejected')
    final = await rejectWithdrawal(approver, id, { rejectionReason: 'events trigger withdrawal.rejected' });
  else if (type !== 'withdrawal.created') {
    final = await approveWithdrawal(approver, id);
    if (type === 'withdrawal.succeeded' || type === 'withdrawal.failed') {
      await startExecution(executor, id);
      final =
        type === 'withdrawal.succeeded'
          ? await completeWithdrawal(executor, id, {
              providerReference: `sandbox-${id.slice(0, 8)}`,
              comment: 'events trigger withdrawal.succeeded',
            })
          : await failWithdrawal(executor, id, { comment: 'events trigger withdrawal.failed' });
    }
  }
  const events = await eventsOf(rt, ctx, startedAt, [paymentId, sessionId, id], paymentId);
  const records = { paymentId, withdrawalId: id, withdrawalStatus: final.status, withdrawalMethodId: methodId };
  return triggered(
    rt,
    ctx,
    type,
    events,
    records,
    () => new BusinessRuleError('EVENT_NOT_PRODUCED', `Withdrawal ${id} ended ${final.status} and did not emit ${type}.`),
  );
}
