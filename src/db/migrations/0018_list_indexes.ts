import type { QueryInterface } from 'sequelize';

// Indexes for the list filters and the cursor order of every list operation.
//
// A list page is `WHERE <scope> AND <filters> ORDER BY createdAt, id LIMIT n` (src/db/scoped.ts). The scope is
// tenantId + livemode for a tenant key, plus merchantId for a merchant key (a merchant belongs to one tenant, so an
// index led by merchantId answers for its tenant too), livemode alone for platform callers. Each index below holds a
// list's equality columns and then (createdAt, id), so a page is one ordered range of the index, read backwards or
// forwards, stopped after n rows: no scan of the table and no sort, however big the table grows. Filters that name
// one record's few rows (a payment's refunds, a session's payments, a source's ledger entries, a target's audit
// trail) keep an index led by that column.

export interface IndexSpec {
  table: string;
  name: string;
  fields: string[];
  where?: Record<string, unknown>;
}

/** The indexes this migration creates. */
export const ADDED: IndexSpec[] = [
  // payments (GET /v1/payments: status, merchantId, checkoutSessionId)
  { table: 'payments', name: 'payments_merchant_status_created', fields: ['merchantId', 'livemode', 'status', 'createdAt', 'id'] },
  { table: 'payments', name: 'payments_tenant_status_created', fields: ['tenantId', 'livemode', 'status', 'createdAt', 'id'] },
  { table: 'payments', name: 'payments_mode_created', fields: ['livemode', 'createdAt', 'id'] },
  // the stalled-call recovery job: pending attempts and refunds never sent to their provider, oldest first
  // (partial: only the few rows in that state are indexed)
  {
    table: 'payment_attempts',
    name: 'payment_attempts_unsent',
    fields: ['updatedAt'],
    where: { status: 'pending', providerReference: null },
  },
  { table: 'refunds', name: 'refunds_unsent', fields: ['updatedAt'], where: { status: 'pending', providerReference: null } },
  // checkout sessions (status, merchantId, paymentId, createdFrom/createdTo: a range of the same indexes)
  { table: 'checkout_sessions', name: 'checkout_sessions_tenant_mode_created', fields: ['tenantId', 'livemode', 'createdAt', 'id'] },
  {
    table: 'checkout_sessions',
    name: 'checkout_sessions_tenant_status_created',
    fields: ['tenantId', 'livemode', 'status', 'createdAt', 'id'],
  },
  { table: 'checkout_sessions', name: 'checkout_sessions_merchant_mode_created', fields: ['merchantId', 'livemode', 'createdAt', 'id'] },
  {
    table: 'checkout_sessions',
    name: 'checkout_sessions_merchant_status_created',
    fields: ['merchantId', 'livemode', 'status', 'createdAt', 'id'],
  },
  // webhook deliveries (endpoint_id, status, eventType)
  { table: 'webhook_deliveries', name: 'webhook_deliveries_merchant_created', fields: ['merchantId', 'livemode', 'createdAt', 'id'] },
  {
    table: 'webhook_deliveries',
    name: 'webhook_deliveries_merchant_status_created',
    fields: ['merchantId', 'livemode', 'status', 'createdAt', 'id'],
  },
  {
    table: 'webhook_deliveries',
    name: 'webhook_deliveries_merchant_type_created',
    fields: ['merchantId', 'livemode', 'eventType', 'createdAt', 'id'],
  },
  {
    table: 'webhook_deliveries',
    name: 'webhook_deliveries_tenant_status_created',
    fields: ['tenantId', 'livemode', 'status', 'createdAt', 'id'],
  },
  {
    table: 'webhook_deliveries',
    name: 'webhook_deliveries_tenant_type_created',
    fields: ['tenantId', 'livemode', 'eventType', 'createdAt', 'id'],
  },
  { table: 'webhook_deliveries', name: 'webhook_deliveries_endpoint_created', fields: ['endpointId', 'createdAt', 'id'] },
  { table: 'webhook_deliveries', name: 'webhook_deliveries_mode_created', fields: ['livemode', 'createdAt', 'id'] },
  // balance transactions: ledger entries of merchant accounts (merchantId, currency, type, balanceType, sourceId)
  { table: 'ledger_entries', name: 'ledger_entries_merchant_created', fields: ['tenantId', 'livemode', 'merchantId', 'createdAt', 'id'] },
  {
    table: 'ledger_entries',
    name: 'ledger_entries_merchant_currency_created',
    fields: ['tenantId', 'livemode', 'merchantId', 'currency', 'createdAt', 'id'],
  },
  {
    table: 'ledger_entries',
    name: 'ledger_entries_merchant_type_created',
    fields: ['tenantId', 'livemode', 'merchantId', 'sourceType', 'createdAt', 'id'],
  },
  {
    table: 'ledger_entries',
    name: 'ledger_entries_merchant_account_created',
    fields: ['tenantId', 'livemode', 'merchantId', 'account', 'createdAt', 'id'],
  },
  { table: 'ledger_entries', name: 'ledger_entries_currency_created', fields: ['tenantId', 'livemode', 'currency', 'createdAt', 'id'] },
  { table: 'ledger_entries', name: 'ledger_entries_type_created', fields: ['tenantId', 'livemode', 'sourceType', 'createdAt', 'id'] },
  { table: 'ledger_entries', name: 'ledger_entries_account_created', fields: ['tenantId', 'livemode', 'account', 'createdAt', 'id'] },
  { table: 'ledger_entries', name: 'ledger_entries_source_created', fields: ['sourceId', 'createdAt', 'id'] },
  // withdrawals (status, entityId, currency)
  { table: 'withdrawals', name: 'withdrawals_status_created', fields: ['tenantId', 'livemode', 'status', 'createdAt', 'id'] },
  { table: 'withdrawals', name: 'withdrawals_merchant_created', fields: ['tenantId', 'livemode', 'merchantId', 'createdAt', 'id'] },
  { table: 'withdrawals', name: 'withdrawals_currency_created', fields: ['tenantId', 'livemode', 'currency', 'createdAt', 'id'] },
  {
    table: 'withdrawals',
    name: 'withdrawals_merchant_status_created',
    fields: ['tenantId', 'livemode', 'merchantId', 'status', 'createdAt', 'id'],
  },
  {
    table: 'withdrawals',
    name: 'withdrawals_merchant_currency_created',
    fields: ['tenantId', 'livemode', 'merchantId', 'currency', 'createdAt', 'id'],
  },
  // audit entries (action, targetId, actorId)
  { table: 'audit_entries', name: 'audit_entries_merchant_created', fields: ['tenantId', 'livemode', 'merchantId', 'createdAt', 'id'] },
  {
    table: 'audit_entries',
    name: 'audit_entries_merchant_action_created',
    fields: ['tenantId', 'livemode', 'merchantId', 'action', 'createdAt', 'id'],
  },
  {
    table: 'audit_entries',
    name: 'audit_entries_merchant_actor_created',
    fields: ['tenantId', 'livemode', 'merchantId', 'actorId', 'createdAt', 'id'],
  },
  { table: 'audit_entries', name: 'audit_entries_action_created', fields: ['tenantId', 'livemode', 'action', 'createdAt', 'id'] },
  { table: 'audit_entries', name: 'audit_entries_actor_created', fields: ['tenantId', 'livemode', 'actorId', 'createdAt', 'id'] },
  { table: 'audit_entries', name: 'audit_entries_target_created', fields: ['targetId', 'createdAt', 'id'] },
  { table: 'audit_entries', name: 'audit_entries_mode_created', fields: ['livemode', 'createdAt', 'id'] },
  // merchants across tenants (platform callers)
  { table: 'merchants', name: 'merchants_created', fields: ['createdAt', 'id'] },
  // API keys of a merchant (small table; the earlier index lacked the id)
  { table: 'api_keys', name: 'api_keys_merchant_created', fields: ['tenantId', 'merchantId', 'livemode', 'createdAt', 'id'] },
];

/**
 * Indexes of earlier migrations (with the names those gave them) that an index of ADDED replaces, dropped rather than
 * kept up to date on every write: the successor starts with the same columns (and serves every query they served,
 * leftmost prefix) or, for checkout sessions, adds livemode after tenantId or merchantId, which every query of that
 * table names (it is read through the caller's scope, or by id, paymentId, status and expiry).
 */
export const SUPERSEDED: (IndexSpec & { by: string })[] = [
  // without livemode, a page read the other mode's rows too
  {
    table: 'checkout_sessions',
    name: 'checkout_sessions_tenant_id_created_at_id',
    fields: ['tenantId', 'createdAt', 'id'],
    by: 'checkout_sessions_tenant_mode_created',
  },
  {
    table: 'checkout_sessions',
    name: 'checkout_sessions_merchant_id_created_at_id',
    fields: ['merchantId', 'createdAt', 'id'],
    by: 'checkout_sessions_merchant_mode_created',
  },
  // without id, rows sharing a createdAt were sorted
  {
    table: 'webhook_deliveries',
    name: 'webhook_deliveries_endpoint_id_created_at',
    fields: ['endpointId', 'createdAt'],
    by: 'webhook_deliveries_endpoint_created',
  },
  {
    table: 'withdrawals',
    name: 'withdrawals_status',
    fields: ['tenantId', 'livemode', 'status', 'createdAt'],
    by: 'withdrawals_status_created',
  },
  {
    table: 'withdrawals',
    name: 'withdrawals_merchant',
    fields: ['tenantId', 'livemode', 'merchantId', 'createdAt'],
    by: 'withdrawals_merchant_created',
  },
  {
    table: 'withdrawals',
    name: 'withdrawals_currency',
    fields: ['tenantId', 'livemode', 'currency', 'createdAt'],
    by: 'withdrawals_currency_created',
  },
  {
    table: 'api_keys',
    name: 'api_keys_tenant_id_merchant_id_livemode_created_at',
    fields: ['tenantId', 'merchantId', 'livemode', 'createdAt'],
    by: 'api_keys_merchant_created',
  },
  // a target's whole history was sorted
  { table: 'audit_entries', name: 'audit_entries_target_id', fields: ['targetId'], by: 'audit_entries_target_created' },
];

async function add(qi: QueryInterface, index: IndexSpec): Promise<void> {
  await qi.addIndex(index.table, index.fields, { name: index.name, ...(index.where ? { where: index.where } : {}) });
}

export async function up(qi: QueryInterface): Promise<void> {
  for (const index of ADDED) await add(qi, index);
  for (const old of SUPERSEDED) await qi.removeIndex(old.table, old.name);
}

export async function down(qi: QueryInterface): Promise<void> {
  for (const old of SUPERSEDED) await add(qi, old);
  for (const index of [...ADDED].reverse()) await qi.removeIndex(index.table, index.name);
}
