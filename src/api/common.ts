import { z } from './zod';
import { notChecked } from './references';
import { isCountry, isCurrency } from '../domain/money';

/** Common list parameters of the specification. */
export const listParams = {
  cursor: notChecked(
    "the list's own cursor, which the list checks (INVALID_CURSOR)",
    z.string().uuid('must be a cursor (uuid) from a previous pagination.nextCursor or prevCursor'),
  )
    .optional()
    .openapi({ description: 'Id of the first record of the page to return, from pagination.nextCursor or prevCursor.' }),
  limit: z.coerce
    .number()
    .int('must be an integer')
    .min(1, 'must be between 1 and 100')
    .max(100, 'must be between 1 and 100')
    .default(20)
    .openapi({ type: 'integer', minimum: 1, maximum: 100, default: 20 }),
  sortOrder: z.enum(['asc', 'desc']).default('desc').openapi({ description: 'Sorts by createdAt; desc (newest first) by default.' }),
};

export function listQuery<T extends z.ZodRawShape>(filters: T) {
  return z.object({ ...filters, ...listParams });
}

/** Query booleans arrive as strings. */
export const queryBoolean = z.enum(['true', 'false']).transform((v) => v === 'true');

/** A record id. */
export const Uuid = z.string().uuid();
/** A record's display name. */
export const RecordName = z.string().trim().min(1).max(200);

export const idParams = z.object({ id: z.string().min(1).openapi({ description: 'Record id (uuid).' }) });

export const Timestamp = z.string().openapi({ format: 'date-time', example: '2026-01-01T00:00:00.000Z' });
export const NullableTimestamp = Timestamp.nullable();

export const Currency = z
  .string()
  .regex(/^[A-Z]{3}$/, { message: 'must be an upper-case ISO 4217 currency code', abort: true })
  .refine(isCurrency, 'is not an ISO 4217 currency')
  .openapi({ example: 'EUR' });

export const Country = z
  .string()
  .regex(/^[A-Z]{2}$/, { message: 'must be an upper-case ISO 3166-1 alpha-2 country code', abort: true })
  .refine(isCountry, 'is not an ISO 3166-1 country')
  .openapi({ example: 'DE' });

/** A BCP 47 language tag (en, de-DE), as the runtime's Intl canonicalizes it. */
export const Locale = z
  .string()
  .max(35)
  .refine((v) => {
    try {
      return Intl.getCanonicalLocales(v).length === 1;
    } catch {
      return false;
    }
  }, 'must be a BCP 47 language tag such as en or de-DE')
  .openapi({ example: 'en-GB' });

/** How deep a free-form JSON value of a request may nest (deeper ones would overflow JSON.stringify: a 500). */
export const MAX_JSON_DEPTH = 32;

/** Whether a parsed JSON value nests at most `max` arrays or objects deep (iterative: any depth is safe). */
export function jsonDepthWithin(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (!v || typeof v !== 'object') continue;
    if (depth >= max) return false;
    for (const child of Object.values(v as Record<string, unknown>)) stack.push([child, depth + 1]);
  }
  return true;
}

export const Money = z
  .strictObject({ currency: Currency, valueMinor: z.number().int('must be an integer amount in minor units').safe() })
  .openapi('Money');

export const HttpsUrl = z.url({ protocol: /^https$/, error: 'must be an https URL' }).max(2048);
export const Email = z.email('must be an email address').max(254);

/** An ISO 8601 date-time between 1970 and 9999 (UTC): both databases store and order it correctly. */
export const FutureDateInput = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time', abort: true }).refine((v) => {
  const t = Date.parse(v);
  return t >= 0 && t < Date.UTC(10000, 0, 1);
}, 'must be between 1970-01-01 and 9999-12-31 (UTC)');

export const Pagination = z
  .object({
    nextCursor: z.string().nullable(),
    prevCursor: z.string().nullable(),
    hasMore: z.boolean(),
    totalCount: z.number().int(),
  })
  .openapi('Pagination');

export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    instance: z.string().optional(),
    code: z.string().openapi({ description: 'Stable UPPER_SNAKE error code.' }),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    requestId: z.string().optional(),
  })
  .openapi('Problem');
