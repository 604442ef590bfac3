import type { Sequelize } from 'sequelize';
import { define, pk, UUID, STRING, TEXT, JSONT, BOOLEAN, DATE, INTEGER, BIGINT, type RowModel } from '../model-kit';
import type { ConnectorResult, DisputeNotice } from '../../connectors/results';

// The sandbox acquirer's own operations: its side of the asynchronous answers (what a real acquirer keeps before it
// calls back). Never holds a card number or cvc: only the scenario the number selected.

/** The behaviour a test card selects (src/connectors/sandbox-card.ts SCENARIOS). */
export type SandboxScenario =
  | 'success'
  | 'declined'
  | 'insufficient_funds'
  | 'lost_card'
  | 'expired_card'
  | 'incorrect_cvc'
  | 'processing_error'
  | 'three_ds_challenge'
  | 'three_ds_frictionless'
  | 'funds_available_immediately'
  | 'refund_fails'
  | 'unsupported'
  /** captured, then disputed by the cardholder's bank */
  | 'dispute_fraudulent'
  | 'dispute_product_not_received';

/**
 * awaiting_challenge: a 3DS challenge page is open (dueAt is its expiry; outcome the expiry's answer);
 * scheduled: the outcome is decided and due at dueAt; done: delivered to the payment path.
 */
export type SandboxOperationStatus = 'awaiting_challenge' | 'scheduled' | 'done';

export interface SandboxOperationRow {
  id: string;
  /**
   * dispute: the acquirer notifies a dispute of a captured payment; dispute_decision: it decides one after the evidence;
   * dispute_deadline: it closes one nobody answered lost at its evidenceDueBy (called off by evidence or acceptance);
   * dispute_acceptance: the merchant's acceptance it took (done at once: nothing delivered back)
   */
  kind: 'authorize' | 'refund' | 'dispute' | 'dispute_decision' | 'dispute_deadline' | 'dispute_acceptance';
  /** our reference given in the request (the payment attempt id, the refund id; a dispute's: the authorization's reference, the dispute id) */
  reference: string;
  /** the acquirer's reference: of the authorization (kind authorize) or of the refund */
  providerReference: string;
  /** for a refund: the authorization it refunds */
  paymentProviderReference: string | null;
  providerIntegrationId: string;
  terminalId: string | null;
  tenantId: string;
  livemode: boolean;
  scenario: SandboxScenario;
  captureRequested: boolean;
  currency: string;
  amountMinor: number;
  /** the final answer delivered at dueAt */
  outcome: ConnectorResult | null;
  /** kinds dispute and dispute_decision: the notification delivered at dueAt */
  notification: DisputeNotice | null;
  returnUrl: string | null;
  /** sha256 of the 3DS challenge page's capability token (the token itself is never stored) */
  challengeTokenHash: string | null;
  status: SandboxOperationStatus;
  dueAt: Date | null;
  lockedBy: string | null;
  lockedUntil: Date | null;
  doneAt: Date | null;
  attempts: number;
  lastError: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface SandboxModels {
  SandboxOperation: RowModel<SandboxOperationRow>;
}

export function defineSandboxModels(sequelize: Sequelize): SandboxModels {
  return {
    SandboxOperation: define<SandboxOperationRow>(
      sequelize,
      'SandboxOperation',
      'sandbox_acquirer_operations',
      {
        id: pk,
        kind: STRING,
        reference: STRING,
        providerReference: STRING,
        paymentProviderReference: STRING,
        providerIntegrationId: UUID,
        terminalId: UUID,
        tenantId: UUID,
        livemode: BOOLEAN,
        scenario: STRING,
        captureRequested: BOOLEAN,
        currency: STRING,
        amountMinor: BIGINT,
        outcome: JSONT,
        returnUrl: TEXT,
        challengeTokenHash: STRING,
        status: STRING,
        dueAt: DATE,
        lockedBy: STRING,
        lockedUntil: DATE,
        doneAt: DATE,
        attempts: INTEGER,
        lastError: TEXT,
        notification: JSONT,
        createdAt: DATE,
        updatedAt: DATE,
      },
      // the acquirer's own records, read and written by the acquirer only (never through a caller's scope)
      { resource: 'sandbox operation', tenant: 'tenantId', merchant: null, mode: 'livemode', softDelete: false },
    ),
  };
}
