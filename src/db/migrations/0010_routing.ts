import type { QueryInterface } from 'sequelize';
import { id, uuid, str, text, json, int, date, stamps } from './columns';

// Routing rules: one row per version; the versions of a rule share ruleId.

export async function up(qi: QueryInterface): Promise<void> {
  await qi.createTable('routing_rules', {
    id,
    ruleId: uuid(false),
    version: int(false),
    tenantId: uuid(false),
    name: str(false),
    description: text(),
    status: str(false),
    priority: int(false),
    conditions: json(false),
    outcome: json(false),
    createdBy: str(),
    activatedAt: date(),
    archivedAt: date(),
    ...stamps,
  });
  await qi.addIndex('routing_rules', ['tenantId', 'createdAt', 'id']);
  await qi.addIndex('routing_rules', ['tenantId', 'status', 'priority']);
  // one live row per version number of a rule (clones are serialized per tenant; this is the backstop)
  await qi.addIndex('routing_rules', ['ruleId', 'version'], {
    unique: true,
    name: 'routing_rules_rule_version',
    where: { deletedAt: null },
  });
  // at most one active version per rule, whatever the race between two activations
  await qi.addIndex('routing_rules', ['ruleId'], {
    unique: true,
    name: 'routing_rules_one_active',
    where: { status: 'active', deletedAt: null },
  });
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.dropTable('routing_rules');
}
