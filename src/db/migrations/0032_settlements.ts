import { DataTypes, type QueryInterface } from 'sequelize';
import { id, uuid, str, json, int, date } from './columns';

// Settlement statements. One row per merchant, currency, mode and UTC day, opened by the day's
// first ledger movement (an INSERT … ON CONFLICT DO NOTHING on the unique key below, in the posting's transaction)
// and finalized once by the `settlements` job (a compare-and-set on status). The lines are the ledger's entries of
// that day: never copied here.

export async function up(qi: QueryInterface): Promise<void> {
  await qi.createTable('settlement_statements', {
    id,
    tenantId: uuid(false),
    merchantId: uuid(false),
    livemode: { type: DataTypes.BOOLEAN, allowNull: false },
    currency: str(false),
    periodStart: date(false),
    periodEnd: date(false),
    status: str(false),
    openingBalance: json(),
    closingBalance: json(),
    totals: json(),
    lineCount: int(),
    finalizedAt: date(),
    createdAt: date(false),
    updatedAt: date(false),
  });
  // one statement per merchant, currency, mode and day: the conflict target of the posting's insert
  await qi.addIndex('settlement_statements', ['merchantId', 'currency', 'livemode', 'periodStart'], {
    name: 'settlement_statements_day',
    unique: true,
  });
  // lists: a tenant's (or merchant's) statements in a mode, newest first; the job: open statements of past days
  await qi.addIndex('settlement_statements', ['tenantId', 'livemode', 'createdAt', 'id'], {
    name: 'settlement_statements_tenant_mode_created',
  });
  await qi.addIndex('settlement_statements', ['status', 'periodEnd'], { name: 'settlement_statements_due' });
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.dropTable('settlement_statements');
}
