import { DataTypes, type QueryInterface } from 'sequelize';
import { id, uuid, str, text, date } from './columns';

// Ledger entries (append-only) and scheduled releases.

const bigint = () => ({ type: DataTypes.BIGINT, allowNull: false });
const flag = () => ({ type: DataTypes.BOOLEAN, allowNull: false });

export async function up(qi: QueryInterface): Promise<void> {
  await qi.createTable('ledger_entries', {
    id,
    tenantId: uuid(false),
    livemode: flag(),
    // set for merchant accounts (the scope column), null for the other accounts
    merchantId: uuid(),
    postingId: uuid(false),
    account: str(false),
    ownerId: str(false),
    currency: str(false),
    amountMinor: bigint(),
    sourceType: str(false),
    sourceId: str(false),
    description: text(),
    createdAt: date(false),
    updatedAt: date(false),
  });
  // balance sums per merchant, currency and account
  await qi.addIndex('ledger_entries', ['tenantId', 'livemode', 'merchantId', 'currency', 'account']);
  // the newest-first cursor listing
  await qi.addIndex('ledger_entries', ['tenantId', 'livemode', 'createdAt', 'id']);
  await qi.addIndex('ledger_entries', ['postingId']);
  await qi.addIndex('ledger_entries', ['sourceType', 'sourceId']);
  await qi.addIndex('ledger_entries', ['account', 'ownerId', 'currency']);

  await qi.createTable('ledger_releases', {
    id,
    tenantId: uuid(false),
    livemode: flag(),
    merchantId: uuid(false),
    currency: str(false),
    kind: str(false),
    amountMinor: bigint(),
    releaseAt: date(false),
    releasedAt: date(),
    postingId: uuid(),
    sourceType: str(false),
    sourceId: str(false),
    createdAt: date(false),
    updatedAt: date(false),
  });
  // due releases
  await qi.addIndex('ledger_releases', ['releasedAt', 'releaseAt']);
  await qi.addIndex('ledger_releases', ['tenantId', 'livemode', 'merchantId', 'currency']);
  await qi.addIndex('ledger_releases', ['sourceType', 'sourceId']);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.dropTable('ledger_releases');
  await qi.dropTable('ledger_entries');
}
