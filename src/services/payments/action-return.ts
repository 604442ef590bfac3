import type { Runtime } from '../../runtime';
import type { CallerContext } from '../../domain/context';
import { processingContext, systemContext } from '../../domain/authority';
import { NotFoundError } from '../../domain/errors';
import { isUuid, scoped } from '../../db/scoped';
import type { PaymentAttemptRow } from '../../db/models';
import { throughProvider, type ProviderAnswer } from '../provider-call';
import { applyAttemptResult, runAttempts } from './engine';
import { OPEN_ATTEMPT_STATUSES } from './machines';

/**
 * The customer back from a real acquirer's 3DS page (GET or POST /provider-returns/{attemptId}, the actionReturnUrl of
 * the authorization): while the attempt is open and its payment requires_action, the outcome is read from the acquirer
 * (complete_action, with what the return carried) and applied as any answer of the attempt (a cascade to the next
 * terminal run on); an answer still pending is left for the acquirer's notification. Then the customer goes on to the
 * payment's returnUrl (the merchant's page). A return after the attempt was answered asks the acquirer nothing again.
 */

export interface ActionReturn {
  paymentId: string;
  /** the payment's status once the return was applied */
  status: string;
  /** where the customer goes on to (the merchant's page), or null: a page of ours says the payment was processed */
  returnUrl: string | null;
}

/** The attempt by id whatever its tenant and mode (the return names only it); 404 when there is none. */
async function findAttempt(rt: Runtime, attemptId: string): Promise<PaymentAttemptRow> {
  if (isUuid(attemptId)) {
    for (const livemode of [false, true]) {
      const attempt = await scoped(systemContext(rt, livemode), rt.db.models.PaymentAttempt).find(attemptId);
      if (attempt) return attempt;
    }
  }
  throw new NotFoundError('payment attempt', attemptId);
}

export async function returnFromAction(
  rt: Runtime & { origin?: string },
  attemptId: string,
  params: Record<string, string>,
): Promise<ActionReturn> {
  const attempt = await findAttempt(rt, attemptId);
  const pctx = processingContext(rt, attempt.tenantId, attempt.livemode);
  const payments = scoped(pctx, rt.db.models.Payment);
  const payment = await payments.get(attempt.paymentId);
  const open =
    OPEN_ATTEMPT_STATUSES.includes(attempt.status) && payment.status === 'requires_action' && payment.currentAttemptId === attempt.id;
  if (open) {
    const unreachable = await completeAction(pctx, attempt, payment.providerReference, params);
    if (unreachable)
      rt.logger.warn(
        { attemptId: attempt.id, err: unreachable },
        'the acquirer could not be asked for the outcome of a 3DS return; left for its notification',
      );
  }
  const after = await payments.get(attempt.paymentId);
  return { paymentId: after.id, status: after.status, returnUrl: after.returnUrl ?? null };
}

async function completeAction(
  pctx: CallerContext,
  attempt: PaymentAttemptRow,
  paymentProviderReference: string | null,
  params: Record<string, string>,
): Promise<Error | undefined> {
  const answer = await throughProvider<PaymentAttemptRow, ProviderAnswer>(pctx, {
    name: 'complete_action',
    // nothing to record first: the attempt is the intent (a return that dies here is the notification's to settle)
    record: { recorded: attempt },
    request: async (ctx, intent) => ({
      via: ctx,
      terminalId: intent.terminalId,
      operation: 'complete_action',
      request: {
        reference: intent.id,
        providerReference: intent.providerReference ?? paymentProviderReference,
        tenantId: intent.tenantId,
        livemode: intent.livemode,
        params,
      },
    }),
    apply: async (_tx, _intent, given) => given,
  });
  // an acquirer out of reach, or still deciding: the attempt stays as it is, for the notification (or recovery)
  if (!answer.result) return answer.unreachable;
  if (answer.result.status === 'pending') return undefined;
  // the return's fields are the customer's: an answer about another authorization than this attempt's is not its answer
  const known = attempt.providerReference ?? paymentProviderReference;
  if (known && answer.result.providerReference && answer.result.providerReference !== known) {
    return new Error(`the return named the authorization ${answer.result.providerReference}, not this attempt's: not applied`);
  }
  const next = await applyAttemptResult(pctx, { paymentId: attempt.paymentId, attemptId: attempt.id }, answer.result);
  if (next) await runAttempts(pctx, next);
  return undefined;
}
