import crypto from 'node:crypto';
import { Op } from 'sequelize';
import type { Database } from '../db/database';
import { isUniqueViolation } from '../db/database';
import { insertRows, selectRows, updateRows } from '../db/rows';
import type { SandboxOperationRow, SandboxScenario } from '../db/models/sandbox';
import type { Clock } from '../domain/clock';
import { newId } from '../util/ids';
import { sandboxOperationDue } from './sandbox-kick';
import { publicUrl } from '../util/public-url';
import {
  ConnectorError,
  type AuthorizeRequest,
  type CaptureRequest,
  type Connector,
  type ConnectorEnv,
  type ConnectorResult,
  type ConnectorTerminal,
  type DisputeAcceptRequest,
  type DisputeEvidenceRequest,
  type LookupRequest,
  type RefundRequest,
  type ThreeDsResult,
  type VoidRequest,
} from './types';

/**
 * The built-in sandbox card acquirer (provider code sandbox-card). The card number picks a scenario, as in other
 * sandboxes; the answer to authorize and refund arrives asynchronously: the call returns `pending` (or
 * `requires_action` with the 3DS challenge page) and records an operation that the worker
 * (src/jobs/sandbox-acquirer.ts) delivers to the payment path when it is due, like a real acquirer's callback.
 * The number and cvc are used for the call only: the acquirer keeps the scenario, never the card.
 */

export const SANDBOX_CARDS: Readonly<Record<string, SandboxScenario>> = {
  '4242424242424242': 'success',
  '5555555555554444': 'success',
  '4000000000000002': 'declined',
  '4000000000009995': 'insufficient_funds',
  '4000000000009987': 'lost_card',
  '4000000000000069': 'expired_card',
  '4000000000000127': 'incorrect_cvc',
  '4000000000000119': 'processing_error',
  '4000002760003184': 'three_ds_challenge',
  '4000000000003220': 'three_ds_frictionless',
  '4000000000000077': 'funds_available_immediately',
  '4000000000005126': 'refund_fails',
  // captured, then disputed once the acquirer has answered (after its delay, through the same asynchronous path)
  '4000000000000259': 'dispute_fraudulent',
  '4000000000002685': 'dispute_product_not_received',
};

/** The reason of the dispute a test card's payment meets. */
const DISPUTE_REASON: Partial<Record<SandboxScenario, string>> = {
  dispute_fraudulent: 'fraudulent',
  dispute_product_not_received: 'product_not_received',
};

/** How long the merchant has to answer a sandbox dispute (from its notification). */
export const SANDBOX_EVIDENCE_DAYS = 7;

/** The sandbox acquirer's decision on submitted evidence: `winning_evidence` wins, `losing_evidence` loses, else won. */
export function sandboxDisputeOutcome(evidence: Record<string, string>): 'won' | 'lost' {
  const text = evidence.uncategorizedText ?? '';
  if (text.includes('winning_evidence')) return 'won';
  if (text.includes('losing_evidence')) return 'lost';
  return 'won';
}

/** How long a 3DS challenge page stays open; then the authorization fails as an abandoned challenge. */
export const CHALLENGE_TTL_MS = 15 * 60_000;

const DECLINES: Partial<Record<SandboxScenario, { declineCode: string; rawStatus: string; message: string }>> = {
  declined: { declineCode: 'card_declined', rawStatus: 'REFUSED', message: 'The card was declined.' },
  insufficient_funds: { declineCode: 'insufficient_funds', rawStatus: 'REFUSED_51', message: 'The card has insufficient funds.' },
  lost_card: { declineCode: 'lost_card', rawStatus: 'REFUSED_41', message: 'The card was reported lost.' },
  expired_card: { declineCode: 'expired_card', rawStatus: 'REFUSED_54', message: 'The card has expired.' },
  incorrect_cvc: { declineCode: 'incorrect_cvc', rawStatus: 'REFUSED_N7', message: 'The card security code is incorrect.' },
  unsupported: {
    declineCode: 'card_not_supported',
    rawStatus: 'REFUSED_57',
    message: 'The card is not supported by the sandbox acquirer.',
  },
};

export function scenarioOf(cardNumber: string | undefined): SandboxScenario {
  if (!cardNumber) return 'unsupported';
  return SANDBOX_CARDS[cardNumber.replace(/[\s-]/g, '')] ?? 'unsupported';
}

function randomRef(prefix: string): string {
  return `${prefix}_${crypto.randomBytes(12).toString('hex')}`;
}

export function hashChallengeToken(token: string): string {
  return crypto.createHash('sha256').update(token, 'utf8').digest('hex');
}

function threeDs(flow: 'frictionless' | 'challenge', authenticated: boolean, cancelled = false): ThreeDsResult {
  return {
    version: '2.2.0',
    status: authenticated ? 'authenticated' : 'failed',
    statusReason: authenticated ? null : cancelled ? 'challenge_abandoned' : 'authentication_failed',
    eci: authenticated ? '05' : '07',
    cavv: authenticated ? crypto.randomBytes(20).toString('base64') : null,
    xid: null,
    dsTransId: crypto.randomUUID(),
    messageVersion: '2.2.0',
    serverTransId: crypto.randomUUID(),
    acsTransId: crypto.randomUUID(),
    enrolled: 'Y',
    liabilityShift: authenticated,
    challengeFlow: flow,
    challenged: flow === 'challenge',
    challengeCancelled: cancelled,
    exemptionApplied: null,
  };
}

function approved(providerReference: string, capture: boolean, extra: Partial<ConnectorResult> = {}): ConnectorResult {
  return { status: 'succeeded', providerReference, rawStatus: capture ? 'CAPTURED' : 'AUTHORISED', message: 'Approved.', ...extra };
}

function authenticationFailed(providerReference: string, cancelled: boolean): ConnectorResult {
  return {
    status: 'declined',
    providerReference,
    rawStatus: 'REFUSED_3DS',
    declineCode: 'authentication_failed',
    message: cancelled ? 'The 3DS challenge was not completed in time.' : 'The cardholder failed 3DS authentication.',
    threeDSResult: threeDs('challenge', false, cancelled),
  };
}

/** The final answer of an authorization in a scenario (the challenge card's is decided on its page). */
export function authorizeOutcome(scenario: SandboxScenario, providerReference: string, capture: boolean): ConnectorResult {
  switch (scenario) {
    case 'success':
    case 'refund_fails':
    case 'dispute_fraudulent':
    case 'dispute_product_not_received':
      return approved(providerReference, capture);
    case 'three_ds_frictionless':
      return approved(providerReference, capture, { threeDSResult: threeDs('frictionless', true) });
    case 'three_ds_challenge':
      return approved(providerReference, capture, { threeDSResult: threeDs('challenge', true) });
    case 'funds_available_immediately':
      return approved(providerReference, capture, { fundsAvailableImmediately: true });
    case 'processing_error':
      return {
        status: 'failed',
        providerReference,
        rawStatus: 'ERROR',
        declineCode: 'processing_error',
        message: 'The acquirer could not process the payment; another route may.',
      };
    default: {
      const decline = DECLINES[scenario] ?? DECLINES.unsupported!;
      return { status: 'declined', providerReference, ...decline };
    }
  }
}

/** The answer of an authorization whose challenge the cardholder passed: the card's own outcome, authenticated by a challenge. */
function challengedOutcome(scenario: SandboxScenario, providerReference: string, capture: boolean): ConnectorResult {
  return { ...authorizeOutcome(scenario, providerReference, capture), threeDSResult: threeDs('challenge', true) };
}

function refundOutcome(scenario: SandboxScenario, providerReference: string): ConnectorResult {
  if (scenario === 'refund_fails') {
    return {
      status: 'failed',
      providerReference,
      rawStatus: 'REFUND_REFUSED',
      declineCode: 'refund_failed',
      message: 'The issuer refused the refund.',
    };
  }
  return { status: 'succeeded', providerReference, rawStatus: 'REFUNDED', message: 'Refunded.' };
}

/** Where the challenge page is served: an absolute URL of this server (src/util/public-url.ts). */
function challengeUrl(env: ConnectorEnv, token: string): string {
  return publicUrl(env, `/sandbox/3ds/${token}`);
}

async function findOperation(
  db: Database,
  where: Partial<Record<keyof SandboxOperationRow, unknown>>,
): Promise<SandboxOperationRow | null> {
  const [row] = await selectRows<SandboxOperationRow>(db, db.models.SandboxOperation as never, where, { limit: 1 });
  return row ?? null;
}

function sandboxOnly(livemode: boolean, operation: string): void {
  if (livemode) throw new ConnectorError(`the sandbox acquirer serves sandbox (test mode) ${operation}s only`, false);
}

function failedSync(providerReference: string | null, declineCode: string, message: string): ConnectorResult {
  return { status: 'failed', providerReference, rawStatus: 'ERROR', declineCode, message };
}

export class SandboxCardConnector implements Connector {
  readonly kind = 'sandbox-card';

  async authorize(env: ConnectorEnv, terminal: ConnectorTerminal, request: AuthorizeRequest): Promise<ConnectorResult> {
    sandboxOnly(request.livemode, 'payment');
    // an authorization asked again (a retry after a lost answer) meets the first one's row: its insert below is
    // refused by the unique (kind, reference), and the first operation answers

    const scenario = request.paymentMethod.type === 'card' ? scenarioOf(request.paymentMethod.card?.number) : 'unsupported';
    const now = env.clock.now();
    const providerReference = randomRef('sbx');
    // the challenge card always asks for one, and any card does when risk forces 3DS (its own answer follows the challenge)
    const challenge = scenario === 'three_ds_challenge' || Boolean(request.forceThreeDsChallenge);
    const token = challenge ? crypto.randomBytes(24).toString('base64url') : null;
    const row: SandboxOperationRow = {
      id: newId(),
      kind: 'authorize',
      reference: request.reference,
      providerReference,
      paymentProviderReference: null,
      providerIntegrationId: terminal.providerIntegrationId,
      terminalId: terminal.terminalId,
      tenantId: request.tenantId,
      livemode: false,
      scenario,
      captureRequested: request.capture,
      currency: request.amount.currency,
      amountMinor: request.amount.valueMinor,
      // a challenge left open past its lifetime is answered as an abandoned authentication
      outcome: challenge ? authenticationFailed(providerReference, true) : authorizeOutcome(scenario, providerReference, request.capture),
      returnUrl: request.returnUrl ?? null,
      challengeTokenHash: token ? hashChallengeToken(token) : null,
      notification: null,
      status: challenge ? 'awaiting_challenge' : 'scheduled',
      dueAt: new Date(now.getTime() + (challenge ? CHALLENGE_TTL_MS : env.config.sandboxDelayMs)),
      lockedBy: null,
      lockedUntil: null,
      doneAt: null,
      attempts: 0,
      lastError: null,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await env.db.writeAlone((alone) => insertRows(env.db, env.db.models.SandboxOperation as never, [row], alone));
    } catch (error) {
      // the same request twice at once: the first one's operation answers both
      if (!isUniqueViolation(error)) throw error;
      const first = await findOperation(env.db, { kind: 'authorize', reference: request.reference });
      if (!first) throw error;
      return this.answerAgain(env, first);
    }
    if (token)
      return {
        status: 'requires_action',
        providerReference,
        rawStatus: 'CHALLENGE_REQUIRED',
        action: { type: 'redirect', url: challengeUrl(env, token) },
      };
    sandboxOperationDue(env.config.sandboxDelayMs);
    return { status: 'pending', providerReference, rawStatus: 'RECEIVED' };
  }

  /** A repeated authorize of one reference: the same answer (a challenge still open gets a fresh page link). */
  private async answerAgain(env: ConnectorEnv, op: SandboxOperationRow): Promise<ConnectorResult> {
    if (op.status === 'awaiting_challenge') {
      const token = crypto.randomBytes(24).toString('base64url');
      const [count] = await env.db.transaction((transaction) =>
        env.db.models.SandboxOperation.update(
          { challengeTokenHash: hashChallengeToken(token), updatedAt: env.clock.now() },
          { where: { id: op.id, status: 'awaiting_challenge' }, transaction },
        ),
      );
      if (count === 1)
        return {
          status: 'requires_action',
          providerReference: op.providerReference,
          rawStatus: 'CHALLENGE_REQUIRED',
          action: { type: 'redirect', url: challengeUrl(env, token) },
        };
    }
    return { status: 'pending', providerReference: op.providerReference, rawStatus: 'RECEIVED' };
  }

  /**
   * The sandbox acquirer's record of an authorization or refund by our reference (its answer was lost): its answer
   * once delivered, pending with its reference while it is still scheduled (a challenge still open: a fresh page
   * link), null when it never got the request. Captures and voids are answered at once, never for later: none to find.
   */
  async lookup(env: ConnectorEnv, _terminal: ConnectorTerminal, request: LookupRequest): Promise<ConnectorResult | null> {
    if (request.operation !== 'authorize' && request.operation !== 'refund') return null;
    const op = await findOperation(env.db, { kind: request.operation, reference: request.reference });
    if (!op || op.tenantId !== request.tenantId) return null;
    if (op.status === 'awaiting_challenge') return this.answerAgain(env, op);
    if (op.status === 'done' && op.outcome) return op.outcome;
    return { status: 'pending', providerReference: op.providerReference, rawStatus: 'RECEIVED' };
  }

  /** The approved authorization a capture, void or refund names, or the reason there is none. */
  private async authorization(env: ConnectorEnv, providerReference: string): Promise<SandboxOperationRow | ConnectorResult> {
    const auth = await findOperation(env.db, { kind: 'authorize', providerReference });
    if (!auth) return failedSync(null, 'payment_not_found', 'The sandbox acquirer knows no authorization with this reference.');
    if (auth.status === 'awaiting_challenge' || auth.outcome?.status !== 'succeeded') {
      return failedSync(providerReference, 'payment_not_authorized', 'The authorization was not approved.');
    }
    return auth;
  }

  async capture(env: ConnectorEnv, _terminal: ConnectorTerminal, request: CaptureRequest): Promise<ConnectorResult> {
    const auth = await this.authorization(env, request.providerReference);
    if (!('id' in auth)) return auth;
    if (request.amount.currency !== auth.currency || request.amount.valueMinor > auth.amountMinor) {
      return failedSync(auth.providerReference, 'amount_exceeds_authorized', 'The capture exceeds the authorized amount.');
    }
    // a dispute card's payment is disputed once captured (its notification due after the acquirer's delay)
    await scheduleSandboxDispute(env, auth, request.amount.valueMinor);
    return {
      status: 'succeeded',
      providerReference: auth.providerReference,
      rawStatus: 'CAPTURED',
      message: 'Captured.',
      ...(auth.scenario === 'funds_available_immediately' ? { fundsAvailableImmediately: true } : {}),
    };
  }

  async void(env: ConnectorEnv, _terminal: ConnectorTerminal, request: VoidRequest): Promise<ConnectorResult> {
    const auth = await this.authorization(env, request.providerReference);
    if (!('id' in auth)) return auth;
    return { status: 'succeeded', providerReference: auth.providerReference, rawStatus: 'CANCELLED', message: 'Authorization released.' };
  }

  async refund(env: ConnectorEnv, terminal: ConnectorTerminal, request: RefundRequest): Promise<ConnectorResult> {
    sandboxOnly(request.livemode, 'refund');
    const existing = await findOperation(env.db, { kind: 'refund', reference: request.reference });
    if (existing) return { status: 'pending', providerReference: existing.providerReference, rawStatus: 'RECEIVED' };
    const auth = await this.authorization(env, request.providerReference);
    if (!('id' in auth)) return auth;
    if (auth.tenantId !== request.tenantId)
      return failedSync(null, 'payment_not_found', 'The sandbox acquirer knows no authorization with this reference.');
    if (request.amount.currency !== auth.currency || request.amount.valueMinor <= 0 || request.amount.valueMinor > auth.amountMinor) {
      return failedSync(null, 'amount_exceeds_payment', 'The refund amount is not within the payment amount.');
    }
    const now = env.clock.now();
    const providerReference = randomRef('sbxrf');
    const row: SandboxOperationRow = {
      id: newId(),
      kind: 'refund',
      reference: request.reference,
      providerReference,
      paymentProviderReference: auth.providerReference,
      providerIntegrationId: terminal.providerIntegrationId || auth.providerIntegrationId,
      terminalId: terminal.terminalId ?? auth.terminalId,
      tenantId: request.tenantId,
      livemode: false,
      scenario: auth.scenario,
      captureRequested: false,
      currency: request.amount.currency,
      amountMinor: request.amount.valueMinor,
      outcome: refundOutcome(auth.scenario, providerReference),
      returnUrl: null,
      challengeTokenHash: null,
      notification: null,
      status: 'scheduled',
      dueAt: new Date(now.getTime() + env.config.sandboxDelayMs),
      lockedBy: null,
      lockedUntil: null,
      doneAt: null,
      attempts: 0,
      lastError: null,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await env.db.writeAlone((alone) => insertRows(env.db, env.db.models.SandboxOperation as never, [row], alone));
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const first = await findOperation(env.db, { kind: 'refund', reference: request.reference });
      if (!first) throw error;
      return { status: 'pending', providerReference: first.providerReference, rawStatus: 'RECEIVED' };
    }
    sandboxOperationDue(env.config.sandboxDelayMs);
    return { status: 'pending', providerReference, rawStatus: 'RECEIVED' };
  }

  async payout(): Promise<ConnectorResult> {
    return failedSync(null, 'operation_not_supported', 'The sandbox card acquirer does not make payouts.');
  }

  /**
   * Takes a dispute's evidence and decides after the acquirer's delay (sandboxDisputeOutcome): the decision is an
   * operation of kind dispute_decision, delivered as a DisputeNotice `decided`. Once per dispute (our reference).
   */
  async disputeEvidence(env: ConnectorEnv, terminal: ConnectorTerminal, request: DisputeEvidenceRequest): Promise<ConnectorResult> {
    sandboxOnly(request.livemode, 'dispute');
    const existing = await findOperation(env.db, { kind: 'dispute_decision', reference: request.reference });
    if (existing) return { status: 'pending', providerReference: request.providerReference, rawStatus: 'EVIDENCE_RECEIVED' };
    const opened = await findOperation(env.db, { kind: 'dispute', providerReference: request.providerReference });
    if (!opened || opened.tenantId !== request.tenantId)
      return failedSync(null, 'dispute_not_found', 'The sandbox acquirer knows no dispute with this reference.');
    if (await findOperation(env.db, { kind: 'dispute_acceptance', reference: request.reference })) {
      return failedSync(null, 'dispute_accepted', 'The merchant accepted this dispute: the sandbox acquirer closed it lost.');
    }
    if (!(await answerDeadline(env, request.providerReference))) {
      return failedSync(null, 'dispute_closed', 'The evidence deadline passed: the sandbox acquirer closed this dispute lost.');
    }
    const now = env.clock.now();
    const row: SandboxOperationRow = {
      id: newId(),
      kind: 'dispute_decision',
      reference: request.reference,
      providerReference: randomRef('sbxdd'),
      paymentProviderReference: opened.paymentProviderReference,
      providerIntegrationId: terminal.providerIntegrationId || opened.providerIntegrationId,
      terminalId: terminal.terminalId ?? opened.terminalId,
      tenantId: request.tenantId,
      livemode: false,
      scenario: opened.scenario,
      captureRequested: false,
      currency: opened.currency,
      amountMinor: opened.amountMinor,
      outcome: null,
      notification: { type: 'decided', providerReference: request.providerReference, outcome: sandboxDisputeOutcome(request.evidence) },
      returnUrl: null,
      challengeTokenHash: null,
      status: 'scheduled',
      dueAt: new Date(now.getTime() + env.config.sandboxDelayMs),
      lockedBy: null,
      lockedUntil: null,
      doneAt: null,
      attempts: 0,
      lastError: null,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await env.db.writeAlone((alone) => insertRows(env.db, env.db.models.SandboxOperation as never, [row], alone));
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    sandboxOperationDue(env.config.sandboxDelayMs);
    return { status: 'pending', providerReference: request.providerReference, rawStatus: 'EVIDENCE_RECEIVED' };
  }

  /**
   * Takes the merchant's acceptance: the dispute closes lost on the acquirer's side (its deadline decision is called
   * off), recorded as an operation of kind dispute_acceptance (done at once: nothing to deliver back). Once per dispute
   * (our reference): a repeat is answered as the first. Refused when the acquirer knows no such dispute, or decided it
   * already (the evidence was taken, or the deadline passed).
   */
  async disputeAccept(env: ConnectorEnv, terminal: ConnectorTerminal, request: DisputeAcceptRequest): Promise<ConnectorResult> {
    sandboxOnly(request.livemode, 'dispute');
    const accepted = {
      status: 'succeeded' as const,
      providerReference: request.providerReference,
      rawStatus: 'ACCEPTED',
      message: 'The dispute is closed lost.',
    };
    if (await findOperation(env.db, { kind: 'dispute_acceptance', reference: request.reference })) return accepted;
    const opened = await findOperation(env.db, { kind: 'dispute', providerReference: request.providerReference });
    if (!opened || opened.tenantId !== request.tenantId)
      return failedSync(null, 'dispute_not_found', 'The sandbox acquirer knows no dispute with this reference.');
    if (await findOperation(env.db, { kind: 'dispute_decision', reference: request.reference })) {
      return failedSync(null, 'dispute_decided', 'The sandbox acquirer took evidence for this dispute and decides it on that.');
    }
    if (!(await answerDeadline(env, request.providerReference))) {
      return failedSync(null, 'dispute_closed', 'The evidence deadline passed: the sandbox acquirer closed this dispute lost.');
    }
    const now = env.clock.now();
    const row: SandboxOperationRow = {
      id: newId(),
      kind: 'dispute_acceptance',
      reference: request.reference,
      providerReference: randomRef('sbxda'),
      paymentProviderReference: opened.paymentProviderReference,
      providerIntegrationId: terminal.providerIntegrationId || opened.providerIntegrationId,
      terminalId: terminal.terminalId ?? opened.terminalId,
      tenantId: request.tenantId,
      livemode: false,
      scenario: opened.scenario,
      captureRequested: false,
      currency: opened.currency,
      amountMinor: opened.amountMinor,
      outcome: null,
      notification: null,
      returnUrl: null,
      challengeTokenHash: null,
      status: 'done',
      dueAt: now,
      lockedBy: null,
      lockedUntil: null,
      doneAt: now,
      attempts: 0,
      lastError: null,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await env.db.writeAlone((alone) => insertRows(env.db, env.db.models.SandboxOperation as never, [row], alone));
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    return accepted;
  }
}

/**
 * The merchant answered a dispute (evidence or acceptance) before its deadline: the acquirer's deadline decision is
 * called off (done without being delivered). False when the deadline decision was delivered already, or is being
 * delivered: the acquirer closed the dispute lost. True also for a dispute with no deadline decision.
 */
async function answerDeadline(env: Pick<ConnectorEnv, 'db' | 'clock'>, disputeReference: string): Promise<boolean> {
  const now = env.clock.now();
  const model = env.db.models.SandboxOperation as never;
  const calledOff = await env.db.writeAlone((alone) =>
    updateRows(
      env.db,
      model,
      { status: 'done', doneAt: now, lastError: 'answered before the deadline', updatedAt: now },
      { kind: 'dispute_deadline', reference: disputeReference, doneAt: null, lockedBy: null },
      alone,
    ),
  );
  if (calledOff > 0) return true;
  const deadline = await findOperation(env.db, { kind: 'dispute_deadline', reference: disputeReference });
  return !deadline || deadline.lastError === 'answered before the deadline';
}

/**
 * A captured payment of a dispute card is disputed: the acquirer records its dispute notification (kind dispute,
 * one per authorization), due after its delay, for the worker to deliver (src/jobs/sandbox-acquirer.ts). Nothing for
 * any other card. Called when the capture is answered (automatic capture: when the authorization's answer was
 * delivered; manual: by capture).
 */
export async function scheduleSandboxDispute(
  env: Pick<ConnectorEnv, 'db' | 'clock' | 'config'>,
  auth: SandboxOperationRow,
  capturedMinor = auth.amountMinor,
): Promise<boolean> {
  const reason = DISPUTE_REASON[auth.scenario];
  if (!reason || auth.kind !== 'authorize') return false;
  const now = env.clock.now();
  const dueAt = new Date(now.getTime() + env.config.sandboxDelayMs);
  const providerReference = randomRef('sbxdp');
  const evidenceDueBy = new Date(dueAt.getTime() + SANDBOX_EVIDENCE_DAYS * 24 * 3_600_000);
  const row: SandboxOperationRow = {
    id: newId(),
    kind: 'dispute',
    reference: auth.providerReference,
    providerReference,
    paymentProviderReference: auth.providerReference,
    providerIntegrationId: auth.providerIntegrationId,
    terminalId: auth.terminalId,
    tenantId: auth.tenantId,
    livemode: false,
    scenario: auth.scenario,
    captureRequested: false,
    currency: auth.currency,
    amountMinor: capturedMinor,
    outcome: null,
    notification: {
      type: 'opened',
      paymentProviderReference: auth.providerReference,
      providerReference,
      reason,
      amount: { currency: auth.currency, valueMinor: capturedMinor },
      evidenceDueBy: evidenceDueBy.toISOString(),
    },
    returnUrl: null,
    challengeTokenHash: null,
    status: 'scheduled',
    dueAt,
    lockedBy: null,
    lockedUntil: null,
    doneAt: null,
    attempts: 0,
    lastError: null,
    createdAt: now,
    updatedAt: now,
  };
  // unanswered by its evidenceDueBy (no evidence taken, no acceptance), the acquirer closes the dispute lost and says so
  const deadline: SandboxOperationRow = {
    ...row,
    id: newId(),
    kind: 'dispute_deadline',
    reference: providerReference,
    providerReference: randomRef('sbxdl'),
    notification: { type: 'decided', providerReference, outcome: 'lost' },
    dueAt: evidenceDueBy,
  };
  try {
    // one statement: both or neither
    await env.db.writeAlone((alone) => insertRows(env.db, env.db.models.SandboxOperation as never, [row, deadline], alone));
  } catch (error) {
    // the authorization's dispute was recorded already
    if (!isUniqueViolation(error)) throw error;
    return false;
  }
  sandboxOperationDue(env.config.sandboxDelayMs);
  return true;
}

// ------------------------------------------------------------------------------------------- 3DS challenge page

export interface ChallengeView {
  status: 'open' | 'used' | 'expired';
  currency: string;
  amountMinor: number;
  returnUrl: string | null;
}

/** The operation behind a challenge page token (null when the token is unknown). */
export async function findChallenge(env: { db: Database; clock: Clock }, token: string): Promise<ChallengeView | null> {
  if (!/^[A-Za-z0-9_-]{16,128}$/.test(token)) return null;
  const op = await findOperation(env.db, { challengeTokenHash: hashChallengeToken(token) });
  if (!op || op.kind !== 'authorize') return null;
  return { status: challengeStatus(op, env.clock.now()), currency: op.currency, amountMinor: op.amountMinor, returnUrl: op.returnUrl };
}

function challengeStatus(op: SandboxOperationRow, now: Date): ChallengeView['status'] {
  if (op.status === 'awaiting_challenge') return new Date(op.dueAt!).getTime() <= now.getTime() ? 'expired' : 'open';
  // answered by the page, or by the worker when the challenge ran out
  return op.outcome?.threeDSResult?.challengeCancelled ? 'expired' : 'used';
}

/**
 * The cardholder's answer on the challenge page: schedules the authorization's final outcome (approved with a
 * challenged 3DS result, or declined authentication_failed) due after the acquirer's delay. Once only: a used or
 * expired page changes nothing.
 */
export async function answerChallenge(env: ConnectorEnv, token: string, answer: 'complete' | 'fail'): Promise<ChallengeView | null> {
  if (!/^[A-Za-z0-9_-]{16,128}$/.test(token)) return null;
  const op = await findOperation(env.db, { challengeTokenHash: hashChallengeToken(token) });
  if (!op || op.kind !== 'authorize') return null;
  const now = env.clock.now();
  const outcome =
    answer === 'complete'
      ? challengedOutcome(op.scenario, op.providerReference, op.captureRequested)
      : authenticationFailed(op.providerReference, false);
  const [count] = await env.db.transaction((transaction) =>
    env.db.models.SandboxOperation.update(
      { status: 'scheduled', outcome, dueAt: new Date(now.getTime() + env.config.sandboxDelayMs), updatedAt: now },
      // the compare-and-set: still awaiting, and not yet expired (an expired challenge is the worker's to answer)
      { where: { id: op.id, status: 'awaiting_challenge', dueAt: { [Op.gt]: now } }, transaction },
    ),
  );
  const view = { currency: op.currency, amountMinor: op.amountMinor, returnUrl: op.returnUrl };
  if (count === 1) {
    sandboxOperationDue(env.config.sandboxDelayMs);
    return { status: 'open', ...view };
  }
  const after = (await findOperation(env.db, { id: op.id })) ?? op;
  const status = challengeStatus(after, now);
  return { status: status === 'open' ? 'used' : status, ...view };
}
