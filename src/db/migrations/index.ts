import type { Migration } from './types';
export type { Migration, MigrationEnv } from './types';

/** Every migration's name, in order. A new migration is a new file, its name added at the end of this list. */
export const MIGRATION_NAMES: readonly string[] = [
  '0001_foundation',
  '0002_webhooks',
  '0003_organization',
  '0004_partners_channels',
  '0005_access',
  '0006_kyb',
  '0007_processing',
  '0008_fees',
  '0009_integration_profiles',
  '0010_routing',
  '0011_checkout',
  '0012_payments',
  '0013_ledger',
  '0014_sandbox_acquirer',
  '0015_withdrawals',
  '0016_risk',
  '0017_scale',
  '0018_list_indexes',
  '0019_refund_idempotency_keys',
  '0022_sealed_documents_actor_names',
  '0025_payment_pending_operations',
  '0026_audit_limit_targets',
  '0027_config_version',
  '0028_balance_thresholds',
];

type MigrationModule = Pick<Migration, 'up' | 'down'>;

/**
 * Every migration, in order. A migration's file is loaded when it runs: a command that only checks that the schema is
 * current (most of them, on every start) loads none of them.
 */
export const migrations: Migration[] = MIGRATION_NAMES.map((name) => {
  const load = () => require(`./${name}`) as MigrationModule;
  return {
    name,
    up: (...args) => load().up(...args),
    down: (...args) => load().down(...args),
  };
});
