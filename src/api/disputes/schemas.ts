import { z } from '../zod';
import { refersTo } from '../references';
import { NullableTimestamp, Timestamp, Uuid, listQuery } from '../common';
import { tenantOnly } from '../visibility';
import { DISPUTE_REASONS, DISPUTE_STATUSES, EVIDENCE_FIELDS } from '../../db/models/disputes';

// Disputes (chargebacks): opened and decided by the acquirer; the merchant answers with evidence, or concedes.

export const DISPUTE_RULE =
  "The acquirer opens a dispute of a captured payment (dispute.created): the merchant's available balance is debited by amount + fee (the dispute fee of the fee schedule, transactionType dispute; it may go negative: balance.negative to tenant endpoints). While needs_response the evidence may be updated (PATCH, dispute.updated), submitted (submit: under_review, dispute.updated; the acquirer decides) or the dispute accepted (accept: lost, dispute.lost; the acquirer is told, and told again until it answered). A needs_response dispute past evidenceDueBy is lost (dispute.lost). Won (dispute.won) credits the amount back (the fee stays); lost posts nothing more. A payment with an open or lost dispute refuses refunds beyond what the dispute left (409 PAYMENT_DISPUTED). The acquirer's own decision is kept (acquirerOutcome, acquirerDecidedAt), also one that arrives after the dispute closed otherwise (accepted, past its deadline, or decided differently before): the status and the money stay as they were, and tenant endpoints get dispute.late_decision to reconcile it.";

const MoneyOut = z.object({ currency: z.string(), valueMinor: z.number().int() });

const EVIDENCE_MAX = 20_000;
const evidenceShape = Object.fromEntries(
  EVIDENCE_FIELDS.map((field) => [field, z.string().max(EVIDENCE_MAX, `must be at most ${EVIDENCE_MAX} characters`).optional()]),
) as Record<(typeof EVIDENCE_FIELDS)[number], z.ZodOptional<z.ZodString>>;

export const DisputeEvidenceSchema = z.object(evidenceShape).openapi('DisputeEvidence', {
  description: 'What the merchant answers the dispute with: text fields, each optional (at most 20,000 characters).',
});

export const DisputeEvidenceInput = z.strictObject(evidenceShape).openapi('DisputeEvidenceInput', {
  description:
    'Evidence fields to set (each at most 20,000 characters; an empty string clears one); fields left out keep their value. Unknown fields are 400.',
});

export const DisputeSchema = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    merchantId: z.string(),
    paymentId: z.string(),
    livemode: z.boolean(),
    amount: MoneyOut.openapi({ description: "What the cardholder's bank took back." }),
    fee: MoneyOut.openapi({ description: 'The dispute fee (fee schedule, transactionType dispute), kept whatever the outcome.' }),
    feeBreakdown: tenantOnly(z.record(z.string(), z.unknown()).nullable().optional(), 'Who earns the dispute fee.'),
    reason: z.enum(DISPUTE_REASONS),
    status: z.enum(DISPUTE_STATUSES),
    evidence: DisputeEvidenceSchema,
    evidenceDueBy: Timestamp.openapi({ description: 'Past it, a needs_response dispute is lost.' }),
    submittedAt: NullableTimestamp,
    closedAt: NullableTimestamp.openapi({ description: 'When it was won or lost.' }),
    closedReason: z.enum(['acquirer_won', 'acquirer_lost', 'accepted', 'evidence_deadline']).nullable().openapi({
      description: 'How it closed: decided by the acquirer (won or lost), accepted by the merchant, or lost at the evidence deadline.',
    }),
    acquirerOutcome: z.enum(['won', 'lost']).nullable().optional().openapi({
      description:
        "The acquirer's decision, once it gave one: also one that came after the dispute closed otherwise (accepted, past its deadline), which changes neither status nor money (dispute.late_decision).",
    }),
    acquirerDecidedAt: NullableTimestamp.optional().openapi({ description: "When the acquirer's decision arrived." }),
    providerReference: tenantOnly(z.string().nullable().optional(), "The acquirer's reference of the dispute."),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi('Dispute', { description: DISPUTE_RULE });

export const UpdateDisputeBody = z.strictObject({ evidence: DisputeEvidenceInput }).openapi('UpdateDisputeRequest');

export const SubmitDisputeBody = z
  .strictObject({ evidence: DisputeEvidenceInput.optional() })
  .openapi('SubmitDisputeRequest', { description: 'Optionally the last evidence changes, applied before the evidence is submitted.' });

export const ListDisputesQuery = listQuery({
  status: z.enum(DISPUTE_STATUSES).optional(),
  paymentId: refersTo('payment', Uuid).optional(),
  merchantId: refersTo('merchant', Uuid).optional().openapi({ description: "Tenant and platform callers: one merchant's disputes." }),
  reason: z.enum(DISPUTE_REASONS).optional(),
});
