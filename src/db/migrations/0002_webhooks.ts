import { DataTypes, type QueryInterface } from 'sequelize';
import { id, uuid, str, text, json, int, date } from './columns';

export async function up(qi: QueryInterface): Promise<void> {
  await qi.createTable('webhook_endpoints', {
    id,
    tenantId: uuid(),
    merchantId: uuid(),
    level: str(false),
    livemode: { type: DataTypes.BOOLEAN, allowNull: false },
    url: text(false),
    events: json(false),
    description: text(),
    status: str(false),
    maxAttempts: int(false),
    secretSealed: text(false),
    previousSecretSealed: text(),
    previousSecretExpiresAt: date(),
    failingSince: date(),
    lastSuccessAt: date(),
    disabledReason: text(),
    createdAt: date(false),
    updatedAt: date(false),
    deletedAt: date(),
  });
  await qi.addIndex('webhook_endpoints', ['tenantId', 'level', 'livemode', 'createdAt']);
  await qi.addIndex('webhook_endpoints', ['level', 'livemode']);

  await qi.createTable('events', {
    id,
    type: str(false),
    tenantId: uuid(),
    merchantId: uuid(),
    livemode: { type: DataTypes.BOOLEAN, allowNull: false },
    data: json(false),
    apiVersion: str(false),
    createdAt: date(false),
    updatedAt: date(false),
    deletedAt: date(),
  });
  await qi.addIndex('events', ['tenantId', 'livemode', 'createdAt']);

  await qi.createTable('webhook_deliveries', {
    id,
    eventId: uuid(false),
    eventType: str(false),
    endpointId: uuid(false),
    tenantId: uuid(),
    merchantId: uuid(),
    livemode: { type: DataTypes.BOOLEAN, allowNull: false },
    status: str(false),
    attemptCount: int(false),
    maxAttempts: int(false),
    nextAttemptAt: date(),
    lockedUntil: date(),
    lockedBy: str(),
    lastAttemptAt: date(),
    lastError: text(),
    succeededAt: date(),
    failedAt: date(),
    createdAt: date(false),
    updatedAt: date(false),
    deletedAt: date(),
  });
  await qi.addIndex('webhook_deliveries', ['status', 'nextAttemptAt']);
  await qi.addIndex('webhook_deliveries', ['tenantId', 'livemode', 'createdAt', 'id']);
  await qi.addIndex('webhook_deliveries', ['endpointId', 'createdAt']);
  await qi.addIndex('webhook_deliveries', ['status', 'failedAt']);

  await qi.createTable('webhook_attempts', {
    id,
    deliveryId: uuid(false),
    attempt: int(false),
    workerId: str(),
    startedAt: date(false),
    durationMs: int(false),
    statusCode: int(),
    success: { type: DataTypes.BOOLEAN, allowNull: false },
    error: text(),
    responseExcerpt: text(),
    createdAt: date(false),
  });
  await qi.addIndex('webhook_attempts', ['deliveryId', 'attempt'], { unique: true });
}

export async function down(qi: QueryInterface): Promise<void> {
  for (const table of ['webhook_attempts', 'webhook_deliveries', 'events', 'webhook_endpoints']) await qi.dropTable(table);
}
