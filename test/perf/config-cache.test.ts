import { QueryTypes, type Transaction } from 'sequelize';
import { createTestRuntime, dialectName, onPostgres, type TestRuntime } from '../helpers/db';
import { closeRuntime, openRuntime, type Runtime } from '../../src/runtime';
import { createSandbox, type SandboxCredentials } from '../../src/services/sandbox/provision';
import { selectRows } from '../../src/db/rows';
import { CONFIG_TABLES } from '../../src/db/config-tables';

// Issue 22: configuration (merchants, terminals, rules, fees…) read in a transaction is kept between transactions
// (db/statements' ConfigCache), and stays exact: every change of a configuration table, by any process, bumps
// config_version in the database (a trigger per table), and a kept answer is used only at the count it was read at.
// A second runtime on the same database stands for a second process (another serve, an admin command).

let t: TestRuntime;
let other: Runtime;
let sandbox: SandboxCredentials;
beforeAll(async () => {
  t = await createTestRuntime();
  other = await openRuntime(t.rt.config, { migrate: false, logger: t.rt.logger });
  sandbox = await createSandbox(t.rt);
}, 60_000);
afterAll(async () => {
  await closeRuntime(other);
  await t.close();
});

interface Counted<T> {
  result: T;
  /** statements sent to the database */
  sent: string[];
}

/** Runs fn in a transaction of rt, with the statements it sent. */
async function inTx<T>(rt: Runtime, fn: (transaction: Transaction) => Promise<T>): Promise<Counted<T>> {
  const sent: string[] = [];
  const hook = (_options: unknown, query: { sql?: string }) => {
    sent.push(String(query.sql ?? ''));
  };
  rt.db.sequelize.addHook('beforeQuery', 'config-cache-test', hook as never);
  try {
    return { result: await rt.db.transaction(fn), sent };
  } finally {
    rt.db.sequelize.removeHook('beforeQuery', 'config-cache-test');
  }
}

const merchantOf = (rt: Runtime, transaction: Transaction) =>
  selectRows<{ id: string; name: string }>(
    rt.db,
    rt.db.models.Merchant as never,
    { id: sandbox.merchantId },
    { transaction, limit: 1 },
  ).then((rows) => rows[0]);
const reads = (sent: string[], table: string) => sent.filter((sql) => sql.includes(`FROM "${table}"`)).length;

async function version(rt: Runtime): Promise<number> {
  const [row] = await rt.db.sequelize.query<{ version: number | string }>('SELECT "version" FROM config_version WHERE "id" = 1', {
    type: QueryTypes.SELECT,
  });
  return Number(row.version);
}

describe(`configuration kept between transactions, exact across processes (${dialectName})`, () => {
  test('a second transaction reads the count of changes, not the configuration again', async () => {
    const first = await inTx(t.rt, (tx) => merchantOf(t.rt, tx));
    const second = await inTx(t.rt, (tx) => merchantOf(t.rt, tx));
    expect(first.result.name).toBe(second.result.name);
    expect(reads(second.sent, 'config_version')).toBe(1);
    expect(reads(second.sent, 'merchants')).toBe(0);
    // each answer is a copy: changing one changes nothing kept
    second.result.name = 'changed by the caller';
    const third = await inTx(t.rt, (tx) => merchantOf(t.rt, tx));
    expect(third.result.name).toBe(first.result.name);
  });

  test('a change made by another process is read by the next transaction', async () => {
    await inTx(t.rt, (tx) => merchantOf(t.rt, tx));
    const before = await version(t.rt);
    await other.db.sequelize.query('UPDATE merchants SET name = :name WHERE id = :id', {
      replacements: { name: 'Renamed elsewhere', id: sandbox.merchantId },
    });
    expect(await version(t.rt)).toBeGreaterThan(before);
    const after = await inTx(t.rt, (tx) => merchantOf(t.rt, tx));
    expect(after.result.name).toBe('Renamed elsewhere');
    expect(reads(after.sent, 'merchants')).toBe(1);
  });

  test('a transaction that writes configuration reads its own writes and keeps nothing of them', async () => {
    await inTx(t.rt, (tx) => merchantOf(t.rt, tx));
    const rolledBack = new Error('rolled back on purpose');
    await expect(
      t.rt.db.transaction(async (transaction) => {
        await t.rt.db.sql.run('UPDATE "merchants" SET "name" = ? WHERE "id" = ?', ['Never committed', sandbox.merchantId], { transaction });
        expect((await merchantOf(t.rt, transaction)).name).toBe('Never committed');
        throw rolledBack;
      }),
    ).rejects.toBe(rolledBack);
    const after = await inTx(t.rt, (tx) => merchantOf(t.rt, tx));
    expect(after.result.name).toBe('Renamed elsewhere');
  });

  test('a read that locks its rows is never answered from what is kept', async () => {
    await inTx(t.rt, (tx) => merchantOf(t.rt, tx));
    const locked = await inTx(t.rt, (transaction) =>
      selectRows(t.rt.db, t.rt.db.models.Merchant as never, { id: sandbox.merchantId }, { transaction, limit: 1, lock: true }),
    );
    // SQLite has no FOR UPDATE (its writer holds the whole database): there the read is kept like any other
    expect(reads(locked.sent, 'merchants')).toBe(onPostgres ? 1 : 0);
  });

  test('a database without the count (its migration rolled back) still runs transactions, reading configuration each time', async () => {
    await inTx(t.rt, (tx) => merchantOf(t.rt, tx));
    await other.db.sequelize.query('ALTER TABLE config_version RENAME TO config_version_away');
    // BEGIN tries the count again at most this often while it is missing
    t.rt.db.sql.missingRetryMs = 0;
    try {
      const first = await inTx(t.rt, (tx) => merchantOf(t.rt, tx));
      expect(first.result.name).toBe('Renamed elsewhere');
      const second = await inTx(t.rt, (tx) => merchantOf(t.rt, tx));
      expect(reads(second.sent, 'merchants')).toBe(1);
    } finally {
      await other.db.sequelize.query('ALTER TABLE config_version_away RENAME TO config_version');
    }
    // with the count back, it is read again and configuration kept
    await inTx(t.rt, (tx) => merchantOf(t.rt, tx));
    const kept = await inTx(t.rt, (tx) => merchantOf(t.rt, tx));
    t.rt.db.sql.missingRetryMs = 5_000;
    expect(reads(kept.sent, 'merchants')).toBe(0);
  });

  test('every configuration table counts its inserts, updates and deletes', async () => {
    const triggers = onPostgres
      ? await t.rt.db.sequelize.query<{ table: string }>(
          `SELECT c.relname AS "table" FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid WHERE g.tgname LIKE '%_config_changed' AND NOT g.tgisinternal`,
          { type: QueryTypes.SELECT },
        )
      : await t.rt.db.sequelize.query<{ table: string }>(
          `SELECT tbl_name AS "table" FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%_config_changed_%'`,
          { type: QueryTypes.SELECT },
        );
    const perTable = new Map<string, number>();
    for (const { table } of triggers) perTable.set(table, (perTable.get(table) ?? 0) + 1);
    // Postgres: one statement trigger for INSERT, UPDATE, DELETE and TRUNCATE; SQLite: one row trigger each
    expect(Object.fromEntries(perTable)).toEqual(Object.fromEntries(CONFIG_TABLES.map((table) => [table, onPostgres ? 1 : 3])));
    const before = await version(t.rt);
    await other.db.sequelize.query('UPDATE terminals SET "updatedAt" = "updatedAt" WHERE "tenantId" = :tenant', {
      replacements: { tenant: sandbox.tenantId },
    });
    expect(await version(t.rt)).toBeGreaterThan(before);
  });
});
