import { DataTypes, type QueryInterface } from 'sequelize';
import type { Dialect } from '../dialect';
import { id, uuid, str, bool, date, stamps } from './columns';
import { addConfigTriggers, dropConfigTriggers } from './0027_config_version';

// Balance thresholds. A merchant's threshold on one of its balances (available or pending) in one
// currency and mode; `crossed` records whether the balance is beyond it, so that each crossing raises
// balance.threshold_reached once (again only after the balance has come back). Every ledger posting looks the
// thresholds of its merchant, currency and mode up: the table is configuration kept between transactions
// (src/db/statements.ts' ConfigCache), so, as 0027 did for the tables it lists, a trigger bumps config_version on
// every change of it, whatever writes it.

/** The tables this migration adds to the configuration kept between transactions (src/db/config-tables.ts). */
export const ADDED_CONFIG_TABLES = ['balance_thresholds'] as const;

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

  await addConfigTriggers(qi, dialect, ADDED_CONFIG_TABLES);
}

export async function down(qi: QueryInterface, dialect: Dialect): Promise<void> {
  await dropConfigTriggers(qi, dialect, ADDED_CONFIG_TABLES);
  await qi.dropTable('balance_thresholds');
}
