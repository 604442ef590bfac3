import type { Sequelize } from 'sequelize';
import { define, pk, UUID, STRING, TEXT, JSONT, BOOLEAN, DATE, INTEGER, type RowModel } from '../model-kit';

/** received: stored, not applied yet (a reordered item waits for nextAttemptAt); applied; ignored (nothing to act on); failed (given up). */
export type ProviderNotificationStatus = 'received' | 'applied' | 'ignored' | 'failed';

/**
 * One item of an acquirer's notification (POST /v1/provider-notifications/{terminalId}), stored once by the acquirer's
 * event id per provider integration. `item` is the item as the connector read it: no secret, no card data.
 */
export interface ProviderNotificationRow {
  id: string;
  providerIntegrationId: string;
  terminalId: string;
  tenantId: string;
  livemode: boolean;
  /** the acquirer's id of the event */
  eventId: string;
  /** the acquirer's name of the event (payment_intent.succeeded, AUTHORISATION …) */
  type: string;
  /** outcome, dispute or ignored (the connector's NotificationItem kind) */
  kind: 'outcome' | 'dispute' | 'ignored';
  /** the connector's NotificationItem (src/connectors/types.ts), as JSON */
  item: Record<string, unknown>;
  status: ProviderNotificationStatus;
  /** tries to apply it so far */
  attempts: number;
  /** when the job tries again (received only) */
  nextAttemptAt: Date | null;
  lastError: string | null;
  /** the claim of the process applying it (a lease until lockedUntil) */
  lockedBy: string | null;
  lockedUntil: Date | null;
  appliedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface ProviderNotificationModels {
  ProviderNotification: RowModel<ProviderNotificationRow>;
}

export function defineProviderNotificationModels(sequelize: Sequelize): ProviderNotificationModels {
  return {
    ProviderNotification: define<ProviderNotificationRow>(
      sequelize,
      'ProviderNotification',
      'provider_notifications',
      {
        id: pk,
        providerIntegrationId: UUID,
        terminalId: UUID,
        tenantId: UUID,
        livemode: BOOLEAN,
        eventId: STRING,
        type: STRING,
        kind: STRING,
        item: JSONT,
        status: STRING,
        attempts: INTEGER,
        nextAttemptAt: DATE,
        lastError: TEXT,
        lockedBy: STRING,
        lockedUntil: DATE,
        appliedAt: DATE,
        createdAt: DATE,
        updatedAt: DATE,
      },
      // the platform's inbox of a terminal's tenant and mode: written and read by the notification path only
      { resource: 'provider notification', tenant: 'tenantId', merchant: null, softDelete: false },
    ),
  };
}
