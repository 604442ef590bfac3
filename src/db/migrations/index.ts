import type { Migration } from './types';
export type { Migration, MigrationEnv } from './types';

type MigrationModule = Pick<Migration, 'up' | 'down'>;

/**
 * Every migration, in order, each loaded when it runs: a command that only checks that the schema is current (most of
 * them, on every start) loads none of them. A new migration is a new file and a line at the end of this list.
 */
const LOADERS: Record<string, () => MigrationModule> = {
  '0001_foundation': () => require('./0001_foundation') as typeof import('./0001_foundation'),
  '0002_webhooks': () => require('./0002_webhooks') as typeof import('./0002_webhooks'),
  '0003_organization': () => require('./0003_organization') as typeof import('./0003_organization'),
  '0004_partners_channels': () => require('./0004_partners_channels') as typeof import('./0004_partners_channels'),
  '0005_access': () => require('./0005_access') as typeof import('./0005_access'),
  '0006_kyb': () => require('./0006_kyb') as typeof import('./0006_kyb'),
  '0007_processing': () => require('./0007_processing') as typeof import('./0007_processing'),
  '0008_fees': () => require('./0008_fees') as typeof import('./0008_fees'),
  '0009_integration_profiles': () => require('./0009_integration_profiles') as typeof import('./0009_integration_profiles'),
  '0010_routing': () => require('./0010_routing') as typeof import('./0010_routing'),
  '0011_checkout': () => require('./0011_checkout') as typeof import('./0011_checkout'),
  '0012_payments': () => require('./0012_payments') as typeof import('./0012_payments'),
  '0013_ledger': () => require('./0013_ledger') as typeof import('./0013_ledger'),
  '0014_sandbox_acquirer': () => require('./0014_sandbox_acquirer') as typeof import('./0014_sandbox_acquirer'),
  '0015_withdrawals': () => require('./0015_withdrawals') as typeof import('./0015_withdrawals'),
  '0016_risk': () => require('./0016_risk') as typeof import('./0016_risk'),
  '0017_scale': () => require('./0017_scale') as typeof import('./0017_scale'),
  '0018_list_indexes': () => require('./0018_list_indexes') as typeof import('./0018_list_indexes'),
  '0019_refund_idempotency_keys': () => require('./0019_refund_idempotency_keys') as typeof import('./0019_refund_idempotency_keys'),
  '0022_sealed_documents_actor_names': () =>
    require('./0022_sealed_documents_actor_names') as typeof import('./0022_sealed_documents_actor_names'),
  '0025_payment_pending_operations': () =>
    require('./0025_payment_pending_operations') as typeof import('./0025_payment_pending_operations'),
  '0026_audit_limit_targets': () => require('./0026_audit_limit_targets') as typeof import('./0026_audit_limit_targets'),
  '0027_config_version': () => require('./0027_config_version') as typeof import('./0027_config_version'),
  '0028_balance_thresholds': () => require('./0028_balance_thresholds') as typeof import('./0028_balance_thresholds'),
  '0029_routing_alerts': () => require('./0029_routing_alerts') as typeof import('./0029_routing_alerts'),
  '0030_disputes': () => require('./0030_disputes') as typeof import('./0030_disputes'),
  '0031_payouts': () => require('./0031_payouts') as typeof import('./0031_payouts'),
  '0032_settlements': () => require('./0032_settlements') as typeof import('./0032_settlements'),
  '0033_dispute_acquirer': () => require('./0033_dispute_acquirer') as typeof import('./0033_dispute_acquirer'),
  '0034_idempotency_owners': () => require('./0034_idempotency_owners') as typeof import('./0034_idempotency_owners'),
  '0035_terminal_mode': () => require('./0035_terminal_mode') as typeof import('./0035_terminal_mode'),
  '0036_provider_notifications': () => require('./0036_provider_notifications') as typeof import('./0036_provider_notifications'),
  '0037_answers_never_lost': () => require('./0037_answers_never_lost') as typeof import('./0037_answers_never_lost'),
  '0038_provider_base_url': () => require('./0038_provider_base_url') as typeof import('./0038_provider_base_url'),
};

/** Every migration's name, in order. */
export const MIGRATION_NAMES: readonly string[] = Object.keys(LOADERS);

export const migrations: Migration[] = MIGRATION_NAMES.map((name) => ({
  name,
  up: (...args) => LOADERS[name]().up(...args),
  down: (...args) => LOADERS[name]().down(...args),
}));
