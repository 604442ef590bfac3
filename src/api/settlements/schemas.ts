import { z } from '../zod';
import { refersTo } from '../references';
import { Currency, Money, NullableTimestamp, Timestamp, Uuid, listParams, listQuery } from '../common';
import { tenantOnly } from '../visibility';
import { LINE_SOURCE_TYPES, LINE_TYPES, TOTAL_NAMES } from '../../services/settlements/rules';
import { BALANCE_TRANSACTION_TYPES } from '../ledger/schemas';

// Settlement statements: one per merchant, currency and UTC day, with its lines (the ledger's entries of that day).

export const STATEMENT_RULE =
  "One statement per merchant, currency, mode and UTC day, opened by the merchant's first ledger movement of the day in the currency (visible at once, status open, its figures computed from the entries when read) and finalized once by the settlements job after the day ends (status finalized, figures stored; settlement.finalized). A day without a movement has no statement. Opening + the lines = closing per balance type; a day's closing is the next day's opening; the statements of a merchant add up to its balances (GET /v1/balances).";

const IsoDateOrDateTime = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/, 'must be a date (YYYY-MM-DD) or an ISO 8601 date-time')
  .refine((v) => {
    const t = Date.parse(v);
    return Number.isFinite(t) && t >= 0 && t < Date.UTC(10000, 0, 1);
  }, 'must be a valid date between 1970-01-01 and 9999-12-31 (UTC)')
  .transform((v) => new Date(v));

const BalancesSchema = z
  .object({ pending: Money, available: Money, reserved: Money, payable: Money })
  .openapi('SettlementBalances', { description: "The merchant's balances in the statement's currency and mode." });

const FeeParts = z.object({
  providerFee: tenantOnly(Money, 'What the provider earns.'),
  tenantFee: tenantOnly(Money, 'What the tenant earns (and a partner commission without a partner).'),
  platformFee: tenantOnly(Money, 'What the platform earns.'),
  partnerCommission: tenantOnly(Money, "What the merchant's partner earns."),
});

const TotalsSchema = z
  .object({
    ...(Object.fromEntries(TOTAL_NAMES.map((name) => [name, Money])) as Record<(typeof TOTAL_NAMES)[number], typeof Money>),
    feeBreakdown: tenantOnly(FeeParts.optional(), "Who earns the day's fees."),
  })
  .openapi('SettlementTotals', {
    description:
      "gross: captured (before fees, the reserve included); fees: charged to the merchant (positive); refunds, disputes (opened and won back), withdrawals and payouts (what left), adjustments: signed as they moved the merchant's money; reserveHeld and reserveReleased: moved into and out of the reserve (positive); net = gross − fees + refunds + disputes + withdrawals + payouts + adjustments = the change of the four balances together.",
  });

export const SettlementStatementSchema = z
  .object({
    id: Uuid,
    tenantId: Uuid,
    merchantId: Uuid,
    livemode: z.boolean(),
    currency: Currency,
    periodStart: Timestamp.openapi({ description: '00:00 UTC of the day.' }),
    periodEnd: Timestamp.openapi({ description: '00:00 UTC of the next day (exclusive).' }),
    status: z.enum(['open', 'finalized']),
    openingBalance: BalancesSchema,
    closingBalance: BalancesSchema,
    totals: TotalsSchema,
    lineCount: z.number().int(),
    finalizedAt: NullableTimestamp,
    downloadUrl: z.string().openapi({ description: 'The statement as CSV (GET /v1/settlements/{id}/download): an absolute URL.' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .strict()
  .openapi('SettlementStatement', { description: STATEMENT_RULE });

export const SettlementLineSchema = z
  .object({
    id: Uuid.openapi({ description: "The ledger entry of the line (a fee line: the first of its fee's entries)." }),
    statementId: Uuid,
    type: z.enum(LINE_TYPES),
    sourceType: z.enum(LINE_SOURCE_TYPES).openapi({
      description:
        'What sourceId names: the payment (a capture, a release of its funds or reserve), refund, dispute, withdrawal or payout.',
    }),
    sourceId: z.string(),
    amount: Money.openapi({ description: 'The movement before the fee (0 on a fee line).' }),
    fee: Money.openapi({ description: 'The fee charged (positive; only on fee lines: fee, dispute_fee, withdrawal_fee).' }),
    net: Money.openapi({ description: 'amount − fee: what the line moved on balanceType.' }),
    feeBreakdown: tenantOnly(FeeParts.nullable().optional(), 'Who earns the fee of a fee line.'),
    balanceType: z.enum(['pending', 'available', 'reserved', 'payable']),
    postingType: z
      .enum(BALANCE_TRANSACTION_TYPES)
      .openapi({ description: 'The ledger posting the line comes from (GET /v1/balance-transactions type).' }),
    description: z.string().nullable(),
    occurredAt: Timestamp,
  })
  .strict()
  .openapi('SettlementLine');

export const ListSettlementsQuery = listQuery({
  merchantId: refersTo('merchant', Uuid)
    .optional()
    .openapi({ description: "Tenant and platform callers: one merchant's statements. Merchant callers see their own only." }),
  currency: Currency.optional(),
  status: z.enum(['open', 'finalized']).optional(),
  periodFrom: IsoDateOrDateTime.optional().openapi({ description: 'Statements of this day (UTC) and later: a date or a date-time.' }),
  periodTo: IsoDateOrDateTime.optional().openapi({ description: 'Statements of this day (UTC) and earlier: a date or a date-time.' }),
});

export const ListSettlementLinesQuery = z.object({
  cursor: listParams.cursor,
  limit: listParams.limit,
  sortOrder: z
    .enum(['asc', 'desc'])
    .default('asc')
    .openapi({ description: 'In the order the movements happened: asc (oldest first) by default.' }),
});
