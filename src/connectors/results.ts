// What a provider answers: plain data, kept on payment and sandbox-acquirer records (so the db layer may name it).

import type { Money } from '../domain/money';

export type ConnectorStatus = 'succeeded' | 'pending' | 'requires_action' | 'declined' | 'failed';

export interface ConnectorResult {
  status: ConnectorStatus;
  providerReference: string | null;
  /** the provider's own status and codes, kept for the record (not shown to merchants) */
  rawStatus?: string;
  /** our code of a decline or error (card_declined, insufficient_funds, processing_error …): the acquirer's mapped to ours */
  declineCode?: string;
  /** the acquirer's own decline or error code (Stripe's decline_code or code, Adyen's refusalReasonCode), kept for tenants */
  rawCode?: string;
  message?: string;
  action?: { type: 'redirect'; url: string };
  /** the 3DS outcome when 3DS ran (payment record's threeDSResult) */
  threeDSResult?: ThreeDsResult;
  /** the acquirer settles at once: the merchant's funds skip the holding period */
  fundsAvailableImmediately?: boolean;
}

/** The specification's threeDSResult record. */
export interface ThreeDsResult {
  version: string;
  status: string;
  statusReason?: string | null;
  eci?: string | null;
  cavv?: string | null;
  xid?: string | null;
  dsTransId?: string | null;
  messageVersion?: string | null;
  serverTransId?: string | null;
  acsTransId?: string | null;
  enrolled?: string | null;
  liabilityShift?: boolean;
  challengeFlow?: string | null;
  challenged?: boolean;
  challengeCancelled?: boolean;
  exemptionApplied?: string | null;
}

/**
 * What an acquirer notifies about a dispute (chargeback) of one of its payments, as its dispute webhook carries it:
 * `opened` names the payment by the acquirer's reference of its authorization; `decided` names the dispute by the
 * acquirer's reference of it. Applied once per reference (src/services/disputes/notifications.ts).
 */
export type DisputeNotice =
  | {
      type: 'opened';
      paymentProviderReference: string;
      providerReference: string;
      amount: Money;
      reason: string;
      /** ISO 8601: when evidence must have been submitted */
      evidenceDueBy: string;
    }
  | { type: 'decided'; providerReference: string; outcome: 'won' | 'lost' };
