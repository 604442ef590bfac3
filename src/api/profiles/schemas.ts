import { z } from '../zod';
import { refersTo } from '../references';
import { HttpsUrl, jsonDepthWithin, listQuery, Locale, MAX_JSON_DEPTH, NullableTimestamp, Timestamp, Uuid } from '../common';

// Integration profiles.

export const PROFILE_MODES = ['checkout', 'api', 'hosted_page'] as const;
export const PROFILE_STATUSES = ['enabled', 'disabled'] as const;
export const SESSION_LIFETIME = { min: 60, max: 86_400 } as const;
export const MAX_DECLINE_ATTEMPTS = { min: 1, max: 10, default: 3 } as const;
/** the serialized cascadePolicy may take at most this many bytes */
export const CASCADE_POLICY_MAX_BYTES = 8192;

const Mode = z
  .enum(PROFILE_MODES)
  .openapi({ description: "checkout (sessions on the merchant's page), api (server to server) or hosted_page." });
const Status = z.enum(PROFILE_STATUSES);

const SessionLifetime = z
  .number()
  .int('must be an integer number of seconds')
  .min(SESSION_LIFETIME.min, `must be between ${SESSION_LIFETIME.min} and ${SESSION_LIFETIME.max} seconds`)
  .max(SESSION_LIFETIME.max, `must be between ${SESSION_LIFETIME.min} and ${SESSION_LIFETIME.max} seconds`)
  .openapi({
    description: `Seconds, ${SESSION_LIFETIME.min} to ${SESSION_LIFETIME.max} (24 h): the longest a checkout session of this merchant may stay open.`,
    example: 3600,
  });

const MaxDeclineAttempts = z
  .number()
  .int('must be an integer')
  .min(MAX_DECLINE_ATTEMPTS.min, `must be between ${MAX_DECLINE_ATTEMPTS.min} and ${MAX_DECLINE_ATTEMPTS.max}`)
  .max(MAX_DECLINE_ATTEMPTS.max, `must be between ${MAX_DECLINE_ATTEMPTS.min} and ${MAX_DECLINE_ATTEMPTS.max}`)
  .openapi({
    description: `Declines tolerated for one payment before it fails (cascading to the next terminal in between); ${MAX_DECLINE_ATTEMPTS.min} to ${MAX_DECLINE_ATTEMPTS.max}, default ${MAX_DECLINE_ATTEMPTS.default}.`,
  });

const CascadePolicy = z
  .record(z.string().min(1).max(100), z.unknown())
  .refine((v) => jsonDepthWithin(v), { message: `must nest at most ${MAX_JSON_DEPTH} levels deep`, abort: true })
  .refine(
    (v) => Buffer.byteLength(JSON.stringify(v), 'utf8') <= CASCADE_POLICY_MAX_BYTES,
    `must serialize to at most ${CASCADE_POLICY_MAX_BYTES} bytes of JSON`,
  )
  .openapi({
    description: `Free-form JSON object read by the payment path's cascading (at most ${CASCADE_POLICY_MAX_BYTES} bytes serialized); default {}. The payment path reads retryOn (decline codes that move the payment to the next terminal; default the soft declines card_declined, card_not_supported, do_not_honor, processing_error, provider_unavailable) and neverRetryOn (decline codes that never do).`,
  });

const ReturnUrl = HttpsUrl.openapi({ description: 'https URL the customer returns to after a hosted flow.' });

const PROFILE_DESCRIPTION =
  'How one merchant integrates in one mode: at most one profile per merchant and mode. sessionLifetime (seconds) bounds the expiry of checkout sessions; cascadingEnabled, maxDeclineAttempts and cascadePolicy drive cascading in the payment path.';

export const IntegrationProfileSchema = z
  .object({
    id: Uuid,
    merchantId: Uuid,
    tenantId: Uuid,
    mode: Mode,
    status: Status,
    returnUrl: z.string().nullable(),
    sessionLifetime: z.number().int(),
    maxDeclineAttempts: z.number().int(),
    cascadingEnabled: z.boolean(),
    cascadePolicy: z.record(z.string(), z.unknown()),
    defaultLocale: z.string().nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    deletedAt: NullableTimestamp,
  })
  .strict()
  .openapi('IntegrationProfile', { description: PROFILE_DESCRIPTION });

export const CreateIntegrationProfileBody = z
  .strictObject({
    merchantId: refersTo('merchant', Uuid).openapi({ description: 'A merchant the caller sees; the profile belongs to its tenant.' }),
    mode: Mode,
    sessionLifetime: SessionLifetime,
    status: Status.optional().openapi({ description: 'Default enabled.' }),
    returnUrl: ReturnUrl.nullable().optional(),
    maxDeclineAttempts: MaxDeclineAttempts.optional(),
    cascadingEnabled: z.boolean().optional().openapi({ description: 'Default false.' }),
    cascadePolicy: CascadePolicy.optional(),
    defaultLocale: Locale.nullable().optional(),
  })
  .openapi('CreateIntegrationProfileRequest', { description: PROFILE_DESCRIPTION });

export const UpdateIntegrationProfileBody = z
  .strictObject({
    status: Status.optional(),
    returnUrl: ReturnUrl.nullable().optional(),
    sessionLifetime: SessionLifetime.optional(),
    maxDeclineAttempts: MaxDeclineAttempts.optional(),
    cascadingEnabled: z.boolean().optional(),
    cascadePolicy: CascadePolicy.optional().openapi({ description: 'Replaces the whole object.' }),
    defaultLocale: Locale.nullable().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, {
    message:
      'provide at least one of status, returnUrl, sessionLifetime, maxDeclineAttempts, cascadingEnabled, cascadePolicy, defaultLocale',
  })
  .openapi('UpdateIntegrationProfileRequest', { description: 'merchantId and mode are fixed at creation.' });

export const ListIntegrationProfilesQuery = listQuery({
  merchantId: refersTo('merchant', Uuid).optional(),
  mode: Mode.optional(),
  status: Status.optional(),
  tenantId: refersTo('tenant', Uuid).optional().openapi({ description: "Platform callers: only this tenant's profiles." }),
});
