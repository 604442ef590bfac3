import type { Sequelize } from 'sequelize';
import { define, pk, stamps, UUID, STRING, JSONT, BOOLEAN, DATE, BIGINT, type RowModel, type Timestamps } from '../model-kit';

// Disputes (chargebacks) of captured payments, opened and decided by the acquirer (src/services/disputes).

export const DISPUTE_REASONS = [
  'fraudulent',
  'product_not_received',
  'product_unacceptable',
  'duplicate',
  'credit_not_processed',
  'general',
] as const;
export type DisputeReason = (typeof DISPUTE_REASONS)[number];

export const DISPUTE_STATUSES = ['needs_response', 'under_review', 'won', 'lost'] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

/** The open statuses: at most one open dispute per payment (a partial unique index). */
export const OPEN_DISPUTE_STATUSES: readonly DisputeStatus[] = ['needs_response', 'under_review'];

export const EVIDENCE_FIELDS = [
  'productDescription',
  'customerName',
  'customerEmail',
  'shippingTrackingNumber',
  'refundPolicy',
  'uncategorizedText',
] as const;
export type DisputeEvidence = Partial<Record<(typeof EVIDENCE_FIELDS)[number], string>>;

/** How a dispute closed: won or lost at the acquirer, conceded by the merchant, lost by the evidence deadline. */
export type DisputeClosedReason = 'acquirer_won' | 'acquirer_lost' | 'accepted' | 'evidence_deadline';

export interface DisputeRow extends Timestamps {
  id: string;
  tenantId: string;
  merchantId: string;
  paymentId: string;
  livemode: boolean;
  /** the acquirer (provider integration) that notified it: with providerReference, the notification's identity */
  providerIntegrationId: string;
  currency: string;
  amountMinor: number;
  /** the dispute fee (fee engine, transactionType dispute) */
  feeMinor: number;
  feeBreakdown: Record<string, unknown> | null;
  reason: DisputeReason;
  status: DisputeStatus;
  evidence: DisputeEvidence;
  evidenceDueBy: Date;
  submittedAt: Date | null;
  /** when the acquirer took the submitted evidence (internal: a submission without it is sent again) */
  evidenceSentAt: Date | null;
  closedAt: Date | null;
  providerReference: string;
  submittedBy: string | null;
  closedBy: string | null;
  closedReason: DisputeClosedReason | null;
  /** when the acquirer took (or answered) the merchant's acceptance (internal: an acceptance without it is sent again) */
  acceptanceSentAt: Date | null;
  /** the acquirer's own decision, also one that arrived after the dispute closed otherwise */
  acquirerOutcome: 'won' | 'lost' | null;
  acquirerDecidedAt: Date | null;
}

export interface DisputeModels {
  Dispute: RowModel<DisputeRow>;
}

export function defineDisputeModels(sequelize: Sequelize): DisputeModels {
  return {
    Dispute: define<DisputeRow>(
      sequelize,
      'Dispute',
      'disputes',
      {
        id: pk,
        tenantId: UUID,
        merchantId: UUID,
        paymentId: UUID,
        livemode: BOOLEAN,
        providerIntegrationId: UUID,
        currency: STRING,
        amountMinor: BIGINT,
        feeMinor: BIGINT,
        feeBreakdown: JSONT,
        reason: STRING,
        status: STRING,
        evidence: JSONT,
        evidenceDueBy: DATE,
        submittedAt: DATE,
        evidenceSentAt: DATE,
        closedAt: DATE,
        providerReference: STRING,
        submittedBy: STRING,
        closedBy: STRING,
        closedReason: STRING,
        acceptanceSentAt: DATE,
        acquirerOutcome: STRING,
        acquirerDecidedAt: DATE,
        ...stamps,
      },
      { resource: 'dispute', tenant: 'tenantId', merchant: 'merchantId', mode: 'livemode' },
    ),
  };
}
