import { z } from '../api/zod';
import { Currency, FutureDateInput } from '../api/common';
import { PAYMENT_METHODS, TRANSACTION_TYPES } from '../api/fees/schemas';

/** `payplane fees quote` input: issues name the flags (amount covers --amount and --currency). */
export const QuoteInput = z.strictObject({
  tenant: z.string().uuid().optional(),
  merchant: z.string().uuid(),
  amount: z.strictObject({ currency: Currency, valueMinor: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER) }),
  method: z.enum(PAYMENT_METHODS),
  type: z.enum(TRANSACTION_TYPES),
  outcome: z.enum(['successful', 'failed']),
  terminal: z.string().uuid().optional(),
  channel: z.string().uuid().optional(),
  partner: z.string().uuid().optional(),
  at: FutureDateInput.optional(),
});
