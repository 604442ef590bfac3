import type { QueryInterface } from 'sequelize';
import type { Dialect } from '../dialect';

// Configuration read by every payment (merchants, terminals, routing and risk rules, fees…) is kept by each
// process between transactions (src/db/config-cache.ts). It stays exact because the database itself counts every
// change of those tables: a trigger on each bumps config_version's one row in the transaction that writes, whatever
// writes (this process, another `serve`, an admin command, raw SQL). A transaction reads the count once and uses a
// kept answer only if it was read at that count. Tables written on the hot paths (payments, ledger, outbox, webhook
// endpoints, whose delivery state the dispatcher writes) are not in the list.

/** The tables whose every change bumps config_version (and that src/db/config-cache.ts may keep answers of). */
export const CONFIG_TABLES = [
  'platforms',
  'tenants',
  'companies',
  'merchants',
  'partners',
  'partner_assignments',
  'channels',
  'terminals',
  'terminal_restrictions',
  'terminal_credential_bindings',
  'provider_integration_overlays',
  'integration_profiles',
  'routing_rules',
  'limits',
  'fee_schedules',
  'fee_assignments',
  'risk_configurations',
  'antifraud_plans',
  'scoring_rules',
  'list_groups',
  'list_entries',
] as const;

const FUNCTION = 'payplane_config_changed';
const trigger = (table: string, op?: string) => `${table}_config_changed${op ? `_${op}` : ''}`;

/**
 * The triggers that bump config_version on every change of `tables` (the function exists from 0027 on, on Postgres):
 * a later migration that makes a table configuration adds them the same way.
 */
export async function addConfigTriggers(qi: QueryInterface, dialect: Dialect, tables: readonly string[]): Promise<void> {
  const q = (sql: string) => qi.sequelize.query(sql);
  for (const table of tables) {
    if (dialect === 'postgres') {
      await q(
        `CREATE TRIGGER ${trigger(table)} AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "${table}" FOR EACH STATEMENT EXECUTE FUNCTION ${FUNCTION}()`,
      );
      continue;
    }
    for (const op of ['INSERT', 'UPDATE', 'DELETE']) {
      await q(
        `CREATE TRIGGER ${trigger(table, op.toLowerCase())} AFTER ${op} ON "${table}" BEGIN UPDATE config_version SET "version" = "version" + 1 WHERE "id" = 1; END`,
      );
    }
  }
}

export async function dropConfigTriggers(qi: QueryInterface, dialect: Dialect, tables: readonly string[]): Promise<void> {
  const q = (sql: string) => qi.sequelize.query(sql);
  for (const table of tables) {
    if (dialect === 'postgres') await q(`DROP TRIGGER IF EXISTS ${trigger(table)} ON "${table}"`);
    else for (const op of ['insert', 'update', 'delete']) await q(`DROP TRIGGER IF EXISTS ${trigger(table, op)}`);
  }
}

export async function up(qi: QueryInterface, dialect: Dialect): Promise<void> {
  const q = (sql: string) => qi.sequelize.query(sql);
  await q('CREATE TABLE config_version ("id" INTEGER PRIMARY KEY, "version" BIGINT NOT NULL)');
  await q('INSERT INTO config_version ("id", "version") VALUES (1, 1)');
  if (dialect === 'postgres') {
    await q(`CREATE FUNCTION ${FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN UPDATE config_version SET "version" = "version" + 1 WHERE "id" = 1; RETURN NULL; END $$`);
  }
  await addConfigTriggers(qi, dialect, CONFIG_TABLES);
}

export async function down(qi: QueryInterface, dialect: Dialect): Promise<void> {
  const q = (sql: string) => qi.sequelize.query(sql);
  await dropConfigTriggers(qi, dialect, CONFIG_TABLES);
  if (dialect === 'postgres') await q(`DROP FUNCTION IF EXISTS ${FUNCTION}()`);
  await q('DROP TABLE config_version');
}
