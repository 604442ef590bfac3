import { DataTypes, type QueryInterface } from 'sequelize';
import { id, uuid, str, text, json, int, bool, stamps, dropColumns } from './columns';

// Risk: list groups and their entries, scoring rules, antifraud plans, per-tenant risk configuration; the payment
// keeps the risk decision and, as columns of their own, the identifiers that risk aggregations count by.

const flag = () => ({ type: DataTypes.BOOLEAN, allowNull: false });

export async function up(qi: QueryInterface): Promise<void> {
  await qi.createTable('list_groups', {
    id,
    tenantId: uuid(false),
    livemode: flag(),
    name: str(false),
    description: text(),
    // card_fingerprint, email, email_domain, ip, bin, country, customer_reference
    entryType: str(false),
    createdBy: str(),
    ...stamps,
  });
  await qi.addIndex('list_groups', ['tenantId', 'livemode', 'createdAt', 'id'], { name: 'list_groups_tenant_mode_created' });

  await qi.createTable('list_entries', {
    id,
    tenantId: uuid(false),
    livemode: flag(),
    listGroupId: uuid(false),
    entryType: str(false),
    // the normalized value (lower-case email, upper-case country, canonical CIDR for ip)
    value: str(false),
    // ip entries: the range as fixed-width hex of the IPv6 (IPv4-mapped) address, so containment is two comparisons
    rangeStart: str(),
    rangeEnd: str(),
    note: text(),
    createdBy: str(),
    ...stamps,
  });
  await qi.addIndex('list_entries', ['listGroupId', 'createdAt', 'id'], { name: 'list_entries_group_created' });
  // membership: exact values, and ip ranges by their start
  await qi.addIndex('list_entries', ['listGroupId', 'value'], {
    unique: true,
    name: 'list_entries_group_value',
    where: { deletedAt: null },
  });
  await qi.addIndex('list_entries', ['listGroupId', 'rangeStart', 'rangeEnd'], { name: 'list_entries_group_range' });

  await qi.createTable('scoring_rules', {
    id,
    tenantId: uuid(false),
    livemode: flag(),
    name: str(false),
    description: text(),
    isActive: bool(true),
    conditions: json(false),
    // allow, review, challenge, block
    signal: str(false),
    scoreImpact: int(false),
    priority: int(false),
    createdBy: str(),
    ...stamps,
  });
  await qi.addIndex('scoring_rules', ['tenantId', 'livemode', 'createdAt', 'id'], { name: 'scoring_rules_tenant_mode_created' });

  await qi.createTable('antifraud_plans', {
    id,
    tenantId: uuid(false),
    livemode: flag(),
    // null: every merchant of the tenant
    merchantId: uuid(),
    name: str(false),
    description: text(),
    status: str(false),
    ruleIds: json(false),
    // { challenge, review, decline } score thresholds, each optional (the risk configuration's otherwise)
    thresholds: json(),
    // the level that created the plan (tenant or platform): only that level deletes it
    ownerLevel: str(false),
    createdBy: str(),
    ...stamps,
  });
  await qi.addIndex('antifraud_plans', ['tenantId', 'livemode', 'createdAt', 'id'], { name: 'antifraud_plans_tenant_mode_created' });
  await qi.addIndex('antifraud_plans', ['tenantId', 'livemode', 'status'], { name: 'antifraud_plans_status' });

  await qi.createTable('risk_configurations', {
    id,
    tenantId: uuid(false),
    challengeScore: int(false),
    reviewScore: int(),
    declineScore: int(false),
    // monitor: decisions are computed and recorded but never acted on
    enforcement: str(false),
    updatedBy: str(),
    ...stamps,
  });
  await qi.addIndex('risk_configurations', ['tenantId'], { unique: true, name: 'risk_configurations_tenant', where: { deletedAt: null } });

  await qi.addColumn('payments', 'riskDecision', json());
  await qi.addColumn('payments', 'cardFingerprint', str());
  await qi.addColumn('payments', 'customerEmail', str());
  await qi.addColumn('payments', 'customerIp', str());
  await qi.addColumn('payments', 'customerReference', str());
  // risk aggregations: the tenant's recent payments with one identifier
  await qi.addIndex('payments', ['tenantId', 'livemode', 'cardFingerprint', 'createdAt'], { name: 'payments_risk_card' });
  await qi.addIndex('payments', ['tenantId', 'livemode', 'customerEmail', 'createdAt'], { name: 'payments_risk_email' });
  await qi.addIndex('payments', ['tenantId', 'livemode', 'customerIp', 'createdAt'], { name: 'payments_risk_ip' });
  await qi.addIndex('payments', ['tenantId', 'livemode', 'customerReference', 'createdAt'], { name: 'payments_risk_customer' });
  // payments taken before this migration count by their card too
  const dialect = qi.sequelize.getDialect();
  const fingerprint = dialect === 'postgres' ? `("card"::json ->> 'fingerprint')` : `json_extract("card", '$.fingerprint')`;
  await qi.sequelize.query(`UPDATE "payments" SET "cardFingerprint" = ${fingerprint} WHERE "card" IS NOT NULL`);
}

export async function down(qi: QueryInterface): Promise<void> {
  for (const name of ['payments_risk_card', 'payments_risk_email', 'payments_risk_ip', 'payments_risk_customer']) {
    await qi.removeIndex('payments', name);
  }
  await dropColumns(qi, 'payments', ['riskDecision', 'cardFingerprint', 'customerEmail', 'customerIp', 'customerReference']);
  await qi.dropTable('risk_configurations');
  await qi.dropTable('antifraud_plans');
  await qi.dropTable('scoring_rules');
  await qi.dropTable('list_entries');
  await qi.dropTable('list_groups');
}
