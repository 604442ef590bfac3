/**
 * The connector interface: what the payment path asks of a provider integration. One implementation per provider
 * code (src/connectors/registry.ts); results are the provider's own answer, never invented here.
 */

export interface ConnectorMoney {
  currency: string;
  valueMinor: number;
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
  reference: string;
  amount: ConnectorMoney;
  capture: boolean;
  paymentMethod: { type: string; card?: { number: string; expMonth: number; expYear: number; cvc?: string; holderName?: string } };
  threeDs?: { version?: string; eci?: string; cavv?: string; dsTransactionId?: string };
  metadata?: Record<string, string>;
}

export interface CaptureRequest {
  reference: string;
  providerReference: string;
  amount: ConnectorMoney;
}

export interface VoidRequest {
  reference: string;
  providerReference: string;
}

export interface RefundRequest {
  reference: string;
  providerReference: string;
  amount: ConnectorMoney;
}

export interface PayoutRequest {
  reference: string;
  amount: ConnectorMoney;
  destination: { type: string; details: Record<string, string> };
}

export type ConnectorStatus = 'succeeded' | 'pending' | 'requires_action' | 'declined' | 'failed';

export interface ConnectorResult {
  status: ConnectorStatus;
  providerReference: string | null;
  /** the provider's own status and codes, kept for the record (not shown to merchants) */
  rawStatus?: string;
  declineCode?: string;
  message?: string;
  action?: { type: 'redirect'; url: string };
}

export interface Connector {
  /** provider code this implementation serves (or "http" for the generic HTTP connector) */
  readonly kind: string;
  authorize(terminal: ConnectorTerminal, request: AuthorizeRequest): Promise<ConnectorResult>;
  capture(terminal: ConnectorTerminal, request: CaptureRequest): Promise<ConnectorResult>;
  void(terminal: ConnectorTerminal, request: VoidRequest): Promise<ConnectorResult>;
  refund(terminal: ConnectorTerminal, request: RefundRequest): Promise<ConnectorResult>;
  payout(terminal: ConnectorTerminal, request: PayoutRequest): Promise<ConnectorResult>;
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
