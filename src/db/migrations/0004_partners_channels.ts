import { DataTypes, type QueryInterface } from 'sequelize';
import { id, uuid, str, text, json, int, date, stamps } from './columns';

// Partners, partner assignments, channels and limit records (shared by merchants, channels and later terminals).

export async function up(qi: QueryInterface): Promise<void> {
  await qi.createTable('partners', {
    id,
    tenantId: uuid(false),
    name: str(false),
    contactEmail: str(),
    status: str(false),
    metadata: json(false),
    ...stamps,
  });
  await qi.addIndex('partners', ['tenantId', 'createdAt', 'id']);

  await qi.createTable('partner_assignments', {
    id,
    tenantId: uuid(false),
    partnerId: uuid(false),
    merchantId: uuid(false),
    commissionRate: int(false),
    commissionFixed: json(),
    status: str(false),
    effectiveFrom: date(false),
    effectiveTo: date(),
    ...stamps,
  });
  await qi.addIndex('partner_assignments', ['tenantId', 'createdAt', 'id']);
  await qi.addIndex('partner_assignments', ['partnerId', 'merchantId']);
  // One active assignment per partner and merchant, whatever the race between two requests.
  await qi.addIndex('partner_assignments', ['partnerId', 'merchantId'], {
    unique: true,
    name: 'partner_assignments_one_active',
    where: { status: 'active', deletedAt: null },
  });

  await qi.createTable('channels', {
    id,
    tenantId: uuid(false),
    name: str(false),
    direction: str(false),
    currencies: json(false),
    providerIntegrationId: uuid(),
    status: str(false),
    description: text(),
    ...stamps,
  });
  await qi.addIndex('channels', ['tenantId', 'createdAt', 'id']);

  await qi.createTable('limits', {
    id,
    tenantId: uuid(false),
    entityType: str(false),
    entityId: uuid(false),
    // the merchant a limit belongs to (entityType merchant), null for channel and terminal limits: the scope column
    merchantId: uuid(),
    periodValue: int(false),
    periodUnit: str(false),
    metric: str(false),
    threshold: { type: DataTypes.BIGINT, allowNull: false },
    currency: str(),
    paymentMethod: str(),
    brand: str(),
    transactionType: str(false),
    status: str(false),
    ...stamps,
  });
  await qi.addIndex('limits', ['tenantId', 'entityType', 'entityId', 'createdAt']);
  await qi.addIndex('limits', ['merchantId']);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.dropTable('limits');
  await qi.dropTable('channels');
  await qi.dropTable('partner_assignments');
  await qi.dropTable('partners');
}
