import { z } from '../zod';
import { refersTo } from '../references';
import { NullableTimestamp, Timestamp, listQuery } from '../common';

const Level = z.enum(['merchant', 'tenant', 'platform']);

export const WebhookEndpointSchema = z
  .object({
    id: z.string().uuid(),
    tenantId: z.string().uuid().nullable(),
    merchantId: z.string().uuid().nullable(),
    level: Level,
    livemode: z.boolean(),
    url: z.string(),
    events: z.array(z.string()),
    description: z.string().nullable(),
    status: z
      .enum(['enabled', 'failing', 'disabled'])
      .openapi({ description: 'failing: deliveries are being exhausted; still delivered until disabled.' }),
    maxAttempts: z.number().int(),
    previousSecretExpiresAt: NullableTimestamp.openapi({ description: 'Grace deadline of the previous secret after a rotation.' }),
    failingSince: NullableTimestamp,
    lastSuccessAt: NullableTimestamp,
    disabledReason: z.string().nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    deletedAt: NullableTimestamp,
  })
  .strict()
  .openapi('WebhookEndpoint');

export const WebhookEndpointWithSecretSchema = WebhookEndpointSchema.extend({
  secret: z.string().openapi({ description: 'Signing secret (whsec_…), returned by create and rotate only.' }),
})
  .strict()
  .openapi('WebhookEndpointWithSecret');

const Url = z
  .url({ protocol: /^https$/, error: 'must be an https URL' })
  .max(2048)
  .openapi({ example: 'https://example.com/webhooks' });
const Events = z
  .array(z.string().min(1).max(100))
  .min(1)
  .max(100)
  .openapi({ description: 'Event names, category wildcards (payment.*) or *.' });
const MaxAttempts = z.number().int().min(1).max(10);

export const CreateEndpointBody = z
  .strictObject({ url: Url, events: Events, description: z.string().max(500).nullable().optional(), maxAttempts: MaxAttempts.optional() })
  .openapi('CreateWebhookEndpointRequest');

export const UpdateEndpointBody = z
  .strictObject({
    url: Url.optional(),
    events: Events.optional().openapi({ description: 'Replaces the whole subscription set.' }),
    description: z.string().max(500).nullable().optional(),
    status: z.enum(['enabled', 'disabled']).optional(),
    maxAttempts: MaxAttempts.optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'provide at least one of url, events, description, status, maxAttempts' })
  .openapi('UpdateWebhookEndpointRequest');

export const RotateSecretBody = z
  .strictObject({
    graceHours: z
      .number()
      .int()
      .min(0)
      .max(720)
      .optional()
      .openapi({ description: 'How long the previous secret stays valid; default 24.' }),
  })
  .openapi('RotateWebhookSecretRequest');

export const DeliverySchema = z
  .object({
    id: z.string().uuid(),
    eventId: z.string().uuid(),
    eventType: z.string(),
    endpointId: z.string().uuid(),
    tenantId: z.string().uuid().nullable(),
    merchantId: z.string().uuid().nullable(),
    livemode: z.boolean(),
    status: z.enum(['pending', 'succeeded', 'failed', 'canceled']),
    attemptCount: z.number().int(),
    maxAttempts: z.number().int(),
    nextAttemptAt: NullableTimestamp,
    lastAttemptAt: NullableTimestamp,
    lastError: z.string().nullable(),
    succeededAt: NullableTimestamp,
    failedAt: NullableTimestamp,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    attempts: z
      .array(
        z.object({
          attempt: z.number().int(),
          startedAt: Timestamp,
          durationMs: z.number().int(),
          statusCode: z.number().int().nullable(),
          success: z.boolean(),
          error: z.string().nullable(),
          responseExcerpt: z.string().nullable().openapi({ description: 'The first 2 KB of the response body.' }),
        }),
      )
      .optional(),
  })
  .strict()
  .openapi('WebhookDelivery');

export const ListDeliveriesQuery = listQuery({
  endpoint_id: refersTo('webhookEndpoint', z.string().uuid()).optional(),
  status: z.enum(['pending', 'succeeded', 'failed', 'canceled']).optional(),
  eventType: z.string().min(1).max(100).optional(),
});

export const EndpointListQuery = listQuery({});

export const EventTypeSchema = z
  .object({ type: z.string(), group: z.string(), level: z.enum(['merchant', 'tenant']) })
  .strict()
  .openapi('EventType');
