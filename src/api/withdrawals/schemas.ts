import { z } from '../zod';
import { refersTo } from '../references';
import { Currency, Money, NullableTimestamp, Timestamp, listQuery } from '../common';
import { tenantOnly } from '../visibility';

// Withdrawals.

export const WITHDRAWAL_STATUSES = ['pending', 'approved', 'rejected', 'canceled', 'executing', 'completed', 'failed'] as const;

const MoneyOut = z.object({ currency: z.string(), valueMinor: z.number().int() });
const Text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max);
const actor = (what: string) =>
  z
    .string()
    .nullable()
    .openapi({
      description: `Who ${what}: the id of a user or API key (an operator at the terminal acts as its platform user, externalIdpId os:<name>).`,
    });

export const WithdrawalSchema = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    entityType: z.literal('merchant'),
    entityId: z.string().openapi({ description: 'The merchant whose available balance pays.' }),
    fundingAccountId: z
      .string()
      .openapi({ description: "The merchant's balance in the withdrawal's currency (the same id for every withdrawal from it)." }),
    withdrawalChannelId: z.string(),
    withdrawalMethodId: z.string(),
    livemode: z.boolean(),
    currency: z.string(),
    amount: MoneyOut.openapi({ description: 'What is paid out to the destination.' }),
    fee: MoneyOut.openapi({ description: 'The withdrawal fee (fee engine, transactionType withdrawal), charged on top of amount.' }),
    feeBreakdown: tenantOnly(z.record(z.string(), z.unknown()).nullable().optional(), 'Who earns the fee.'),
    destination: z.object({ type: z.string(), details: z.record(z.string(), z.string()) }).openapi({
      description:
        "The withdrawal method's details when the withdrawal was requested, masked (account numbers show their last 4 characters).",
    }),
    status: z.enum(WITHDRAWAL_STATUSES),
    failureReason: z.string().nullable(),
    rejectionReason: z.string().nullable(),
    executionComment: z.string().nullable(),
    providerReference: tenantOnly(z.string().nullable().optional(), "The payout's reference at the provider or bank."),
    idempotencyKey: z.string(),
    createdAt: Timestamp,
    approvedAt: NullableTimestamp,
    rejectedAt: NullableTimestamp,
    canceledAt: NullableTimestamp,
    executedAt: NullableTimestamp.openapi({ description: 'When the execution was started.' }),
    completedAt: NullableTimestamp,
    failedAt: NullableTimestamp,
    updatedAt: Timestamp,
    createdBy: actor('requested it'),
    approvedBy: actor('approved it'),
    rejectedBy: actor('rejected it'),
    canceledBy: actor('canceled it'),
    executedBy: actor('started its execution'),
    completedBy: actor('recorded its completion'),
    failedBy: actor('recorded its failure'),
  })
  .openapi('Withdrawal');

export const CreateWithdrawalBody = z
  .strictObject({
    amount: Money.refine((m) => m.valueMinor > 0, { message: 'must be positive', path: ['valueMinor'] }).openapi({
      description: 'What to pay out; its fee is held on top.',
    }),
    withdrawalMethodId: refersTo('withdrawalMethod', z.string().uuid('must be a withdrawal method id')),
    withdrawalChannelId: refersTo('channel', z.string().uuid('must be a channel id'))
      .optional()
      .openapi({ description: "A payout channel carrying the currency; default: the tenant's first active one." }),
    merchantId: refersTo('merchant', z.string().uuid('must be a merchant id'))
      .optional()
      .openapi({ description: 'Required for tenant callers: whose balance pays.' }),
  })
  .openapi('CreateWithdrawalBody');

export const RejectWithdrawalBody = z.strictObject({ rejectionReason: Text(1000) }).openapi('RejectWithdrawalBody');
export const CompleteWithdrawalBody = z
  .strictObject({ providerReference: Text(255).optional(), comment: Text(1000).optional() })
  .openapi('CompleteWithdrawalBody');
export const FailWithdrawalBody = z
  .strictObject({ comment: Text(1000), providerReference: Text(255).optional() })
  .openapi('FailWithdrawalBody');

export const ListWithdrawalsQuery = listQuery({
  status: z.enum(WITHDRAWAL_STATUSES).optional(),
  entityId: refersTo('merchant', z.string().uuid('must be a merchant id')).optional(),
  currency: Currency.optional(),
});
