import { z } from '../api/zod';
import { Country, Currency, FutureDateInput } from '../api/common';
import { PAYMENT_METHODS } from '../api/fees/schemas';

/** `payplane routing-rules decide` input: issues name the flags (amount covers --amount and --currency). */
export const DecideInput = z.strictObject({
  merchant: z.string().uuid(),
  amount: z.strictObject({ currency: Currency, valueMinor: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER) }),
  method: z.enum(PAYMENT_METHODS),
  brand: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,49}$/, 'must be a lower-case brand such as visa').optional(),
  country: Country.optional(),
  channel: z.string().uuid().optional(),
  at: FutureDateInput.optional(),
});
