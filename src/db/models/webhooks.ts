import type { Sequelize } from 'sequelize';
import { define, pk, stamps, UUID, STRING, TEXT, JSONT, BOOLEAN, DATE, INTEGER, type RowModel, type Timestamps } from '../model-kit';
import type { Level } from '../../domain/level';

// Webhook endpoints, the events outbox, deliveries and their attempts.

export interface WebhookEndpointRow extends Timestamps {
  id: string;
  tenantId: string | null;
  merchantId: string | null;
  level: Level;
  livemode: boolean;
  url: string;
  events: string[];
  description: string | null;
  status: 'enabled' | 'failing' | 'disabled';
  maxAttempts: number;
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretExpiresAt: Date | null;
  failingSince: Date | null;
  lastSuccessAt: Date | null;
  disabledReason: string | null;
}

export interface EventRow extends Timestamps {
  id: string;
  type: string;
  tenantId: string | null;
  merchantId: string | null;
  livemode: boolean;
  data: Record<string, unknown>;
  apiVersion: string;
}

export interface WebhookDeliveryRow extends Timestamps {
  id: string;
  eventId: string;
  eventType: string;
  endpointId: string;
  tenantId: string | null;
  merchantId: string | null;
  livemode: boolean;
  status: 'pending' | 'succeeded' | 'failed' | 'canceled';
  attemptCount: number;
  maxAttempts: number;
  nextAttemptAt: Date | null;
  lockedUntil: Date | null;
  lockedBy: string | null;
  lastAttemptAt: Date | null;
  lastError: string | null;
  succeededAt: Date | null;
  failedAt: Date | null;
}

export interface WebhookAttemptRow {
  id: string;
  deliveryId: string;
  attempt: number;
  workerId: string | null;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  success: boolean;
  error: string | null;
  responseExcerpt: string | null;
  createdAt: Date;
}

export interface WebhookModels {
  WebhookEndpoint: RowModel<WebhookEndpointRow>;
  Event: RowModel<EventRow>;
  WebhookDelivery: RowModel<WebhookDeliveryRow>;
  WebhookAttempt: RowModel<WebhookAttemptRow>;
}

export function defineWebhookModels(sequelize: Sequelize): WebhookModels {
  return {
    WebhookEndpoint: define<WebhookEndpointRow>(
      sequelize,
      'WebhookEndpoint',
      'webhook_endpoints',
      {
        id: pk,
        tenantId: UUID,
        merchantId: UUID,
        level: STRING,
        livemode: BOOLEAN,
        url: TEXT,
        events: JSONT,
        description: TEXT,
        status: STRING,
        maxAttempts: INTEGER,
        secretSealed: TEXT,
        previousSecretSealed: TEXT,
        previousSecretExpiresAt: DATE,
        failingSince: DATE,
        lastSuccessAt: DATE,
        disabledReason: TEXT,
        ...stamps,
      },
      { resource: 'webhook endpoint', tenant: 'tenantId', merchant: 'merchantId', mode: 'livemode', tenantNullable: true },
    ),
    Event: define<EventRow>(
      sequelize,
      'Event',
      'events',
      { id: pk, type: STRING, tenantId: UUID, merchantId: UUID, livemode: BOOLEAN, data: JSONT, apiVersion: STRING, ...stamps },
      { resource: 'event', tenant: 'tenantId', merchant: 'merchantId', mode: 'livemode', tenantNullable: true },
    ),
    WebhookDelivery: define<WebhookDeliveryRow>(
      sequelize,
      'WebhookDelivery',
      'webhook_deliveries',
      {
        id: pk,
        eventId: UUID,
        eventType: STRING,
        endpointId: UUID,
        tenantId: UUID,
        merchantId: UUID,
        livemode: BOOLEAN,
        status: STRING,
        attemptCount: INTEGER,
        maxAttempts: INTEGER,
        nextAttemptAt: DATE,
        lockedUntil: DATE,
        lockedBy: STRING,
        lastAttemptAt: DATE,
        lastError: TEXT,
        succeededAt: DATE,
        failedAt: DATE,
        ...stamps,
      },
      { resource: 'webhook delivery', tenant: 'tenantId', merchant: 'merchantId', mode: 'livemode', tenantNullable: true },
    ),
    WebhookAttempt: define<WebhookAttemptRow>(
      sequelize,
      'WebhookAttempt',
      'webhook_attempts',
      {
        id: pk,
        deliveryId: UUID,
        attempt: INTEGER,
        workerId: STRING,
        startedAt: DATE,
        durationMs: INTEGER,
        statusCode: INTEGER,
        success: BOOLEAN,
        error: TEXT,
        responseExcerpt: TEXT,
        createdAt: DATE,
      },
      { resource: 'webhook attempt', tenant: null, merchant: null, mode: null, softDelete: false },
    ),
  };
}
