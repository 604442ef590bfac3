import { z } from '../zod';
import { Currency, NullableTimestamp, Timestamp, Uuid, listQuery } from '../common';

// Limit records of merchants, channels and terminals.

const PeriodUnit = z.enum(['minute', 'hour', 'day', 'week', 'month']);
const Metric = z.enum(['volume', 'count']);
const TransactionType = z.enum(['payment', 'refund', 'payout', 'withdrawal']);
const Narrowing = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,49}$/, 'must be a lower-case identifier such as card or visa (letters, digits, _ and -; at most 50)');

const LIMIT_DESCRIPTION =
  'Caps, per period, the volume (sum of amounts) or count of transactions of its entity. threshold is a positive integer: for metric volume an amount in minor units of currency (currency then required), for metric count a number of transactions. currency, paymentMethod, brand and transactionType (default payment) narrow what is counted. Enforced: payment limits on checkout (merchant and channel limits refuse with 422 LIMIT_EXCEEDED; terminal limits make routing skip the terminal) and withdrawal limits on withdrawal requests (merchant and payout channel; rejected, canceled and failed withdrawals consume nothing). refund, payout and chargeback limits are kept but not enforced yet.';

export const LimitSchema = z
  .object({
    id: Uuid,
    tenantId: Uuid,
    entityId: Uuid,
    entityType: z.enum(['merchant', 'channel', 'terminal']),
    period: z.object({ value: z.number().int(), unit: PeriodUnit }).strict(),
    metric: Metric,
    threshold: z.number().int(),
    currency: z.string().nullable(),
    paymentMethod: z.string().nullable(),
    brand: z.string().nullable(),
    transactionType: TransactionType,
    status: z.enum(['active', 'disabled']),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    deletedAt: NullableTimestamp,
  })
  .strict()
  .openapi('Limit', { description: LIMIT_DESCRIPTION });

export const CreateLimitBody = z
  .strictObject({
    period: z.strictObject({ value: z.number().int().min(1).max(1000), unit: PeriodUnit }),
    metric: Metric,
    threshold: z
      .number()
      .int('must be an integer (minor units for volume, transactions for count)')
      .positive()
      .max(Number.MAX_SAFE_INTEGER),
    currency: Currency.nullable().optional().openapi({ description: 'Required for metric volume.' }),
    paymentMethod: Narrowing.nullable().optional(),
    brand: Narrowing.nullable().optional(),
    transactionType: TransactionType.optional().openapi({ description: 'Default payment.' }),
  })
  .openapi('CreateLimitRequest', { description: LIMIT_DESCRIPTION });

export const ListLimitsQuery = listQuery({ status: z.enum(['active', 'disabled']).optional() });

export const limitParams = z.object({
  id: z.string().min(1).openapi({ description: 'Owner id (uuid).' }),
  limitId: z.string().min(1).openapi({ description: 'Limit id (uuid).' }),
});
