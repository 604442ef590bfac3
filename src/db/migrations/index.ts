import type { Migration } from './types';
export type { Migration, MigrationEnv } from './types';
import * as m0001 from './0001_foundation';
import * as m0002 from './0002_webhooks';
import * as m0003 from './0003_organization';
import * as m0004 from './0004_partners_channels';
import * as m0005 from './0005_access';
import * as m0006 from './0006_kyb';
import * as m0007 from './0007_processing';
import * as m0008 from './0008_fees';
import * as m0009 from './0009_integration_profiles';
import * as m0010 from './0010_routing';
import * as m0011 from './0011_checkout';
import * as m0012 from './0012_payments';
import * as m0013 from './0013_ledger';
import * as m0014 from './0014_sandbox_acquirer';
import * as m0015 from './0015_withdrawals';
import * as m0016 from './0016_risk';
import * as m0017 from './0017_scale';
import * as m0018 from './0018_list_indexes';
import * as m0019 from './0019_refund_idempotency_keys';
import * as m0022 from './0022_sealed_documents_actor_names';
import * as m0025 from './0025_payment_pending_operations';
import * as m0026 from './0026_audit_limit_targets';
import * as m0027 from './0027_config_version';

/** Every migration, in order. A new migration is a new file added at the end of this list. */
export const migrations: Migration[] = [
  { name: '0001_foundation', ...m0001 },
  { name: '0002_webhooks', ...m0002 },
  { name: '0003_organization', ...m0003 },
  { name: '0004_partners_channels', ...m0004 },
  { name: '0005_access', ...m0005 },
  { name: '0006_kyb', ...m0006 },
  { name: '0007_processing', ...m0007 },
  { name: '0008_fees', ...m0008 },
  { name: '0009_integration_profiles', ...m0009 },
  { name: '0010_routing', ...m0010 },
  { name: '0011_checkout', ...m0011 },
  { name: '0012_payments', ...m0012 },
  { name: '0013_ledger', ...m0013 },
  { name: '0014_sandbox_acquirer', ...m0014 },
  { name: '0015_withdrawals', ...m0015 },
  { name: '0016_risk', ...m0016 },
  { name: '0017_scale', ...m0017 },
  { name: '0018_list_indexes', ...m0018 },
  { name: '0019_refund_idempotency_keys', ...m0019 },
  { name: '0022_sealed_documents_actor_names', ...m0022 },
  { name: '0025_payment_pending_operations', ...m0025 },
  { name: '0026_audit_limit_targets', ...m0026 },
  { name: '0027_config_version', ...m0027 },
];
