import { DataTypes, type QueryInterface } from 'sequelize';
import { id, uuid, str, int, bool, json, stamps } from './columns';

// Integration profiles.

export async function up(qi: QueryInterface): Promise<void> {
  await qi.createTable('integration_profiles', {
    id,
    tenantId: uuid(false),
    merchantId: uuid(false),
    mode: str(false),
    status: str(false),
    returnUrl: { type: DataTypes.STRING(2048), allowNull: true },
    sessionLifetime: int(false),
    maxDeclineAttempts: int(false),
    cascadingEnabled: bool(false),
    cascadePolicy: json(false),
    defaultLocale: str(),
    ...stamps,
  });
  await qi.addIndex('integration_profiles', ['tenantId', 'createdAt', 'id']);
  // One profile per merchant and mode, whatever the race between two requests.
  await qi.addIndex('integration_profiles', ['merchantId', 'mode'], {
    unique: true,
    name: 'integration_profiles_one_per_merchant_mode',
    where: { deletedAt: null },
  });
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.dropTable('integration_profiles');
}
