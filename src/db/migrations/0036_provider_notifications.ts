import type { QueryInterface } from 'sequelize';
import { id, uuid, str, text, json, int, bool, date } from './columns';

// The inbox of acquirers' notifications (POST /v1/provider-notifications/{terminalId}): each item stored once by the
// acquirer's event id (per provider integration), then applied to the payment path. `item` is the item as the
// connector read it (no secret, no card data). received → applied | ignored | failed; an item that cannot be applied
// yet (a reordered notification) stays received with nextAttemptAt for the provider-notifications job, which claims
// due rows with a lease (lockedBy, lockedUntil).

export async function up(qi: QueryInterface): Promise<void> {
  await qi.createTable('provider_notifications', {
    id,
    providerIntegrationId: uuid(false),
    terminalId: uuid(false),
    tenantId: uuid(false),
    livemode: bool(false),
    eventId: str(false),
    type: str(false),
    kind: str(false),
    item: json(false),
    status: str(false),
    attempts: { ...int(false), defaultValue: 0 },
    nextAttemptAt: date(),
    lastError: text(),
    lockedBy: str(),
    lockedUntil: date(),
    appliedAt: date(),
    createdAt: date(false),
    updatedAt: date(false),
  });
  // stored once: a repeated notification (the acquirer's retry) changes nothing
  await qi.addIndex('provider_notifications', ['providerIntegrationId', 'eventId'], {
    unique: true,
    name: 'provider_notifications_event',
  });
  // the job's claim: items still to apply, by due time
  await qi.addIndex('provider_notifications', ['status', 'nextAttemptAt'], { name: 'provider_notifications_due' });
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.dropTable('provider_notifications');
}
