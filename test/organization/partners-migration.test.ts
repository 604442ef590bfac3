import { createTestDatabase, dialectName } from '../helpers/db';
import { Database } from '../../src/db/database';
import { migrations } from '../../src/db/migrations';

const TABLES = ['partners', 'partner_assignments', 'channels', 'limits'];

test(`0004_partners_channels reverts and re-applies (${dialectName})`, async () => {
  const tdb = await createTestDatabase();
  const db = await Database.connect(tdb.url);
  const tables = async () =>
    (await db.sequelize.getQueryInterface().showAllTables()).map((t) => String((t as { tableName?: string }).tableName ?? t));
  try {
    await db.migrate();
    expect(await tables()).toEqual(expect.arrayContaining(TABLES));
    const steps = migrations.length - migrations.findIndex((m) => m.name === '0004_partners_channels');
    for (let i = 0; i < steps; i++) await db.rollback();
    expect((await db.migrationStatus()).pending[0]).toBe('0004_partners_channels');
    const left = await tables();
    for (const table of TABLES) expect(left).not.toContain(table);
    await db.migrate();
    expect(await tables()).toEqual(expect.arrayContaining(TABLES));
  } finally {
    await db.close();
    await tdb.drop();
  }
});
