import { DataTypes, type QueryInterface } from 'sequelize';
import { id, uuid, str, text, json, date, stamps } from './columns';

// Fee schedules and fee assignments.

export async function up(qi: QueryInterface): Promise<void> {
  await qi.createTable('fee_schedules', {
    id,
    // null: a platform schedule
    tenantId: uuid(),
    createdBy: str(),
    name: str(false),
    description: text(),
    status: str(false),
    rules: json(false),
    rollingReserve: json(false),
    reserveSpecified: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
    activatedAt: date(),
    archivedAt: date(),
    ...stamps,
  });
  await qi.addIndex('fee_schedules', ['tenantId', 'createdAt', 'id']);

  await qi.createTable('fee_assignments', {
    id,
    // null: a platform-level assignment
    tenantId: uuid(),
    // the merchant of a merchant-level assignment (scope column), null otherwise
    merchantId: uuid(),
    targetEntityId: uuid(false),
    feeScheduleId: uuid(false),
    createdBy: str(),
    level: str(false),
    currency: str(false),
    paymentMethod: str(false),
    effectiveFrom: date(false),
    effectiveTo: date(),
    ...stamps,
  });
  await qi.addIndex('fee_assignments', ['tenantId', 'createdAt', 'id']);
  await qi.addIndex('fee_assignments', ['level', 'targetEntityId', 'currency', 'paymentMethod']);
  await qi.addIndex('fee_assignments', ['feeScheduleId']);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.dropTable('fee_assignments');
  await qi.dropTable('fee_schedules');
}
