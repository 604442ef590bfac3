import { createTestRuntime, dialectName, type TestRuntime } from '../helpers/db';

let t: TestRuntime;
beforeAll(async () => {
  t = await createTestRuntime();
});
afterAll(() => t.close());

const kybTables = async () =>
  (await t.rt.db.sequelize.getQueryInterface().showAllTables())
    .map((x) => String(typeof x === 'object' ? (x as { tableName: string }).tableName : x))
    .filter((x) => x.startsWith('kyb'))
    .sort();

test(`migration 0006_kyb reverts and re-applies (${dialectName})`, async () => {
  expect(await kybTables()).toEqual(['kyb_document_contents', 'kyb_documents', 'kyb_submissions']);
  const reverted = await t.rt.db.rollback('0006_kyb');
  expect(reverted[reverted.length - 1]).toBe('0006_kyb');
  expect(await kybTables()).toEqual([]);
  expect(await t.rt.db.migrate()).toEqual([...reverted].reverse());
  expect(await kybTables()).toEqual(['kyb_document_contents', 'kyb_documents', 'kyb_submissions']);
});
