import type { QueryInterface } from 'sequelize';

// Audit entries about limits name their owner's kind (merchant_limit, channel_limit, terminal_limit), each read with
// its owner's permission (src/services/audit/targets.ts): the entries written as 'limit' take the kind their record
// states (every limit entry's `after` is the limit, with its entityType). GET /v1/audit-entries shows no entry of an
// undeclared kind, so an entry left as 'limit' would be shown to no one.

const KINDS = ['merchant', 'channel', 'terminal'];

export async function up(qi: QueryInterface): Promise<void> {
  const postgres = qi.sequelize.getDialect() === 'postgres';
  const entityType = postgres ? `("after"::jsonb ->> 'entityType')` : `json_extract("after", '$.entityType')`;
  for (const kind of KINDS) {
    await qi.sequelize.query(`UPDATE audit_entries SET "targetType" = :target WHERE "targetType" = 'limit' AND ${entityType} = :kind`, {
      replacements: { target: `${kind}_limit`, kind },
    });
  }
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`UPDATE audit_entries SET "targetType" = 'limit' WHERE "targetType" IN (:targets)`, {
    replacements: { targets: KINDS.map((k) => `${k}_limit`) },
  });
}
