import fs from 'node:fs';
import { Flags } from '@oclif/core';
import { recordOwnerFlags } from './context';
import { renderRecord, renderTable, type TableOptions } from './output';
import { validateWith } from './validate';
import { formatMinor } from '../domain/money';
import { ValidationError } from '../domain/errors';
import { DisputeEvidenceInput } from '../api/disputes/schemas';
import type { DisputeEvidence } from '../db/models/disputes';
import type { Dispute } from '../services/disputes/disputes';

// The disputes commands' pieces.

/** --tenant and --merchant on the commands that take a dispute id: checked against the dispute (ownedArg). */
export const disputeOwnerFlags = {
  tenant: Flags.string({ description: "The dispute's tenant (404 when the dispute is another tenant's)" }),
  merchant: recordOwnerFlags.merchant,
};

/** The evidence flags, one per evidence field, and --evidence-file (a JSON object of the same fields). */
export const evidenceFlags = {
  'product-description': Flags.string({ description: 'Evidence: what was sold' }),
  'customer-name': Flags.string({ description: "Evidence: the customer's name" }),
  'customer-email': Flags.string({ description: "Evidence: the customer's email address" }),
  'shipping-tracking-number': Flags.string({ description: "Evidence: the shipment's tracking number" }),
  'refund-policy': Flags.string({ description: 'Evidence: the refund policy shown to the customer' }),
  'uncategorized-text': Flags.string({
    description:
      'Evidence: anything else (the sandbox acquirer decides on it: winning_evidence wins, losing_evidence loses, anything else wins)',
  }),
  'evidence-file': Flags.string({
    description: 'A JSON file of evidence fields ({"productDescription": "…", …}); the evidence flags override its fields',
  }),
};

const FLAG_OF = {
  productDescription: 'product-description',
  customerName: 'customer-name',
  customerEmail: 'customer-email',
  shippingTrackingNumber: 'shipping-tracking-number',
  refundPolicy: 'refund-policy',
  uncategorizedText: 'uncategorized-text',
} as const;

export type EvidenceFlagValues = Partial<Record<keyof typeof evidenceFlags, string>>;

/**
 * The evidence the flags give (the file's fields, then each flag's), validated with the API's own schema, issues
 * naming the flags; undefined when no evidence flag was given.
 */
export function evidenceFrom(flags: EvidenceFlagValues): DisputeEvidence | undefined {
  let fromFile: Record<string, unknown> = {};
  const file = flags['evidence-file'];
  if (file !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch (error) {
      throw ValidationError.field('--evidence-file', `must be a readable JSON file (${(error as Error).message})`);
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
      throw ValidationError.field('--evidence-file', 'must hold a JSON object of evidence fields');
    fromFile = parsed as Record<string, unknown>;
  }
  const fromFlags = Object.fromEntries(
    (Object.entries(FLAG_OF) as [keyof typeof FLAG_OF, keyof typeof evidenceFlags][])
      .filter(([, flag]) => flags[flag] !== undefined)
      .map(([field, flag]) => [field, flags[flag]]),
  );
  if (file === undefined && Object.keys(fromFlags).length === 0) return undefined;
  return validateWith(DisputeEvidenceInput, { ...fromFile, ...fromFlags }, FLAG_OF as unknown as Record<string, string>) as DisputeEvidence;
}

export function renderDisputes(rows: Dispute[], options: TableOptions = {}): string {
  if (rows.length === 0 && !options.csv && !options.columns) return 'No disputes.';
  return renderTable(
    rows,
    [
      { header: 'ID', get: (d) => d.id },
      { header: 'Payment', get: (d) => d.paymentId },
      { header: 'Merchant', get: (d) => d.merchantId },
      { header: 'Status', get: (d) => d.status },
      { header: 'Reason', get: (d) => d.reason },
      { header: 'Amount', get: (d) => formatMinor(d.amount) },
      { header: 'Fee', get: (d) => formatMinor(d.fee) },
      { header: 'Evidence due', get: (d) => d.evidenceDueBy },
      { header: 'Created', get: (d) => d.createdAt },
    ],
    options,
  );
}

export function renderDispute(d: Dispute): string {
  const evidence = Object.entries(d.evidence)
    .map(([k, v]) => `${k}: ${v}`)
    .join('; ');
  return renderRecord({
    id: d.id,
    payment: d.paymentId,
    tenant: d.tenantId,
    merchant: d.merchantId,
    mode: d.livemode ? 'live' : 'test',
    status: d.status,
    reason: d.reason,
    amount: formatMinor(d.amount),
    fee: formatMinor(d.fee),
    evidence,
    evidenceDueBy: d.evidenceDueBy,
    submitted: d.submittedAt ?? '',
    closed: d.closedAt ?? '',
    closedReason: d.closedReason ?? '',
    providerReference: d.providerReference ?? '',
    created: d.createdAt,
    updated: d.updatedAt,
  });
}
