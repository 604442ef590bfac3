/**
 * The connector interface: what the payment path asks of a provider integration. One implementation per provider
 * code (src/connectors/registry.ts); results are the provider's own answer, never invented here.
 */

import type { AppConfig } from '../config';
import type { Database } from '../db/database';
import type { Clock } from '../domain/clock';
import type { ConnectorResult } from './results';
import type { Money } from '../domain/money';

/** What an in-process connector may use (the sandbox acquirer keeps its own records); the HTTP connector needs none of it. */
export interface ConnectorEnv {
  db: Database;
  clock: Clock;
  config: AppConfig;
  /** the origin of the request the call serves, if any: the base of URLs of this server the answer carries */
  origin?: string;
}

/** Who is calling: the terminal and its opened credentials (held in memory for the call only, never logged). */
export interface ConnectorTerminal {
  terminalId: string;
  providerIntegrationId: string;
  connectorBaseUrl: string;
  credentials: Record<string, string>;
  mcc: string | null;
  descriptor: string | null;
  /** the terminal's mode: a live terminal talks to the acquirer's live environment with live credentials */
  livemode: boolean;
}

export interface AuthorizeRequest {
  /** our reference of this attempt (the payment attempt id); outcomes arrive with it */
  reference: string;
  tenantId: string;
  livemode: boolean;
  /** where a customer ends after a 3DS challenge (the merchant's page): the sandbox acquirer's own page sends them there */
  returnUrl?: string;
  /**
   * Where a real acquirer's 3DS page sends the customer back: our page (absolute), which reads the outcome from the
   * acquirer (Connector.completeAction), applies it and then sends the customer on to `returnUrl`.
   */
  actionReturnUrl?: string;
  amount: Money;
  capture: boolean;
  paymentMethod: { type: string; card?: { number: string; expMonth: number; expYear: number; cvc?: string; holderName?: string } };
  threeDs?: { version?: string; eci?: string; cavv?: string; dsTransactionId?: string };
  /** the risk engine asks for a 3DS challenge whatever the card and the terminal would do otherwise */
  forceThreeDsChallenge?: boolean;
  metadata?: Record<string, string>;
}

export interface CaptureRequest {
  reference: string;
  providerReference: string;
  amount: Money;
}

export interface VoidRequest {
  reference: string;
  providerReference: string;
}

export interface RefundRequest {
  /** our reference (the refund id); the outcome arrives with it */
  reference: string;
  tenantId: string;
  livemode: boolean;
  providerReference: string;
  amount: Money;
}

export interface PayoutRequest {
  reference: string;
  tenantId: string;
  livemode: boolean;
  amount: Money;
  destination: { type: string; details: Record<string, string> };
}

export interface DisputeEvidenceRequest {
  /** our reference (the dispute id) */
  reference: string;
  tenantId: string;
  livemode: boolean;
  /** the acquirer's reference of the dispute */
  providerReference: string;
  /** the acquirer's reference of the disputed payment's authorization */
  paymentProviderReference: string;
  evidence: Record<string, string>;
}

export interface DisputeAcceptRequest {
  /** our reference (the dispute id) */
  reference: string;
  tenantId: string;
  livemode: boolean;
  /** the acquirer's reference of the dispute */
  providerReference: string;
  /** the acquirer's reference of the disputed payment's authorization */
  paymentProviderReference: string;
}

/**
 * A look-up of an operation at the acquirer by our reference (the answer of the call was lost: a timeout, a 5xx, a
 * crash between the call and its record). Never sends the card again.
 */
export interface LookupRequest {
  operation: 'authorize' | 'capture' | 'void' | 'refund';
  /** the reference the operation was sent with */
  reference: string;
  /** the acquirer's reference of the payment's authorization, when known (capture, void, refund) */
  providerReference: string | null;
  tenantId: string;
  livemode: boolean;
  amount?: Money;
}

/** The customer back on our return page from the acquirer's 3DS page: what the return carried (query and form fields). */
export interface ActionReturnRequest {
  /** our reference of the attempt */
  reference: string;
  /** the acquirer's reference of the authorization, when its first answer gave one */
  providerReference: string | null;
  tenantId: string;
  livemode: boolean;
  params: Record<string, string>;
}

/** A notification as it reached POST /v1/provider-notifications/{terminalId}: headers (lower-case names) and the raw body. */
export interface NotificationRequest {
  headers: Record<string, string | undefined>;
  rawBody: Buffer;
}

/** One item of an acquirer's notification, read into what the payment path applies. */
export type NotificationItem = {
  /** the acquirer's id of this event: stored once (a repeat changes nothing) */
  eventId: string;
  /** the acquirer's name of the event (payment_intent.succeeded, AUTHORISATION …), kept with it */
  type: string;
} & (
  | {
      kind: 'outcome';
      operation: 'authorize' | 'capture' | 'void' | 'refund';
      /** our reference, as the call sent it (null when the acquirer's item does not carry it) */
      reference: string | null;
      /** the acquirer's reference of the operation (of the authorization for authorize, capture and void; of the refund for refund) */
      providerReference: string;
      /** the acquirer's reference of the payment's authorization (capture, void, refund) */
      paymentProviderReference?: string;
      result: ConnectorResult;
    }
  | { kind: 'dispute'; notice: DisputeNotice }
  /** an event the platform does not act on (answered as accepted, stored, changes nothing) */
  | { kind: 'ignored' }
);

/** A notification checked and read: its items, and the answer the acquirer expects. */
export interface ParsedNotification {
  items: NotificationItem[];
  reply: { status: number; contentType: string; body: string };
}

/** A notification that fails its check (signature, HMAC, an unreadable body): 401 problem+json, nothing changed. */
export class NotificationRejected extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotificationRejected';
  }
}

/** Why credentials do not fit a terminal (400 naming the field), as a connector checks them before they are sealed. */
export interface CredentialProblem {
  /** CREDENTIALS_MODE_MISMATCH, INVALID_CREDENTIALS … */
  code: string;
  /** the credential's name (secretKey, apiKey …) */
  field: string;
  message: string;
}

export type { ConnectorStatus, ConnectorResult, ThreeDsResult, DisputeNotice } from './results';
import type { DisputeNotice } from './results';

/**
 * An asynchronous answer of a provider to an earlier call that returned `pending` (or `requires_action`): what the
 * acquirer's callback carries. The payment path applies it idempotently (src/services/payments/outcomes.ts).
 */
export interface ProviderOutcome {
  providerIntegrationId: string;
  operation: 'authorize' | 'capture' | 'void' | 'refund' | 'payout';
  /** the reference we gave in the request */
  reference: string;
  providerReference: string;
  tenantId: string;
  livemode: boolean;
  /** final: succeeded, declined or failed */
  result: ConnectorResult;
}

export interface Connector {
  /** provider code this implementation serves (or "http" for the generic HTTP connector) */
  readonly kind: string;
  authorize(env: ConnectorEnv, terminal: ConnectorTerminal, request: AuthorizeRequest): Promise<ConnectorResult>;
  capture(env: ConnectorEnv, terminal: ConnectorTerminal, request: CaptureRequest): Promise<ConnectorResult>;
  void(env: ConnectorEnv, terminal: ConnectorTerminal, request: VoidRequest): Promise<ConnectorResult>;
  refund(env: ConnectorEnv, terminal: ConnectorTerminal, request: RefundRequest): Promise<ConnectorResult>;
  payout(env: ConnectorEnv, terminal: ConnectorTerminal, request: PayoutRequest): Promise<ConnectorResult>;
  /**
   * Submits a dispute's evidence: `pending` (or `succeeded`) when the acquirer took it, its decision to come as a
   * DisputeNotice (`decided`); declined or failed when it refused it.
   */
  disputeEvidence(env: ConnectorEnv, terminal: ConnectorTerminal, request: DisputeEvidenceRequest): Promise<ConnectorResult>;
  /**
   * Tells the acquirer the merchant accepts (concedes) a dispute: `succeeded` (or `pending`) when it took it, the
   * dispute closed lost on its side too; declined or failed when it refused it (it knows no such dispute, or decided
   * it already). Once per dispute (our reference): a repeat is answered as the first.
   */
  disputeAccept(env: ConnectorEnv, terminal: ConnectorTerminal, request: DisputeAcceptRequest): Promise<ConnectorResult>;
  /**
   * The acquirer's record of an operation found by our reference: its answer (`pending` while it is still open there),
   * or null when it knows none (the call never reached it). Absent: the acquirer offers no look-up, and its
   * notification is the one source of a lost answer.
   */
  lookup?(env: ConnectorEnv, terminal: ConnectorTerminal, request: LookupRequest): Promise<ConnectorResult | null>;
  /** The outcome of an authorization once the customer is back from the acquirer's 3DS page (read from the acquirer). */
  completeAction?(env: ConnectorEnv, terminal: ConnectorTerminal, request: ActionReturnRequest): Promise<ConnectorResult>;
  /**
   * Checks a notification with the terminal's credentials (throws NotificationRejected when it fails) and reads its
   * items. Present on every connector whose acquirer notifies (the real acquirers).
   */
  parseNotification?(env: ConnectorEnv, terminal: ConnectorTerminal, request: NotificationRequest): Promise<ParsedNotification>;
  /** Refuses credentials that do not fit a terminal of this mode (a test key on a live terminal …): the problem, or null. */
  checkCredentials?(credentials: Record<string, string>, livemode: boolean): CredentialProblem | null;
}

/** A dispute notification as an acquirer delivers it: its provider integration, the tenant and mode, the notice. */
export interface DisputeNotification {
  providerIntegrationId: string;
  tenantId: string;
  livemode: boolean;
  notice: import('./results').DisputeNotice;
}

/** A connector that could not reach or understand its provider (the caller decides: retry, cascade, fail). */
export class ConnectorError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'ConnectorError';
  }
}
