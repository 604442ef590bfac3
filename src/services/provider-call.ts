import { inTransaction, type CallerContext } from '../domain/context';
import { InternalError } from '../domain/errors';
import { ConnectorError, type ConnectorResult } from '../connectors';

/**
 * The one way the platform calls a provider (authorize attempts, capture, void, refund, payout):
 *
 * 1. record the intent in a transaction of its own, which commits (the intent is the claim: a second caller meets it
 *    and is refused, and a process that dies after this step leaves it for recovery to finish);
 * 2. call the provider with no transaction open: the request or job holds no connection while it waits, and an
 *    in-process provider (the sandbox acquirer) may use the pool itself;
 * 3. apply the answer in a new transaction, which locks the record again and checks that the intent is still the
 *    one recorded (an answer that arrives twice, late, or after recovery finished the operation changes nothing).
 *
 * So a request or job holds at most one connection at a time. Called with a transaction open, it refuses (a defect).
 */

/** The provider's answer, or why there is none: it could not be reached (a ConnectorError). */
export type ProviderAnswer = { result: ConnectorResult; unreachable?: undefined } | { result?: undefined; unreachable: ConnectorError };

/** What `record` returns when nothing has to be sent (the operation ends without the provider, or was sent before). */
export class Settled<R> {
  constructor(readonly value: R) {}
}

export const settled = <R>(value: R): Settled<R> => new Settled(value);

export interface ProviderOperation<I, R> {
  /** for the error of a defect */
  name: string;
  /** records the intent and returns it (or settled(value) when no call is needed); `{ recorded }` when it already was */
  record: ((tx: CallerContext) => Promise<I | Settled<R>>) | { recorded: I };
  /** calls the provider (no transaction is open: reads go through the pool one at a time) */
  call: (ctx: CallerContext, intent: I) => Promise<ConnectorResult>;
  /** applies the answer in a new transaction: lock the record again and check the intent is still current */
  apply: (tx: CallerContext, intent: I, answer: ProviderAnswer) => Promise<R>;
}

/**
 * What an operation that leaves its record pending until the provider answers (an attempt, a refund) applies when the
 * provider gave no answer. A timeout or a 5xx (retryable): the provider may have done it, so the outcome is unknown and
 * the record stays pending with no provider reference, for recovery to send again with the same reference (never a
 * failure the caller would retry under a new reference, nor a cascade to another terminal: two authorizations). Not
 * retryable (never sent): a failure.
 */
export function unansweredResult(unreachable: ConnectorError): ConnectorResult {
  if (unreachable.retryable) return { status: 'pending', providerReference: null, rawStatus: 'pending' };
  return { status: 'failed', providerReference: null, declineCode: 'provider_unavailable', message: unreachable.message };
}

export async function throughProvider<I, R>(ctx: CallerContext, op: ProviderOperation<I, R>): Promise<R> {
  if (ctx.transaction) {
    throw new InternalError(`${op.name}: a provider call was asked for inside an open database transaction; it runs only between two transactions.`, 'PROVIDER_CALL_IN_TRANSACTION');
  }
  const { record } = op;
  // inTransaction: a new transaction (none is open here) in which the actor's own record is made sure of first
  const recorded = typeof record === 'function' ? await inTransaction(ctx, record) : record.recorded;
  if (recorded instanceof Settled) return recorded.value;
  let answer: ProviderAnswer;
  try {
    answer = { result: await op.call(ctx, recorded) };
  } catch (error) {
    // anything else (a defect, a process dying) leaves the intent recorded: recovery finishes it
    if (!(error instanceof ConnectorError)) throw error;
    answer = { unreachable: error };
  }
  return inTransaction(ctx, (tx) => op.apply(tx, recorded, answer));
}
