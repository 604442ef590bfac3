import { inTransaction, type CallerContext } from '../domain/context';
import { InternalError } from '../domain/errors';
import { scoped } from '../db/scoped';
import {
  ConnectorError,
  connectorFor,
  type AuthorizeRequest,
  type Connector,
  type ConnectorTerminal,
  type CaptureRequest,
  type ConnectorResult,
  type CredentialProblem,
  type ActionReturnRequest,
  type DisputeAcceptRequest,
  type DisputeEvidenceRequest,
  type LookupRequest,
  type NotificationRequest,
  type ParsedNotification,
  type PayoutRequest,
  type RefundRequest,
  type VoidRequest,
} from '../connectors';
import { getProvider, type ProviderIntegration } from './processing/providers';
import { keyedEffect } from './idempotency';
import { openBinding, openCredentials } from './processing/terminals/credentials';
import type { CredentialBindingRow, TerminalRow } from '../db/models';

/**
 * The one way the platform calls a provider (authorize attempts, capture, void, refund, payout, dispute evidence and
 * acceptance), and the only module
 * that calls a connector (test/payments/provider-calls-once.test.ts holds every other file to it):
 *
 * 1. record the intent in a transaction of its own, which commits (the intent is the claim: a second caller meets it
 *    and is refused, and a process that dies after this step leaves it for recovery to finish); the request's
 *    Idempotency-Key is marked in it (keyedEffect: a retry answers from what was committed instead of asking again);
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

/**
 * The terminal, its provider and its credentials as the transaction that recorded the intent read them: the call is
 * then sent without reading them again (the credentials are opened for the call only, as when they are read).
 */
export interface TerminalRoute {
  terminal: TerminalRow;
  provider: ProviderIntegration;
  binding: CredentialBindingRow;
}

/**
 * One request to a provider: the terminal whose connector and credentials carry it, the context it is sent in (the
 * payment path's tenant-level context: the terminal is read in it, and an in-process connector uses its database,
 * clock and origin), what is asked, and (`route`) the terminal as the recording transaction read it, when it did.
 */
export type ProviderRequest = { via: CallerContext; terminalId: string; route?: TerminalRoute } & (
  | { operation: 'authorize'; request: AuthorizeRequest }
  | { operation: 'capture'; request: CaptureRequest }
  | { operation: 'void'; request: VoidRequest }
  | { operation: 'refund'; request: RefundRequest }
  | { operation: 'payout'; request: PayoutRequest }
  | { operation: 'dispute_evidence'; request: DisputeEvidenceRequest }
  | { operation: 'dispute_accept'; request: DisputeAcceptRequest }
  /** the acquirer's record of an operation whose answer was lost; `{ status: 'pending' }` with rawStatus `unknown` when it offers no look-up or knows none */
  | { operation: 'lookup'; request: LookupRequest }
  /** the outcome of an authorization once the customer is back from the acquirer's 3DS page */
  | { operation: 'complete_action'; request: ActionReturnRequest }
);

/**
 * A call that could not even start: the terminal, its provider or its credentials could not be read or opened, so
 * nothing was sent (the recovery job counts such tries, and abandons the operation after its last). Its message is the
 * cause's (never a credential).
 */
export class CallNotStarted extends Error {
  constructor(override readonly cause: unknown) {
    super(`the provider call could not start: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'CallNotStarted';
  }
}

/** A look-up's answer when the acquirer knows no such operation (the call never reached it). */
export const UNKNOWN_AT_PROVIDER = 'unknown_at_provider';
/** A look-up's answer when the acquirer offers none (its notification is the one source). */
export const NO_LOOKUP = 'no_lookup';

/**
 * How long an operation whose answer was lost (an attempt, a refund) waits for its acquirer's notification when the
 * acquirer offers no look-up: past it (counted from the operation's creation), it is taken as never received.
 */
export const LOST_ANSWER_DEADLINE_MS = 24 * 60 * 60_000;

/**
 * What a look-up makes of an operation whose answer was lost (an attempt, a refund: recorded pending, no provider
 * reference): the acquirer's record when it has one (final, or still pending there with its reference); a failure
 * (`provider_unavailable`: nothing happened at the acquirer, nothing to undo) when it knows none, or offers no look-up
 * and the deadline since `since` has passed; null while to wait (no look-up offered and the deadline not reached, or
 * the look-up itself unanswered: asked again later). Never sends the operation again.
 */
export function lostAnswer(answer: ProviderAnswer, since: Date, now: Date): ConnectorResult | null {
  if (!answer.result) return null;
  const { result } = answer;
  if (result.status !== 'pending' || result.providerReference) return result;
  const overdue = now.getTime() - new Date(since).getTime() >= LOST_ANSWER_DEADLINE_MS;
  if (result.rawStatus === UNKNOWN_AT_PROVIDER || (result.rawStatus === NO_LOOKUP && overdue)) {
    return {
      status: 'failed',
      providerReference: null,
      rawStatus: result.rawStatus,
      declineCode: 'provider_unavailable',
      message:
        result.rawStatus === UNKNOWN_AT_PROVIDER
          ? 'The provider never received the request.'
          : 'The provider gave no answer in time (it offers no look-up and sent no notification).',
    };
  }
  return null;
}

/** A payout's request (a scheduled payout's or a withdrawal's): our record's id as its reference, its amount, where to. */
export function payoutRequest(
  via: CallerContext,
  intent: {
    row: { id: string; tenantId: string; livemode: boolean; currency: string; amountMinor: number };
    terminalId: string;
    destination: PayoutRequest['destination'];
  },
): ProviderRequest {
  const { row, terminalId, destination } = intent;
  return {
    via,
    terminalId,
    operation: 'payout',
    request: {
      reference: row.id,
      tenantId: row.tenantId,
      livemode: row.livemode,
      amount: { currency: row.currency, valueMinor: row.amountMinor },
      destination,
    },
  };
}

/** What `request` returns when the provider need not be asked: the answer is known without it (a card no longer kept). */
export interface Unsent {
  unsent: ConnectorResult;
}

export interface ProviderOperation<I, R> {
  /** for the error of a defect */
  name: string;
  /** records the intent and returns it (or settled(value) when no call is needed); `{ recorded }` when it already was */
  record: ((tx: CallerContext) => Promise<I | Settled<R>>) | { recorded: I };
  /** what to ask the provider for the intent (no transaction is open: reads go through the pool one at a time) */
  request: (ctx: CallerContext, intent: I) => Promise<ProviderRequest | Unsent>;
  /** applies the answer in a new transaction: lock the record again and check the intent is still current */
  apply: (tx: CallerContext, intent: I, answer: ProviderAnswer) => Promise<R>;
  /** the record the intent made (a refund), kept with the request's Idempotency-Key for a retry to answer with */
  made?: (intent: I) => string;
}

/**
 * The answer of an operation that leaves its record pending until the provider answers (an attempt, a refund). When
 * the provider gave none, a timeout or a 5xx (retryable): the provider may have done it, so the outcome is unknown and
 * the record stays pending with no provider reference, for recovery to look up at the acquirer by its reference (never
 * sent again; see lostAnswer), and never a failure the caller would retry under a new reference, nor a cascade to
 * another terminal: two authorizations. Not retryable (never sent): a failure.
 */
export function answerOrPending(answer: ProviderAnswer): ConnectorResult {
  if (answer.result) return answer.result;
  if (answer.unreachable.retryable) return { status: 'pending', providerReference: null, rawStatus: 'pending' };
  return { status: 'failed', providerReference: null, declineCode: 'provider_unavailable', message: answer.unreachable.message };
}

export async function throughProvider<I, R>(ctx: CallerContext, op: ProviderOperation<I, R>): Promise<R> {
  if (ctx.transaction) {
    throw new InternalError(
      `${op.name}: a provider call was asked for inside an open database transaction; it runs only between two transactions.`,
      'PROVIDER_CALL_IN_TRANSACTION',
    );
  }
  const { record } = op;
  // inTransaction: a new transaction (none is open here) in which the actor's own record is made sure of first; the
  // intent commits with the mark of the request's Idempotency-Key, if it has one (a retry after a crash answers from it)
  const recorded =
    typeof record === 'function'
      ? await inTransaction(ctx, async (tx) => {
          const intent = await record(tx);
          await keyedEffect(tx, intent instanceof Settled ? undefined : op.made?.(intent));
          return intent;
        })
      : record.recorded;
  if (recorded instanceof Settled) return recorded.value;
  let answer: ProviderAnswer;
  try {
    const asked = await op.request(ctx, recorded);
    answer = { result: 'unsent' in asked ? asked.unsent : await send(asked) };
  } catch (error) {
    // anything else (a defect, a process dying) leaves the intent recorded: recovery finishes it
    if (!(error instanceof ConnectorError)) throw error;
    answer = { unreachable: error };
  }
  return inTransaction(ctx, (tx) => op.apply(tx, recorded, answer));
}

/**
 * A terminal's connector, with the terminal as the connector sees it (its credentials opened for this use only, never
 * kept or logged): for a call, and for checking an acquirer's notification with the terminal's credentials.
 */
export async function openTerminal(
  via: CallerContext,
  terminalId: string,
  route?: TerminalRoute,
): Promise<{ connector: Connector; terminal: ConnectorTerminal; provider: ProviderIntegration }> {
  const known = route?.terminal.id === terminalId ? route : undefined;
  const row = known?.terminal ?? (await scoped(via, via.db.models.Terminal).get(terminalId));
  const provider = known?.provider ?? (await getProvider(via, row.providerIntegrationId));
  const terminal: ConnectorTerminal = {
    terminalId: row.id,
    providerIntegrationId: provider.id,
    connectorBaseUrl: provider.connectorBaseUrl,
    credentials: known ? openBinding(via, known.binding) : await openCredentials(via, row.id, row),
    mcc: row.mcc,
    descriptor: row.descriptor,
    livemode: Boolean(row.livemode),
  };
  return { connector: connectorFor(provider.code), terminal, provider };
}

/**
 * An acquirer's notification to a terminal, checked with the terminal's credentials and read by its connector (no
 * call is made: the check is local): its items and the answer the acquirer expects, or null when the terminal's
 * connector takes no notifications. Throws NotificationRejected when the check fails.
 */
export async function readNotification(
  via: CallerContext,
  terminalId: string,
  request: NotificationRequest,
): Promise<{ terminal: ConnectorTerminal; parsed: ParsedNotification } | null> {
  const { connector, terminal } = await openTerminal(via, terminalId);
  if (!connector.parseNotification) return null;
  return { terminal, parsed: await connector.parseNotification(via, terminal, request) };
}

/**
 * Why credentials do not fit a terminal of this provider and mode, as its connector checks them before they are
 * sealed (a test key on a live terminal …), or null. Local: nothing is sent.
 */
export function credentialProblem(providerCode: string, credentials: Record<string, string>, livemode: boolean): CredentialProblem | null {
  return connectorFor(providerCode).checkCredentials?.(credentials, livemode) ?? null;
}

/** The call itself: the terminal's connector, with its credentials opened for this call only (never kept or logged). */
async function send(asked: ProviderRequest): Promise<ConnectorResult> {
  const { via } = asked;
  const { connector, terminal, provider } = await openTerminal(via, asked.terminalId, asked.route).catch((error: unknown) => {
    // a connector's own refusal stays what it is; anything else here means nothing was sent
    throw error instanceof ConnectorError ? error : new CallNotStarted(error);
  });
  // the connection guard (tests): no transaction of this request or job is open while the provider is waited on
  via.db.assertNoOpenTransaction(`the provider call (${provider.code} ${asked.operation})`);
  switch (asked.operation) {
    case 'authorize':
      return connector.authorize(via, terminal, asked.request);
    case 'capture':
      return connector.capture(via, terminal, asked.request);
    case 'void':
      return connector.void(via, terminal, asked.request);
    case 'refund':
      return connector.refund(via, terminal, asked.request);
    case 'payout':
      return connector.payout(via, terminal, asked.request);
    case 'dispute_evidence':
      return connector.disputeEvidence(via, terminal, asked.request);
    case 'dispute_accept':
      return connector.disputeAccept(via, terminal, asked.request);
    case 'lookup': {
      // no look-up offered, or nothing known at the acquirer: still pending, said which (the caller decides how long to wait)
      if (!connector.lookup) return { status: 'pending', providerReference: null, rawStatus: NO_LOOKUP };
      const found = await connector.lookup(via, terminal, asked.request);
      return found ?? { status: 'pending', providerReference: null, rawStatus: UNKNOWN_AT_PROVIDER };
    }
    case 'complete_action':
      if (!connector.completeAction)
        throw new ConnectorError(`the ${provider.code} connector has no return from a 3DS page to complete`, false);
      return connector.completeAction(via, terminal, asked.request);
  }
}
