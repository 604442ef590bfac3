import { createTestDatabase, dialectName } from '../helpers/db';
import { Database } from '../../src/db/database';
import { migrations } from '../../src/db/migrations';

// 0016_risk: payments taken before it get their card fingerprint as a column of its own (risk aggregations count
// them), and the migration reverts cleanly.

test(`0016_risk backfills the card fingerprint of earlier payments and reverts (${dialectName})`, async () => {
  const tdb = await createTestDatabase();
  const db = await Database.connect(tdb.url);
  const qi = db.sequelize.getQueryInterface();
  // 0016 and the migrations after it
  const fromRisk = migrations.slice(migrations.findIndex((m) => m.name === '0016_risk')).map((m) => m.name);
  const columns = async () => Object.keys(await qi.describeTable('payments'));
  try {
    await db.migrate();
    expect(await db.rollback('0016_risk')).toEqual([...fromRisk].reverse());
    expect(await columns()).not.toContain('cardFingerprint');
    const now = new Date('2026-03-01T12:00:00.000Z');
    const row = (id: string, card: object | null) => ({
      id,
      tenantId: '11111111-1111-4111-8111-111111111111',
      merchantId: '22222222-2222-4222-8222-222222222222',
      livemode: false,
      status: 'captured',
      currency: 'EUR',
      amountMinor: 1000,
      captureMethod: 'automatic',
      paymentMethodType: 'card',
      card: card === null ? null : JSON.stringify(card),
      metadata: '{}',
      fundsAvailableImmediately: false,
      createdAt: now,
      updatedAt: now,
    });
    await qi.bulkInsert('payments', [
      row('33333333-3333-4333-8333-333333333331', { brand: 'visa', last4: '4242', bin: '424242', fingerprint: 'fp_one' }),
      row('33333333-3333-4333-8333-333333333332', null),
    ]);
    expect(await db.migrate()).toEqual(fromRisk);
    const [rows] = await db.sequelize.query('SELECT "id", "cardFingerprint", "riskDecision" FROM "payments" ORDER BY "id"');
    expect(rows).toEqual([
      { id: '33333333-3333-4333-8333-333333333331', cardFingerprint: 'fp_one', riskDecision: null },
      { id: '33333333-3333-4333-8333-333333333332', cardFingerprint: null, riskDecision: null },
    ]);
    const tables = (await qi.showAllTables()).map((t) => String((t as { tableName?: string }).tableName ?? t));
    expect(tables).toEqual(
      expect.arrayContaining(['list_groups', 'list_entries', 'scoring_rules', 'antifraud_plans', 'risk_configurations']),
    );
    await db.rollback('0016_risk');
    const after = (await qi.showAllTables()).map((t) => String((t as { tableName?: string }).tableName ?? t));
    expect(after).not.toContain('scoring_rules');
    expect(await columns()).not.toContain('riskDecision');
  } finally {
    await db.close();
    await tdb.drop();
  }
});
