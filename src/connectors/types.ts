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
}

export interface AuthorizeRequest {
  /** our reference of this attempt (the payment attempt id); outcomes arrive with it */
  reference: string;
  tenantId: string;
  livemode: boolean;
  /** where a customer returns after a 3DS challenge page */
  returnUrl?: string;
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

export type { ConnectorStatus, ConnectorResult, ThreeDsResult, DisputeNotice } from './results';

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
