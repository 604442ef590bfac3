import { DataTypes, type QueryInterface } from 'sequelize';
import type { Dialect } from '../dialect';
import { id, uuid, str, text, json, date, stamps } from './columns';

// Users (owner flag), roles, user-role links and invitations.

export async function up(qi: QueryInterface, _dialect?: Dialect): Promise<void> {
  // An owner holds every permission of its layer whatever its roles (sandbox users, a merchant's first user).
  await qi.addColumn('users', 'isOwner', { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false });
  // Users that existed before roles were all created as owners of their layer: they keep what they had.
  await qi.bulkUpdate('users', { isOwner: true }, {});
  await qi.addIndex('users', ['tenantId', 'merchantId', 'email'], { name: 'users_scope_email' });

  await qi.createTable('roles', {
    id,
    tenantId: uuid(),
    merchantId: uuid(),
    layer: str(false),
    name: str(false),
    description: text(),
    permissions: json(false),
    createdBy: str(),
    ...stamps,
  });
  await qi.addIndex('roles', ['tenantId', 'merchantId', 'createdAt', 'id']);

  await qi.createTable('user_roles', {
    id,
    tenantId: uuid(),
    merchantId: uuid(),
    userId: uuid(false),
    roleId: uuid(false),
    createdAt: date(false),
    updatedAt: date(false),
  });
  await qi.addIndex('user_roles', ['userId', 'roleId'], { unique: true });
  await qi.addIndex('user_roles', ['roleId']);

  await qi.createTable('invitations', {
    id,
    tenantId: uuid(),
    merchantId: uuid(),
    userId: uuid(false),
    email: str(false),
    layer: str(false),
    status: str(false),
    tokenHash: str(false),
    expiresAt: date(false),
    acceptedAt: date(),
    canceledAt: date(),
    sentCount: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 1 },
    createdBy: str(),
    ...stamps,
  });
  await qi.addIndex('invitations', ['tokenHash'], { unique: true });
  await qi.addIndex('invitations', ['tenantId', 'merchantId', 'createdAt', 'id']);
  await qi.addIndex('invitations', ['userId']);
}

export async function down(qi: QueryInterface, dialect?: Dialect): Promise<void> {
  await qi.dropTable('invitations');
  await qi.dropTable('user_roles');
  await qi.dropTable('roles');
  await qi.removeIndex('users', 'users_scope_email');
  await qi.removeColumn('users', 'isOwner');
  // SQLite drops a column by rebuilding the table: the plain indexes of 0001 have to be made again
  // (the unique externalIdpId survives as a column constraint).
  if (dialect === 'sqlite') await qi.addIndex('users', ['tenantId', 'createdAt', 'id']);
}
