import { DataTypes, type QueryInterface } from 'sequelize';
import type { Dialect } from '../dialect';
import { id, uuid, str, bool, date, stamps } from './columns';

// Issue 23, part 4: balance thresholds. A merchant's threshold on one of its balances (available or pending) in one
// currency and mode; `crossed` records whether the balance is beyond it, so that each crossing raises
// balance.threshold_reached once (again only after the balance has come back). Every ledger posting looks the
// thresholds of its merchant, currency and mode up: the table is configuration kept between transactions
// (src/db/statements.ts' ConfigCache), so, as 0027 did for the tables it lists, a trigger bumps config_version on
// every change of it, whatever writes it.

/** The tables this migration adds to the configuration kept between transactions (src/db/config-tables.ts). */
export const ADDED_CONFIG_TABLES = ['balance_thresholds'] as const;

const FUNCTION = 'payplane_config_changed';
const trigger = (table: string, op?: string) => `${table}_config_changed${op ? `_${op}` : ''}`;

export async function up(qi: QueryInterface, dialect: Dialect): Promise<void> {
  await qi.createTable('balance_thresholds', {
    id,
    tenantId: uuid(false),
    merchantId: uuid(false),
    livemode: { type: DataTypes.BOOLEAN, allowNull: false },
    currency: str(false),
    balanceType: str(false),
    direction: str(false),
    amountMinor: { type: DataTypes.BIGINT, allowNull: false },
    // the balance is at or beyond the threshold in its direction (set on creation from the balance, then by postings)
    crossed: bool(false),
    // when it last went beyond it (the last balance.threshold_reached)
    crossedAt: date(),
    createdBy: str(),
    ...stamps,
  });
  // the lookup of every posting: a merchant's thresholds in a currency and mode
  await qi.addIndex('balance_thresholds', ['merchantId', 'currency', 'livemode'], { name: 'balance_thresholds_lookup' });
  // lists: a tenant's (or merchant's) thresholds in a mode, newest first
  await qi.addIndex('balance_thresholds', ['tenantId', 'livemode', 'createdAt', 'id'], { name: 'balance_thresholds_tenant_mode_created' });

  const q = (sql: string) => qi.sequelize.query(sql);
  // the function exists since 0027
  for (const table of ADDED_CONFIG_TABLES) {
    if (dialect === 'postgres') {
      await q(`CREATE TRIGGER ${trigger(table)} AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "${table}" FOR EACH STATEMENT EXECUTE FUNCTION ${FUNCTION}()`);
    } else {
      for (const op of ['INSERT', 'UPDATE', 'DELETE']) {
        await q(`CREATE TRIGGER ${trigger(table, op.toLowerCase())} AFTER ${op} ON "${table}" BEGIN UPDATE config_version SET "version" = "version" + 1 WHERE "id" = 1; END`);
      }
    }
  }
}

export async function down(qi: QueryInterface, dialect: Dialect): Promise<void> {
  const q = (sql: string) => qi.sequelize.query(sql);
  for (const table of ADDED_CONFIG_TABLES) {
    if (dialect === 'postgres') await q(`DROP TRIGGER IF EXISTS ${trigger(table)} ON "${table}"`);
    else for (const op of ['insert', 'update', 'delete']) await q(`DROP TRIGGER IF EXISTS ${trigger(table, op)}`);
  }
  await qi.dropTable('balance_thresholds');
}
